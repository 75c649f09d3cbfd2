package dev.bulkdata.storage;

/**
 * Generated from a template: the typed field lookups of {@link Schema}, one per field type
 * ({@link #floatField(String)}, ...). Sealed: {@link Schema} is its only subtype, and every
 * other member of a schema is declared there.
 */
public sealed interface GeneratedSchemaAccessors permits Schema {
    // @each-type
    /**
     * Looks up a {@code float} field by name, checking its type. O(1).
     *
     * @param fieldName the name of a {@code float} field
     * @return the field
     * @throws IllegalArgumentException if there is no such field or it is not a {@code float}
     */
    default FloatField floatField(String fieldName) {
        return ((Schema) this).typed(fieldName, FloatField.class, FieldType.FLOAT);
    }
    // @end
}
