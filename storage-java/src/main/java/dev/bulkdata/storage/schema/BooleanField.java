package dev.bulkdata.storage.schema;

/**
 * A {@link Field} holding boolean values, stored as one byte ({@code 0} or {@code 1}). Obtain it from {@link Schema#booleanField(String)}.
 */
public final class BooleanField extends Field {
    BooleanField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.BOOLEAN, index, blockOffset, slotStride);
    }
}
