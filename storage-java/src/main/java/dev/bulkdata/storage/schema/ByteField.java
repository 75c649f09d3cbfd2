// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

/** A {@link Field} holding byte values. Obtain it from {@link Schema#byteField(String)}. */
public final class ByteField extends Field {
    ByteField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.BYTE, index, blockOffset, slotStride);
    }
}
