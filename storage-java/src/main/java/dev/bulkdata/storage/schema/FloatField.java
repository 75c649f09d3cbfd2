// @per-type: codegen/Generate.java writes ByteField .. DoubleField from this file (ARCHITECTURE.md, Per-type code)
package dev.bulkdata.storage.schema;

/** A {@link Field} holding float values. Obtain it from {@link Schema#floatField(String)}. */
public final class FloatField extends Field {
    FloatField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.FLOAT, index, blockOffset, slotStride);
    }
}
