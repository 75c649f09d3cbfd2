// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding int values. Obtain it from {@link Schema#intField(String)}. */
public final class IntField extends Field {
    IntField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.INT, index, blockOffset, slotStride);
    }
}
