package dev.bulkdata.storage;

/**
 * Generated from a template: the typed {@code get} and {@code set} by slot of {@link Chunk}, one
 * pair per field type; what they check, cost and throw is
 * {@linkplain Chunk##typed Typed access}. Every other member of a chunk is declared in
 * {@link Chunk}, which extends this interface.
 */
public interface GeneratedChunkAccessors {
    // @each-type
    /**
     * Reads a {@code float} field ({@linkplain Chunk##typed Typed access}).
     * @param slot a live slot of this chunk
     * @param field a field of the table's schema
     * @return the value
     */
    float get(int slot, FloatField field);
    // @end

    // @each-type
    /**
     * Writes a {@code float} field ({@linkplain Chunk##typed Typed access}) and stamps the
     * field's change version in this chunk.
     * @param slot a live slot of this chunk
     * @param field a field of the table's schema
     * @param value the new value
     */
    void set(int slot, FloatField field, float value);
    // @end
}
