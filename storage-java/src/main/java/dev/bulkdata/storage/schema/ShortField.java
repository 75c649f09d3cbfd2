// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding short values. Obtain it from {@link Schema#shortField(String)}. */
public final class ShortField extends Field {
    ShortField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.SHORT, index, blockOffset, slotStride);
    }
}
