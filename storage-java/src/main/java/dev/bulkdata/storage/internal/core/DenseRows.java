package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Rows of one {@link Schema} kept dense: rows {@code [0, size)} are all live, packed from the start of the first block,
 * row {@code r} in block {@code r >>> shift} at slot {@code r & mask} (a field addressed as in a bulk table's chunk).
 * Used by the packed table and the component table, which see each block through a chunk view {@code C}.
 *
 * <p>Invariants: every block {@code b < blockCount} is allocated; rows {@code [size, used)} held records once and keep
 * their bytes (removing and clearing write nothing); every byte of every row at or after {@code used} in an allocated
 * block is zero. Blocks never move and are freed only with the arena: a row address stays valid, though its record
 * may move. {@link #addRow()} costs O(1), {@link #removeRow} and {@link #swapRows} O(fields). Unchecked: the owner
 * checked rows and fields. Structure changes on the owner's writer thread only.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class DenseRows<C> {
    /** Where the rows' blocks come from: the table's arena, which counts them against its budgets. */
    public interface Blocks {
        /** Plans for at most {@code blocks} blocks (a reservation hint). */
        void plan(long blocks);

        /** Charges {@code count} blocks to the budgets first; throws {@link CapacityExceededException} if over. */
        void prepay(Schema schema, String table, long count);

        /** {@return a zeroed block, prepaid, for block number {@code block}} */
        MemorySegment allocateBlock(Schema schema, String table, int block);

        /** A block of {@code size} bytes stops being counted as held (kept as a zeroed spare). */
        void setAside(long size);

        /** A spare of {@code size} bytes is held again. */
        void takeBack(long size);
    }

    /** Makes the chunk view of block {@code block} of {@code rows}, once, when the block is first allocated. */
    public interface Views<C> {
        C view(DenseRows<C> rows, int block);
    }

    private static final MemorySegment[] NO_BLOCKS = new MemorySegment[0];
    private static final Object[] NO_CHUNKS = new Object[0];
    private static final int INITIAL_DIRECTORY = 8;

    private final Schema schema;
    private final Blocks arena;
    /** Makes {@link #chunk(int)} views; null if no chunk views are needed. */
    private final Views<C> views;
    private final int rowsPerBlock;
    private final int shift;
    private final int mask;
    private final int maxRows;
    /** The fields whose bytes make up a row (declared and hidden), copied on a move. */
    private final Field[] stored;

    private MemorySegment[] blocks = NO_BLOCKS;
    private Object[] chunks = NO_CHUNKS;
    private int blockCount;
    private int size;
    /** Rows ever held since the last {@link #trimBlocks}: rows at or past it are all zero. */
    private int used;

    /**
     * Blocks from {@code arena}, none until the first row; {@code views} makes the {@link #chunk(int)} views (null: no
     * views); {@code maxRows}, at least 1, caps the rows held at once.
     */
    public DenseRows(Schema schema, Blocks arena, Views<C> views, int maxRows) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows=" + maxRows + " must be at least 1");
        }
        this.schema = schema;
        this.arena = arena;
        this.views = views;
        this.rowsPerBlock = schema.slotsPerBlock();
        this.shift = Integer.numberOfTrailingZeros(rowsPerBlock);
        this.mask = rowsPerBlock - 1;
        this.maxRows = maxRows;
        this.stored = SchemaAccess.storedFields(schema);
        arena.plan(((long) maxRows + mask) >>> shift);
    }

    public Schema schema() {
        return schema;
    }

    public int size() {
        return size;
    }

    public int maxRows() {
        return maxRows;
    }

    /** {@return rows held without allocating another block} */
    public int capacity() {
        return (int) Math.min((long) blockCount * rowsPerBlock, maxRows);
    }

    /** {@return the number of rows per block (the schema's slots per block)} */
    public int rowsPerBlock() {
        return rowsPerBlock;
    }

    /** {@return the number of allocated blocks; only the first {@code chunkCount()} hold rows} */
    public int blockCount() {
        return blockCount;
    }

    /** {@return the number of blocks holding at least one row: {@code ceil(size / rowsPerBlock)}} */
    public int chunkCount() {
        return (size + mask) >>> shift;
    }

    /** {@return the block directory: block {@code b} holds rows {@code b * rowsPerBlock()} on; entries past {@link #blockCount()} are spares or null} */
    public MemorySegment[] segments() {
        return blocks;
    }

    /** {@return block {@code b}'s segment, {@code 0 <= b < blockCount()}} */
    public MemorySegment block(int b) {
        return blocks[b];
    }

    /** {@return how many rows block {@code b} holds: full blocks, then the remainder, then 0} */
    public int rowsInBlock(int b) {
        long first = (long) b << shift;
        return (int) Math.max(0, Math.min(rowsPerBlock, size - first));
    }

    /** {@return the chunk view of the block holding {@code row}; requires views} */
    @SuppressWarnings("unchecked")
    public C chunkOfRow(int row) {
        return (C) chunks[row >>> shift];
    }

    /** {@return the chunk view of block {@code b}; requires views} */
    @SuppressWarnings("unchecked")
    public C chunk(int b) {
        return (C) chunks[b];
    }

    /** {@return native bytes held: every allocated block} */
    public long nativeBytes() {
        return (long) blockCount * schema.blockBytes();
    }

    public MemorySegment blockOf(int row) {
        return blocks[row >>> shift];
    }

    public int slotOf(int row) {
        return row & mask;
    }

    /**
     * Allocates blocks so that {@code rows} rows fit. Throws {@link CapacityExceededException} if
     * {@code rows > maxRows()}, a budget would be exceeded (nothing changes) or memory runs out (row count unchanged,
     * blocks kept).
     */
    public void reserve(long rows) {
        if (rows > maxRows) {
            throw new CapacityExceededException("table '" + schema.name() + "' is full: " + rows
                    + " rows requested, at most " + maxRows + "; size=" + size);
        }
        int needed = (int) ((rows + mask) >>> shift);
        if (needed > blockCount) {
            // Count the blocks to allocate against the budgets first: over budget, nothing changes.
            int fresh = 0;
            for (int b = blockCount; b < needed; b++) {
                if (b >= blocks.length || blocks[b] == null) {
                    fresh++;
                }
            }
            arena.prepay(schema, schema.name(), fresh);
        }
        while (blockCount < needed) {
            if (blockCount == blocks.length) {
                int grown = Math.max(INITIAL_DIRECTORY, blocks.length * 2);
                blocks = Arrays.copyOf(blocks, grown);
                if (views != null) {
                    chunks = Arrays.copyOf(chunks, grown);
                }
            }
            if (blocks[blockCount] != null) {
                // A spare set aside by trimBlocks: zeroed, its chunk view still made.
                arena.takeBack(schema.blockBytes());
                blockCount++;
                continue;
            }
            MemorySegment data = arena.allocateBlock(schema, schema.name(), blockCount);
            blocks[blockCount] = data;
            if (views != null) {
                chunks[blockCount] = views.view(this, blockCount);
            }
            blockCount++;
        }
    }

    /**
     * Keeps the first {@code count} blocks (at least {@link #chunkCount()}): the rest become zeroed spares for the next
     * {@link #reserve}, not counted as held ({@link #blockCount()}, the arena's bytes). For a cancelled add.
     */
    public void trimBlocks(int count) {
        int kept = count << shift;
        for (int row = kept; row < used; row++) {
            SchemaAccess.wipe(schema, blocks[row >>> shift], row & mask);
        }
        used = Math.min(used, kept);
        while (blockCount > count) {
            blockCount--;
            arena.setAside(schema.blockBytes());
        }
    }

    /**
     * Sets the row count of restored rows (blocks reserved and filled by the caller); rows past {@code size} in them
     * count as used, so {@link #addRow()} zeroes them.
     */
    public void restoreSize(int size) {
        this.size = size;
        this.used = blockCount << shift;
    }

    /**
     * Appends an all-zero row and returns its index, the old {@link #size()}. Throws {@link CapacityExceededException}
     * if {@code maxRows()} rows are held or native memory runs out; nothing changes.
     */
    public int addRow() {
        if (size == maxRows || (size & mask) == 0 && (size >>> shift) == blockCount) {
            reserve((long) size + 1);
        }
        int row = size++;
        if (row < used) {
            SchemaAccess.wipe(schema, blocks[row >>> shift], row & mask);
        } else {
            used = row + 1;
        }
        return row;
    }

    /**
     * Swap-and-pop: moves the last row into {@code row} ({@code 0 <= row < size()}) and returns where it came from, or
     * -1 if {@code row} was last; the old last row keeps its bytes until {@link #addRow()} reuses it.
     */
    public int removeRow(int row) {
        int last = --size;
        MemorySegment lastBlock = blocks[last >>> shift];
        int lastSlot = last & mask;
        if (row == last) {
            return -1;
        }
        copyRow(lastBlock, lastSlot, blocks[row >>> shift], row & mask);
        return last;
    }

    /** Exchanges the records of rows {@code a} and {@code b}, both below {@link #size()}. */
    public void swapRows(int a, int b) {
        if (a == b) {
            return;
        }
        MemorySegment blockA = blocks[a >>> shift];
        MemorySegment blockB = blocks[b >>> shift];
        int slotA = a & mask;
        int slotB = b & mask;
        for (Field f : stored) {
            long offA = FieldAccess.offset(f, slotA);
            long offB = FieldAccess.offset(f, slotB);
            switch (f.type().byteSize()) {
                case Long.BYTES -> {
                    long x = blockA.get(ValueLayout.JAVA_LONG_UNALIGNED, offA);
                    blockA.set(ValueLayout.JAVA_LONG_UNALIGNED, offA, blockB.get(ValueLayout.JAVA_LONG_UNALIGNED, offB));
                    blockB.set(ValueLayout.JAVA_LONG_UNALIGNED, offB, x);
                }
                case Integer.BYTES -> {
                    int x = blockA.get(ValueLayout.JAVA_INT_UNALIGNED, offA);
                    blockA.set(ValueLayout.JAVA_INT_UNALIGNED, offA, blockB.get(ValueLayout.JAVA_INT_UNALIGNED, offB));
                    blockB.set(ValueLayout.JAVA_INT_UNALIGNED, offB, x);
                }
                case Short.BYTES -> {
                    short x = blockA.get(ValueLayout.JAVA_SHORT_UNALIGNED, offA);
                    blockA.set(ValueLayout.JAVA_SHORT_UNALIGNED, offA,
                            blockB.get(ValueLayout.JAVA_SHORT_UNALIGNED, offB));
                    blockB.set(ValueLayout.JAVA_SHORT_UNALIGNED, offB, x);
                }
                default -> {
                    byte x = blockA.get(ValueLayout.JAVA_BYTE, offA);
                    blockA.set(ValueLayout.JAVA_BYTE, offA, blockB.get(ValueLayout.JAVA_BYTE, offB));
                    blockB.set(ValueLayout.JAVA_BYTE, offB, x);
                }
            }
        }
    }

    /** Copies every stored byte of a row; AOS copies the whole stride at once. */
    private void copyRow(MemorySegment from, int fromSlot, MemorySegment to, int toSlot) {
        if (schema.layout() == RecordLayout.AOS) {
            long stride = schema.slotBytes();
            MemorySegment.copy(from, fromSlot * stride, to, toSlot * stride, stride);
            return;
        }
        for (Field f : stored) {
            MemorySegment.copy(from, FieldAccess.offset(f, fromSlot), to, FieldAccess.offset(f, toSlot),
                    f.type().byteSize());
        }
    }

    /** Removes every row: size 0; blocks are kept for reuse, rows zeroed as they are reused. O(1). */
    public void clear() {
        size = 0;
    }

    /** Forgets every row without touching memory, for the owner's close: chunk views then report the closed table. */
    public void forget() {
        size = 0;
    }

    /** Whether every byte of every row never used, to the end of the last block, is zero. */
    public boolean tailIsZero() {
        for (int row = used, end = blockCount << shift; row < end; row++) {
            MemorySegment block = blocks[row >>> shift];
            for (Field f : stored) {
                for (int i = 0; i < f.type().byteSize(); i++) {
                    if (block.get(ValueLayout.JAVA_BYTE, FieldAccess.offset(f, row & mask) + i) != 0) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
