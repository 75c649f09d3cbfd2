// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding char values. Obtain it from {@link Schema#charField(String)}. */
public final class CharField extends Field {
    CharField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.CHAR, index, blockOffset, slotStride);
    }
}
