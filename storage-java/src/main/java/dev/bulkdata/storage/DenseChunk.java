package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The {@link Chunk} view of one block of {@link DenseRows}: its live slots are exactly
 * {@code [0, liveCount())}, a prefix of the block (every block but the last is full). One view
 * per block, made when the block is allocated, so iterating allocates nothing.
 *
 * <p>Handles come from the {@link Owner} (the table that maps rows back to handles). Slot
 * accessors check that the slot is in the chunk and below {@code liveCount()}; after the owner
 * closes they throw {@link IllegalStateException}.
 *
 * <p>Threads: as {@link Chunk}; the live prefix changes only on the owner's writer thread.
 */
final class DenseChunk implements Chunk {
    /** The table behind a {@link DenseRows}: its name, its open state and its handles. */
    interface Owner {
        /** {@return the table's name, for messages} */
        String name();

        /** {@return whether the table is closed} */
        boolean isClosed();

        /** {@return the handle of the record in dense {@code row}, a live row} */
        long handleOfRow(int row);
    }

    private final Owner owner;
    private final DenseRows rows;
    private final int index;
    private final MemorySegment data;
    /** The first row of this block. */
    private final int firstRow;
    private final int slotCount;
    /** Column views, made on first request. Racy but benign: views are interchangeable. */
    private MemorySegment[] columns;

    DenseChunk(Owner owner, DenseRows rows, int index) {
        this.owner = owner;
        this.rows = rows;
        this.index = index;
        this.data = rows.block(index);
        this.slotCount = rows.rowsPerBlock();
        this.firstRow = index * slotCount;
    }

    private void ensureOpen() {
        if (owner.isClosed()) {
            throw closed();
        }
    }

    private IllegalStateException closed() {
        return new IllegalStateException("table '" + owner.name() + "' is closed");
    }

    /** Live rows of this block; 0 once the owner is closed (its rows are forgotten then). */
    private int live() {
        return rows.rowsInBlock(index);
    }

    /** Checks that {@code slot} is in this chunk and holds a row, returning it. */
    private int row(int slot) {
        Objects.checkIndex(slot, slotCount);
        if (slot >= live()) {
            if (owner.isClosed()) {
                throw closed();
            }
            throw new IllegalArgumentException("slot " + slot + " of chunk " + index + " of table '" + owner.name()
                    + "' holds no record: this chunk's records are slots 0.." + (live() - 1)
                    + " (dense table; iterate slots below liveCount())");
        }
        return slot;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public int liveCount() {
        ensureOpen();
        return live();
    }

    @Override
    public boolean isLive(int slot) {
        ensureOpen();
        return Objects.checkIndex(slot, slotCount) < live();
    }

    @Override
    public int nextLive(int from) {
        ensureOpen();
        if (from >= slotCount) {
            return -1;
        }
        return Objects.checkIndex(from, slotCount) < live() ? from : -1;
    }

    @Override
    public int liveWordCount() {
        return (slotCount + Long.SIZE - 1) >>> 6;
    }

    @Override
    public long liveBits(int word) {
        ensureOpen();
        int first = Objects.checkIndex(word, liveWordCount()) << 6;
        int bits = live() - first;
        if (bits <= 0) {
            return 0;
        }
        return bits >= Long.SIZE ? -1L : (1L << bits) - 1;
    }

    @Override
    public long handle(int slot) {
        return owner.handleOfRow(firstRow + row(slot));
    }

    @Override
    public MemorySegment column(Field field) {
        ensureOpen();
        Schema schema = rows.schema();
        schema.check(field);
        if (schema.layout() != Layout.SOA) {
            throw new IllegalStateException("table '" + owner.name() + "' uses the " + schema.layout()
                    + " layout, which has no columns; use records() and field.blockOffset()/slotStride()");
        }
        MemorySegment[] views = columns;
        if (views == null) {
            views = new MemorySegment[schema.fields().size()];
            columns = views;
        }
        MemorySegment view = views[field.index()];
        if (view == null) {
            view = data.asSlice(field.base, (long) slotCount * field.type().byteSize());
            views[field.index()] = view;
        }
        return view;
    }

    @Override
    public MemorySegment records() {
        ensureOpen();
        return data;
    }

    @Override
    public byte get(int slot, ByteField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public short get(int slot, ShortField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public char get(int slot, CharField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public int get(int slot, IntField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public long get(int slot, LongField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public float get(int slot, FloatField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public double get(int slot, DoubleField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public boolean get(int slot, BooleanField field) {
        rows.schema().check(field);
        return field.get(data, row(slot));
    }

    @Override
    public void set(int slot, ByteField field, byte value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, ShortField field, short value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, CharField field, char value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, IntField field, int value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, LongField field, long value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, FloatField field, float value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, DoubleField field, double value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public void set(int slot, BooleanField field, boolean value) {
        rows.schema().check(field);
        field.set(data, row(slot), value);
    }

    @Override
    public String toString() {
        return "Chunk[" + owner.name() + " #" + index + ", live=" + live() + "/" + slotCount + " (dense)]";
    }
}
