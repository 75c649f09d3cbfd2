// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding long values. Obtain it from {@link Schema#longField(String)}. */
public final class LongField extends Field {
    LongField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.LONG, index, blockOffset, slotStride);
    }
}
