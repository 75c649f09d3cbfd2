package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;

/**
 * What both kinds of chunk share: one block's segment, its column views and the typed slot
 * accessors. A subclass says whether its table is open and which slots hold records
 * ({@link #position(int)}); a {@link BulkChunk} of a {@link BulkTable} has holes, a
 * {@link DenseChunk} of packed rows a live prefix.
 *
 * <p>Threads: as {@link Chunk}. Column views are made on first request; the race between two
 * threads making the same view is benign, since views of one column are interchangeable.
 */
abstract sealed class SlotChunk implements Chunk permits BulkChunk, DenseChunk {
    final Schema schema;
    /** The block's bytes: {@code slots} slots of {@link Schema#slotBytes()} each. */
    final MemorySegment data;
    /** Slots of the block, live or not. */
    final int slots;
    /** Column views, made on first request. */
    private MemorySegment[] columns;

    SlotChunk(Schema schema, MemorySegment data, int slots) {
        this.schema = schema;
        this.data = data;
        this.slots = slots;
    }

    /** {@return the table's name, for messages} */
    abstract String tableName();

    /**
     * Throws {@link IllegalStateException} unless the chunk may be used: its table is open and
     * an iteration of it is open.
     */
    abstract void checkAccess();

    /**
     * Checks that the chunk may be used ({@link #checkAccess()}) and that {@code slot} is in
     * this chunk and holds a record.
     *
     * @return {@code slot}
     * @throws IndexOutOfBoundsException if it is outside the chunk
     * @throws IllegalArgumentException if it holds no record
     * @throws IllegalStateException if the table is closed or no iteration of it is open
     */
    abstract int position(int slot);

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

    @Override
    public final byte get(int slot, ByteField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final short get(int slot, ShortField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final char get(int slot, CharField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final int get(int slot, IntField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final long get(int slot, LongField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final float get(int slot, FloatField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final double get(int slot, DoubleField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final boolean get(int slot, BooleanField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final void set(int slot, ByteField field, byte value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, ShortField field, short value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, CharField field, char value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, IntField field, int value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, LongField field, long value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, FloatField field, float value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, DoubleField field, double value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }

    @Override
    public final void set(int slot, BooleanField field, boolean value) {
        schema.check(field);
        field.set(data, position(slot), value);
    }
}
