package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;

/**
 * What both kinds of chunk share: one block's segment and its column views; the typed slot
 * accessors are in {@link SlotChunkPerType}, generated. A subclass says whether its table is
 * open and which slots hold records ({@link #position(int)}); a {@link BulkChunk} of a
 * {@link BulkTable} has holes, a {@link DenseChunk} of packed rows a live prefix.
 *
 * <p>Threads: as {@link Chunk}. Column views are made on first request; the race between two
 * threads making the same view is benign, since views of one column are interchangeable.
 */
abstract sealed class SlotChunk extends SlotChunkPerType permits BulkChunk, DenseChunk {
    /** Slots of the block, live or not. */
    final int slots;
    /** Column views, made on first request. */
    private MemorySegment[] columns;

    SlotChunk(Schema schema, MemorySegment data, int slots) {
        super(schema, data);
        this.slots = slots;
    }

    /** {@return the table's name, for messages} */
    abstract String tableName();

    /**
     * Throws {@link IllegalStateException} unless the chunk may be used: its table is open and
     * an iteration of it is open.
     */
    abstract void checkAccess();

    @Override
    public final int slotCount() {
        checkAccess();
        return slots;
    }

    @Override
    public final Schema schema() {
        checkAccess();
        return schema;
    }

    @Override
    public final MemorySegment column(Field field) {
        checkAccess();
        schema.check(field);
        if (schema.layout() != Layout.SOA) {
            throw new IllegalStateException("table '" + tableName() + "' uses the " + schema.layout()
                    + " layout, which has no columns; use records() and field.blockOffset()/slotStride()");
        }
        MemorySegment[] views = columns;
        if (views == null) {
            views = new MemorySegment[schema.fields().size()];
            columns = views;
        }
        MemorySegment view = views[field.index()];
        if (view == null) {
            view = data.asSlice(field.blockOffset, (long) slots * field.type().byteSize());
            views[field.index()] = view;
        }
        return view;
    }

    @Override
    public final MemorySegment records() {
        checkAccess();
        return data;
    }
}
