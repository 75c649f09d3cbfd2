package dev.bulkdata.storage;

/**
 * The typed accessors of {@link Chunk}: one {@code get} and one {@code set} per field type.
 * {@code Chunk} extends this interface, so users see them as its own (Typed access, in its
 * documentation); generated from this template (ARCHITECTURE.md, Per-type code).
 */
interface ChunkPerType {
    // @each-type
    /**
     * Reads a {@code float} field (Typed access, in the class documentation).
     * @param slot a live slot of this chunk
     * @param field a field of the table's schema
     * @return the value
     */
    float get(int slot, FloatField field);

    /**
     * Writes a {@code float} field (Typed access, in the class documentation).
     * @param slot a live slot of this chunk
     * @param field a field of the table's schema
     * @param value the new value
     */
    void set(int slot, FloatField field, float value);
    // @end
}
