// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding double values. Obtain it from {@link Schema#doubleField(String)}. */
public final class DoubleField extends Field {
    DoubleField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.DOUBLE, index, blockOffset, slotStride);
    }
}
