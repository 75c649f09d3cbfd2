package dev.bulkdata.storage;

/**
 * The typed accessors of {@link Table}: one {@code get} and one {@code set} per field type.
 * {@code Table} extends this interface, so users see them as its own (Typed access, in its
 * documentation); generated from this template (ARCHITECTURE.md, Per-type code).
 */
interface TablePerType {
    // @each-type
    /**
     * Reads a {@code float} field (Typed access, in the class documentation).
     * @param handle a live handle of this table
     * @param field a field of this table's schema
     * @return the value
     */
    float get(long handle, FloatField field);

    /**
     * Writes a {@code float} field (Typed access, in the class documentation).
     * @param handle a live handle of this table
     * @param field a field of this table's schema
     * @param value the new value
     */
    void set(long handle, FloatField field, float value);
    // @end
}
