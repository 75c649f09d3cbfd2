package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.ChangeVersions;

import java.util.Objects;

/**
 * The {@link Chunk} view of one block of {@link DenseRows}: its live slots are exactly {@code [0, liveCount())}, a
 * prefix of the block (every block but the last is full). One view per block, made with it: iteration allocates none.
 *
 * <p>Handles come from the {@link Owner} (the table that maps rows back to handles). Slot accessors check that the slot
 * is in the chunk and below {@code liveCount()}; every accessor throws {@link IllegalStateException} unless the owner
 * says its chunks may be used ({@link Owner#checkChunkAccess()}: a pass is running and the table is open). Threads: as
 * {@link Chunk}; the live prefix changes only on the owner's writer thread.
 */
final class DenseChunk extends SlotChunk {
    /** The table behind a {@link DenseRows}: its name, its open state and its handles. */
    interface Owner {
        /** {@return the table's name, for messages} */
        String name();

        /** Throws {@link IllegalStateException} unless the table is open and a pass (iteration, loop) over it runs. */
        void checkChunkAccess();

        // checkChunkAccess() on a slow path that may have raced a close(), which empties the rows: reports it.
        default void recheckChunkAccess() {
            checkChunkAccess();
        }

        /** {@return the handle of the record in dense {@code row}, a live row} */
        long handleOfRow(int row);

        /** {@return the table's change versions; {@link ChangeVersions#unused} if it keeps none} */
        ChangeVersions versions();

        /** {@link Chunk#removeLater}: queues the removal of the record in dense {@code row}, a live row. */
        void removeRowLater(int row);

        /** {@link Chunk#addLater}: queues an add, ordered by the chunk index {@code chunk}. */
        void addLaterFrom(int chunk, java.util.function.LongConsumer init);
    }

    private final Owner owner;
    private final DenseRows<DenseChunk> rows;
    /** The first row of this block. */
    private final int firstRow;

    DenseChunk(Owner owner, DenseRows<DenseChunk> rows, int index) {
        super(rows.schema(), rows.block(index), rows.rowsPerBlock(), owner.versions(), index);
        this.owner = owner;
        this.rows = rows;
        this.firstRow = index * slots;
    }

    @Override
    String tableName() {
        return owner.name();
    }

    @Override
    void checkAccess() {
        owner.checkChunkAccess();
    }

    /** The rows of the block, from 0. */
    @Override
    void forEachLive(RecordVisitor visitor) {
        for (int s = 0, n = rows.rowsInBlock(index()); s < n; s++) {
            visitor.visit(this, s);
        }
    }

    /** Live rows of this block; 0 once the owner is closed (its rows are forgotten then). */
    private int live() {
        return rows.rowsInBlock(index);
    }

    /** Checks that {@code slot} is in this chunk and holds a row, returning it. */
    @Override
    int position(int slot) {
        owner.checkChunkAccess();
        Objects.checkIndex(slot, slots);
        if (slot >= live()) {
            owner.recheckChunkAccess();         // the table closed by another thread after the check: its rows are gone
            throw new IllegalArgumentException("slot " + slot + " of chunk " + index + " of table '" + owner.name()
                    + "' holds no record: this chunk's records are slots 0.." + (live() - 1)
                    + " (dense table; iterate slots below liveCount())");
        }
        return slot;
    }

    @Override
    public int index() {
        owner.checkChunkAccess();
        return index;
    }

    @Override
    public int liveCount() {
        owner.checkChunkAccess();
        return live();
    }

    @Override
    public boolean isLive(int slot) {
        owner.checkChunkAccess();
        return Objects.checkIndex(slot, slots) < live();
    }

    @Override
    public int nextLive(int from) {
        owner.checkChunkAccess();
        if (from >= slots) {
            return -1;
        }
        return Objects.checkIndex(from, slots) < live() ? from : -1;
    }

    @Override
    public int nextHole(int from) {
        owner.checkChunkAccess();
        if (from >= slots) {
            return slots;
        }
        return Math.max(Objects.checkIndex(from, slots), live());
    }

    @Override
    public int liveWordCount() {
        owner.checkChunkAccess();
        return (slots + Long.SIZE - 1) >>> 6;
    }

    @Override
    public long liveBits(int word) {
        owner.checkChunkAccess();
        int first = Objects.checkIndex(word, (slots + Long.SIZE - 1) >>> 6) << 6;
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
    public void removeLater(int slot) {
        owner.removeRowLater(firstRow + position(slot));
    }

    @Override
    public void addLater(java.util.function.LongConsumer init) {
        owner.checkChunkAccess();
        owner.addLaterFrom(index, init);
    }

    @Override
    public String toString() {
        return "Chunk[" + owner.name() + " #" + index + ", live=" + live() + "/" + slots + " (dense)]";
    }
}
