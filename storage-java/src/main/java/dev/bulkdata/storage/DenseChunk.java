package dev.bulkdata.storage;

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
final class DenseChunk extends SlotChunk {
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
    /** The first row of this block. */
    private final int firstRow;

    DenseChunk(Owner owner, DenseRows rows, int index) {
        super(rows.schema(), rows.block(index), rows.rowsPerBlock());
        this.owner = owner;
        this.rows = rows;
        this.index = index;
        this.firstRow = index * slots;
    }

    @Override
    String tableName() {
        return owner.name();
    }

    @Override
    void ensureOpen() {
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
    @Override
    int position(int slot) {
        Objects.checkIndex(slot, slots);
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
    public int liveCount() {
        ensureOpen();
        return live();
    }

    @Override
    public boolean isLive(int slot) {
        ensureOpen();
        return Objects.checkIndex(slot, slots) < live();
    }

    @Override
    public int nextLive(int from) {
        ensureOpen();
        if (from >= slots) {
            return -1;
        }
        return Objects.checkIndex(from, slots) < live() ? from : -1;
    }

    @Override
    public int liveWordCount() {
        return (slots + Long.SIZE - 1) >>> 6;
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
        return owner.handleOfRow(firstRow + position(slot));
    }

    @Override
    public String toString() {
        return "Chunk[" + owner.name() + " #" + index + ", live=" + live() + "/" + slots + " (dense)]";
    }
}
