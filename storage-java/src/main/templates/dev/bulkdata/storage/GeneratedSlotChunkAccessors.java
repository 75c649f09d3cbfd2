package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;

/**
 * Generated from a template: the typed slot accessors of {@link SlotChunk}, one {@code get}
 * and one {@code set} per field type, written once for both kinds of chunk over the one part
 * each provides: where a live slot's record is ({@link #position(int)}). See ARCHITECTURE.md,
 * Per-type code; everything else of a chunk is in {@link SlotChunk}.
 */
abstract sealed class GeneratedSlotChunkAccessors implements Chunk permits SlotChunk {
    final Schema schema;
    /** The block's bytes: {@code slots} slots of {@link Schema#slotBytes()} each. */
    final MemorySegment data;
    /** The table's change versions; a {@code set} stamps its field in this chunk. */
    final ChangeVersions versions;
    /** This chunk's position in the table: its row of {@link #versions}. */
    final int index;

    GeneratedSlotChunkAccessors(Schema schema, MemorySegment data, ChangeVersions versions, int index) {
        this.schema = schema;
        this.data = data;
        this.versions = versions;
        this.index = index;
    }

    /**
     * Checks that the chunk may be used ({@code checkAccess()}) and that {@code slot} is in
     * this chunk and holds a record.
     *
     * @return {@code slot}
     * @throws IndexOutOfBoundsException if it is outside the chunk
     * @throws IllegalArgumentException if it holds no record
     * @throws IllegalStateException if the table is closed or no iteration of it is open
     */
    abstract int position(int slot);

    // @each-type
    @Override
    public final float get(int slot, FloatField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final void set(int slot, FloatField field, float value) {
        schema.check(field);
        field.set(data, position(slot), value);
        versions.stampField(index, field.index());
    }
    // @end
}
