package dev.bulkdata.storage;

/**
 * Generated from a template: the typed {@code get} and {@code set} by handle of {@link Table},
 * one pair per field type; what they check, cost and throw is
 * {@linkplain Table##typed Typed access}. Every other member of a table is declared in
 * {@link Table}, which extends this interface.
 */
public interface GeneratedTableAccessors {
    // @each-type
    /**
     * Reads a {@code float} field ({@linkplain Table##typed Typed access}).
     * @param handle a live handle of this table
     * @param field a field of this table's schema
     * @return the value
     */
    float get(long handle, FloatField field);
    // @end

    // @each-type
    /**
     * Writes a {@code float} field ({@linkplain Table##typed Typed access}) and stamps the
     * field's change version in the record's chunk.
     * @param handle a live handle of this table
     * @param field a field of this table's schema
     * @param value the new value
     */
    void set(long handle, FloatField field, float value);
    // @end
}
