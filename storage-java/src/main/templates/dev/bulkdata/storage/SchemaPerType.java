package dev.bulkdata.storage;

/**
 * The typed field lookups of {@link Schema}, one per field type ({@code floatField(name)}).
 * {@code Schema} extends this class, so users see them as its own. Generated per type from
 * this template (ARCHITECTURE.md, Per-type code); everything else is in {@link Schema}.
 */
abstract sealed class SchemaPerType permits Schema {
    /**
     * Looks up a field by name and checks that it is a {@code kind}.
     *
     * @throws IllegalArgumentException if there is no such field or it is of another type
     */
    abstract <F extends Field> F typed(String fieldName, Class<F> kind, FieldType type);

    // @each-type
    /**
     * Looks up a {@code float} field by name, checking its type. O(1).
     *
     * @param fieldName the name of a {@code float} field
     * @return the field
     * @throws IllegalArgumentException if there is no such field or it is not a {@code float}
     */
    public FloatField floatField(String fieldName) {
        return typed(fieldName, FloatField.class, FieldType.FLOAT);
    }
    // @end
}
