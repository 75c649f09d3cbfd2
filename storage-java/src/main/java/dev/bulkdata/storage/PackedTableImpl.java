package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.PagedInts;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.RowSort;
import dev.bulkdata.storage.internal.tags.TagLease;


/**
 * The {@link PackedTable}: each slot's stride-2 {@link SlotMap} entry names its record's row in {@link DenseRows}, and
 * each row a back-link to its slot: every live slot {@code s} has {@code row(s) < size}, {@code back[row(s)] == s};
 * every row {@code r < size} names live slot {@code back[r]}. Removal is swap-and-pop; {@link #defragment} restarts
 * its insertion sort from row 0 each call, skipped while {@code fragmented} is clear. ARCHITECTURE.md, "PackedTable".
 */
sealed class PackedTableImpl extends AbstractTable implements PackedTable, DenseChunk.Owner permits MappedPackedTableImpl {
    final DenseRows<DenseChunk> rows;
    /** Back-links: the slot of the record in each row, a page per block of rows. */
    final PagedInts back;
    /** {@link #blockCount} before the last {@link #reserveRecords}, for {@link #unreserve}. */
    private int blocksBefore;
    /** Set by every structural change; cleared by a complete defragment pass. */
    private boolean fragmented;
    /** The order the last complete pass sorted by; null if none. */
    private RecordOrder sortedBy;
    /** Rows swapped by the running defragment call, so that an order that throws knows whether rows moved. */
    private long swapsThisCall;
    /** The order of the running defragment call, which {@link #sorter} compares by; else null. */
    private RecordOrder sorting;
    /** The budgeted insertion sort, shared with {@link ComponentTable}. */
    private final RowSort sorter = new RowSort(new RowSort.Rows() {
        @Override
        public int compareRows(int a, int b) {
            return sorting.compare(handleOfRow(a), handleOfRow(b));
        }

        @Override
        public void swapRows(int a, int b) {
            PackedTableImpl.this.swapRows(a, b);
        }
    });

    /** A table under a leased tag: automatic, fixed, or restored from a snapshot. */
    PackedTableImpl(Schema schema, HandleLayout handles, int maxCapacity, TagLease lease) {
        super(schema, handles, ReuseOrder.FIFO, maxCapacity, lease, null);
        this.rows = new DenseRows<>(schema, arena, (r, b) -> new DenseChunk(this, r, b), slots.maxSlot);
        this.back = new PagedInts(recordShift, 0);
    }

    // ---- Rows

    int row(int slot) {
        return slots.payload(slot);
    }

    private void setRow(int slot, int row) {
        slots.setPayload(slot, row);
    }

    /** Makes room for {@code count} more rows and their back-links; all or nothing for the rows. */
    @Override
    void reserveRecords(int count, long highestSlot) {
        versions.ensureChunks((int) ((size + (long) count + recordMask) >>> recordShift));
        blocksBefore = blockCount;
        rows.reserve((long) size + count);
        blockCount = rows.blockCount();
        segments = rows.segments();
        back.ensure(rows.capacity() - 1L);
        if (region == null) {
            adoptRegion(arena);
        }
    }

    // ---- Handles

    /** A record lives in its slot's row, read from the same entry as the meta word. */
    @Override
    int recordOf(long handle) {
        int row = slots.findPayload(handle);
        if (row < 0) {
            throw rejection(handle);
        }
        return row;
    }

    @Override
    public void removeRowLater(int row) {
        queueRemoval(slotOf(handleOfRow(row)));
    }

    @Override
    public void addLaterFrom(int chunk, java.util.function.LongConsumer init) {
        queueAdd(chunk, init);
    }

    @Override
    public long handleOfRow(int row) {
        return slots.handleOf(back.get(row));
    }

    @Override
    public ChangeVersions versions() {
        return versions;
    }

    // ---- Structure

    /** Gives a taken slot the next row; room for the row was reserved. */
    @Override
    long activate(int slot) {
        fragmented = true;
        int row = rows.addRow();
        versions.stampAll(row >>> recordShift);
        back.set(row, slot);
        setRow(slot, row);
        size++;
        return slots.activate(slot);
    }

    /** Swap-and-pop of the slot's row; the slot's entry no longer names a row. */
    @Override
    void dropRecord(int slot) {
        int row = row(slot);
        int moved = rows.removeRow(row);
        versions.stampStructure(row >>> recordShift);
        if (moved >= 0) {
            // The last record moves into the gap: new bytes in the gap's chunk, one fewer in the chunk it leaves.
            versions.stampFields(row >>> recordShift);
            versions.stampStructure(moved >>> recordShift);
            int movedSlot = back.get(moved);
            back.set(row, movedSlot);
            setRow(movedSlot, row);
            back.set(moved, 0);
        } else {
            back.set(row, 0);
        }
        setRow(slot, 0);
        size--;
        fragmented = true;
    }

    /** Blocks past those before the last reservation are set aside ({@link DenseRows#trimBlocks}). */
    @Override
    void unreserve(int slot) {
        rows.trimBlocks(blocksBefore);
        blockCount = rows.blockCount();
    }

    /** One step per chunk and the slot map's pass (a clear's over the meta words; none for a reset); no row byte and no back-link is written. */
    @Override
    void clearRecords(boolean reset) {
        for (int c = 0, n = rows.chunkCount(); c < n; c++) {
            versions.stampStructure(c);
        }
        if (reset) {
            slots.resetAll();
        } else {
            slots.releaseAllLive();
        }
        rows.clear();
        size = 0;
        fragmented = true;
    }

    @Override
    void onClose() {
        rows.forget();
    }

    // ---- Defragment

    @Override
    public long defragment(long maxSwaps, RecordOrder order) {
        if (order == null) {
            throw new IllegalArgumentException("order is null (table '" + name() + "'); pass a RecordOrder,"
                    + " e.g. (a, b) -> Float.compare(table.get(a, X), table.get(b, X))");
        }
        if (maxSwaps < 0) {
            throw new IllegalArgumentException("maxSwaps=" + maxSwaps + " must be >= 0 (table '" + name() + "')");
        }
        long me = beginChange("defragment");
        if (!fragmented && order == sortedBy) {
            guard.endChange(me);
            return 0;
        }
        long swaps;
        // Hold the iteration guard while the order runs, so that it cannot change the structure.
        beginIteration();
        sorting = order;
        swapsThisCall = 0;
        try {
            swaps = sorter.sort(size, maxSwaps);
        } catch (Throwable t) {
            // The order threw part-way: if rows moved, no earlier pass holds any more.
            if (swapsThisCall > 0) {
                fragmented = true;
                sortedBy = null;
            }
            throw guard.abortChange(me, t, true);
        } finally {
            sorting = null;
            endIteration();
        }
        if (sorter.finished()) {
            fragmented = false;
            sortedBy = order;
        } else if (swaps > 0) {
            // An unfinished pass by another order has moved rows: no order's pass holds any more.
            fragmented = true;
        }
        guard.endChange(me);
        return swaps;
    }

    /** Exchanges two rows' records, their back-links and their slots' rows. */
    private void swapRows(int a, int b) {
        swapsThisCall++;
        rows.swapRows(a, b);
        versions.stampAll(a >>> recordShift);
        versions.stampAll(b >>> recordShift);
        int slotA = back.get(a);
        int slotB = back.get(b);
        back.set(a, slotB);
        back.set(b, slotA);
        setRow(slotA, b);
        setRow(slotB, a);
    }

    @Override
    public void markFragmented() {
        ensureOpen();
        fragmented = true;
    }

    // ---- Queries and iteration

    @Override
    public int capacity() {
        ensureOpen();
        return (int) Math.min(rows.capacity(), size + slots.holes() + slots.freshSlots());
    }

    @Override
    public TableStats stats() {
        if (closed) {
            return TableStats.closed(name());
        }
        ensureOpen();
        return new TableStats(name(), size, 0, slots.retired, capacity(), rows.blockCount(), arena.bytes());
    }

    @Override
    int chunkCount() {
        ensureOpen();
        return rows.chunkCount();
    }

    @Override
    void initAt(int slot, int i, RecordInit init) {
        int row = row(slot);
        init.init(rows.chunkOfRow(row), rows.slotOf(row), i);
    }

    @Override
    DenseChunk chunkAt(int index) {
        ensureOpen();
        return rows.chunk(index);
    }

    // ---- Snapshots (the saved state, StoredTables)

    /** Allocates block {@code b} of a table being restored (blocks in order) and returns it to be filled. */
    java.lang.foreign.MemorySegment restoreBlock(int b) {
        versions.ensureChunks(b + 1);
        rows.reserve(Math.min((long) (b + 1) * schema.slotsPerBlock(), rows.maxRows()));
        blockCount = rows.blockCount();
        segments = rows.segments();
        back.ensure(rows.capacity() - 1L);
        if (region == null) {
            adoptRegion(arena);
        }
        return segments[b];
    }

    /**
     * Sets a restored table's {@code size} rows, row {@code r} holding slot {@code backLinks[r]}'s record (the entries
     * name the rows already); fragmented, as the sorted order is not saved.
     */
    void restoreRows(int size, int[] backLinks) {
        for (int row = 0; row < size; row++) {
            back.set(row, backLinks[row]);
        }
        rows.restoreSize(size);
        this.size = size;
        fragmented = true;
    }

    /** Writes the slot of every row, in row order, into {@code out} (a snapshot's back-links). */
    void putSlotsOfRows(java.nio.IntBuffer out) {
        back.putTo(out, 0, 1, size);
    }

    /** {@return whether a defragment call would do work (ignoring a change of order); for the model test} */
    boolean isFragmented() {
        return fragmented;
    }
}
