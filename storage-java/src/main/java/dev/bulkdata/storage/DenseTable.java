package dev.bulkdata.storage;

import java.util.Arrays;

/**
 * The {@link PackedTable}: a paged sparse index of slots (what handles name) over
 * {@link DenseRows} (where records live), with a back-link per row (seed 000's meta set).
 *
 * <pre>
 *  handle ──► slot i ──► sparse page i &gt;&gt;&gt; PAGE_SHIFT, entry i &amp; PAGE_MASK
 *
 *  sparse pages (int[2 * PAGE_SLOTS] each, allocated as slots open, never moved)
 *   entry of slot i:  [ meta: R | generation | L ][ row if live, free-list link if free ]
 *
 *  dense rows (16 KiB blocks)              back-links (int[rowsPerBlock] per block)
 *   row 0 | row 1 | ... | row size-1        back[r] = the slot whose record is in row r
 * </pre>
 *
 * <p>Invariants: for every live slot {@code s}, {@code back[row(s)] == s} and
 * {@code row(s) < size}; for every row {@code r < size}, slot {@code back[r]} is live and its
 * entry names {@code r}; rows {@code [size, end of block)} are zero. Free slots are in the
 * {@link FreeList} (FIFO, header in slot 0's entry), retired slots ({@code R}) nowhere.
 * The meta word has {@link Block}'s format, so the shared rejection logic of
 * {@link AbstractTable} reads it unchanged.
 *
 * <p>Removal is swap-and-pop: the last row's record moves into the removed row, and its slot's
 * entry and the back-link follow. {@link #defragment} is an insertion sort by adjacent swaps,
 * restarted from row 0 by every call and skipped entirely while {@code fragmented} is clear.
 *
 * <p>Closing sets {@code limit} to 0 and forgets the rows, so every later access by handle or
 * by chunk slot falls to the slow path, which reports the closed table.
 */
final class DenseTable extends AbstractTable implements PackedTable, DenseChunk.Owner {
    /** Sparse slots per page: 4096, so a page is 32 KiB of heap (two ints per slot). */
    static final int PAGE_SHIFT = 12;
    static final int PAGE_SLOTS = 1 << PAGE_SHIFT;
    static final int PAGE_MASK = PAGE_SLOTS - 1;
    /** Ints per sparse entry: meta, then row or link. */
    private static final int ENTRY_INTS = 2;
    private static final int INITIAL_DIRECTORY = 8;
    private static final int[][] NO_PAGES = new int[0][];

    private final DenseRows rows;
    private final int shift;
    private final int mask;

    /** Sparse pages; entries of slots below {@code limit} exist. */
    private int[][] pages = NO_PAGES;
    private int pageCount;
    /** Back-links, one page per dense block, made with the block. */
    private int[][] back = NO_PAGES;
    private int backCount;
    /** Set by every structural change; cleared by a complete defragment pass. */
    private boolean fragmented;
    /** The order the last complete pass sorted by; null if none. */
    private RecordOrder sortedBy;
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
            DenseTable.this.swapRows(a, b);
        }
    });

    DenseTable(Schema schema, HandleLayout layout, int maxCapacity) {
        super(schema, layout, ReuseOrder.FIFO, maxCapacity);
        this.rows = new DenseRows(schema, arena, this, maxSlot);
        this.shift = Integer.numberOfTrailingZeros(schema.slotsPerBlock());
        this.mask = schema.slotsPerBlock() - 1;
    }

    // ---------------------------------------------------------------------------------------
    // Sparse entries

    @Override
    int meta(int slot) {
        return pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) * ENTRY_INTS];
    }

    @Override
    void setMeta(int slot, int meta) {
        pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) * ENTRY_INTS] = meta;
    }

    /** The row of a live slot. */
    private int row(int slot) {
        return pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) * ENTRY_INTS + 1];
    }

    private void setRow(int slot, int row) {
        pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) * ENTRY_INTS + 1] = row;
    }

    @Override
    int link(int slot) {
        return row(slot);
    }

    @Override
    void setLink(int slot, int next) {
        setRow(slot, next);
    }

    private int backLink(int row) {
        return back[row >>> shift][row & mask];
    }

    private void setBackLink(int row, int slot) {
        back[row >>> shift][row & mask] = slot;
    }

    @Override
    void ensureSlots(long slot) {
        int needed = (int) (slot >>> PAGE_SHIFT) + 1;
        while (pageCount < needed) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, Math.max(INITIAL_DIRECTORY, pages.length * 2));
            }
            pages[pageCount++] = new int[PAGE_SLOTS * ENTRY_INTS];
        }
    }

    /** Makes room for {@code count} more rows and their back-links; all or nothing for the rows. */
    @Override
    void reserveRecords(int count) {
        rows.reserve((long) size + count);
        segments = rows.segments();
        while (backCount < rows.blockCount()) {
            if (backCount == back.length) {
                back = Arrays.copyOf(back, Math.max(INITIAL_DIRECTORY, back.length * 2));
            }
            back[backCount++] = new int[rows.rowsPerBlock()];
        }
    }

    // ---------------------------------------------------------------------------------------
    // Handles

    /**
     * The one validity check of a handle: tag and stray bits, index, then the slot's meta
     * word against {@code generation << 1 | LIVE}. One branch on the fast path.
     *
     * @return the row of the handle's record if it is live in this table, else -1
     */
    private int find(long handle) {
        long index = handle & indexMask;
        if ((handle & ~payloadMask) == tagBits && index < limit) {
            int slot = (int) index;
            int expected = (((int) (handle >>> indexBits) & generationMask) << Block.GENERATION_SHIFT) | Block.LIVE;
            int[] page = pages[slot >>> PAGE_SHIFT];
            int at = (slot & PAGE_MASK) * ENTRY_INTS;
            if (page[at] == expected) {
                return page[at + 1];
            }
        }
        return -1;
    }

    /** A record lives in its slot's row. */
    @Override
    int recordOf(long handle) {
        int row = find(handle);
        if (row < 0) {
            throw rejection(handle);
        }
        return row;
    }

    @Override
    int findSlot(long handle) {
        return find(handle) >= 0 ? (int) (handle & indexMask) : -1;
    }

    @Override
    public long handleOfRow(int row) {
        int slot = backLink(row);
        return handleOf(slot, Block.generation(meta(slot)));
    }

    // ---------------------------------------------------------------------------------------
    // Structure

    /** Gives a taken slot the next row; room for the row was reserved. */
    @Override
    long activate(int slot) {
        fragmented = true;
        int row = rows.addRow();
        setBackLink(row, slot);
        setRow(slot, row);
        int meta = meta(slot) | Block.LIVE;
        setMeta(slot, meta);
        size++;
        return handleOf(slot, Block.generation(meta));
    }

    @Override
    void markDead(int slot) {
        setMeta(slot, meta(slot) & ~Block.LIVE);
    }

    @Override
    void markLive(int slot) {
        setMeta(slot, meta(slot) | Block.LIVE);
    }

    /** Swap-and-pop of the slot's row; the slot's entry no longer names a row. */
    @Override
    void dropRecord(int slot) {
        int row = row(slot);
        int moved = rows.removeRow(row);
        if (moved >= 0) {
            int movedSlot = backLink(moved);
            setBackLink(row, movedSlot);
            setRow(movedSlot, row);
            setBackLink(moved, 0);
        } else {
            setBackLink(row, 0);
        }
        setRow(slot, 0);
        size--;
        fragmented = true;
    }

    @Override
    int blockCount() {
        return rows.blockCount();
    }

    @Override
    void trimBlocks(int count) {
        rows.trimBlocks(count);
    }

    @Override
    void clearRecords() {
        for (int row = 0; row < size; row++) {
            int slot = backLink(row);
            retireOrAdvance(slot);
            setRow(slot, 0);
            setBackLink(row, 0);
        }
        rows.clear();
        size = 0;
        fragmented = true;
        rebuildFreeList();
    }

    @Override
    void onClose() {
        limit = 0;
        rows.forget();
    }

    // ---------------------------------------------------------------------------------------
    // Defragment

    @Override
    public long defragment(RecordOrder order, long maxSwaps) {
        if (order == null) {
            throw new IllegalArgumentException("order is null (table '" + name() + "'); pass a RecordOrder,"
                    + " e.g. (a, b) -> Float.compare(table.get(a, X), table.get(b, X))");
        }
        if (maxSwaps < 0) {
            throw new IllegalArgumentException("maxSwaps=" + maxSwaps + " must be >= 0 (table '" + name() + "')");
        }
        Thread me = beginChange("defragment");
        if (!fragmented && order == sortedBy) {
            endChange(me);
            return 0;
        }
        long swaps;
        // Hold the iteration guard while the order runs, so that it cannot change the structure.
        beginIteration();
        sorting = order;
        try {
            swaps = sorter.sort(size, maxSwaps);
        } catch (Throwable t) {
            // The order threw part-way: rows may have moved, so no earlier pass holds any more.
            fragmented = true;
            sortedBy = null;
            throw abortChange(me, t, true);
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
        endChange(me);
        return swaps;
    }

    /** Exchanges two rows' records, their back-links and their slots' rows. */
    private void swapRows(int a, int b) {
        rows.swapRows(a, b);
        int slotA = backLink(a);
        int slotB = backLink(b);
        setBackLink(a, slotB);
        setBackLink(b, slotA);
        setRow(slotA, b);
        setRow(slotB, a);
    }

    @Override
    public void markFragmented() {
        ensureOpen();
        fragmented = true;
    }

    // ---------------------------------------------------------------------------------------
    // Queries and iteration

    @Override
    public int capacity() {
        ensureOpen();
        return (int) Math.min(rows.capacity(), size + freeList.length() + freshSlots());
    }

    @Override
    public TableStats stats() {
        if (closed) {
            return TableStats.closed(name());
        }
        ensureOpen();
        return new TableStats(name(), size, 0, retired, capacity(), rows.blockCount(), arena.bytes());
    }

    @Override
    int chunkCount() {
        ensureOpen();
        return rows.chunkCount();
    }

    @Override
    Chunk chunkAt(int index) {
        ensureOpen();
        return rows.chunk(index);
    }

    @Override
    void forEachLive(Chunk chunk, RecordVisitor visitor) {
        for (int s = 0, n = rows.rowsInBlock(chunk.index()); s < n; s++) {
            visitor.visit(chunk, s);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Audit, for tests

    /** {@return the slot whose record is in {@code row}, for tests} */
    int slotOfRow(int row) {
        return backLink(row);
    }

    /** {@return whether a defragment call would do work (ignoring a change of order)} */
    boolean isFragmented() {
        return fragmented;
    }

    /**
     * Checks every invariant of the sparse index, the back-links, the rows, the free list and
     * the counters. O(slots + rows).
     *
     * @throws AssertionError naming the first broken invariant
     */
    @Override
    void checkInvariants() {
        ensureOpen();
        check(rows.size() == size, "rows hold " + rows.size() + " but size is " + size);
        int live = 0;
        int retiredSlots = 0;
        for (int slot = 1; slot < limit; slot++) {
            int meta = meta(slot);
            check(Block.generation(meta) <= maxGeneration, "generation beyond layout at slot " + slot);
            if ((meta & Block.LIVE) != 0) {
                live++;
                check((meta & Block.RETIRED) == 0, "live slot " + slot + " is retired");
                int row = row(slot);
                check(row >= 0 && row < size, "live slot " + slot + " names row " + row + " of " + size);
                check(backLink(row) == slot, "row " + row + " links back to slot " + backLink(row)
                        + ", not to slot " + slot);
            }
            if ((meta & Block.RETIRED) != 0) {
                retiredSlots++;
                check(Block.generation(meta) == maxGeneration, "retired slot " + slot + " below max generation");
            }
        }
        for (int row = 0; row < size; row++) {
            int slot = backLink(row);
            check(slot > 0 && slot < limit && (meta(slot) & Block.LIVE) != 0 && row(slot) == row,
                    "row " + row + " links back to slot " + slot + ", which does not name it");
        }
        check(rows.tailIsZero(), "a row past size " + size + " holds data");
        check(rows.chunkCount() == (size + mask) >>> shift, "chunk count " + rows.chunkCount() + " for size " + size);
        checkSlotCounts(live, retiredSlots);
    }
}
