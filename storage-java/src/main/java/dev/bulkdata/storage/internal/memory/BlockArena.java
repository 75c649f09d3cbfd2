package dev.bulkdata.storage.internal.memory;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.SlotEntries;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Schema;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The memory backend of one table: a shared {@link Arena} that every block comes from (native memory, slices of a
 * reserved range ({@link #plan}) or, after {@link #mapFrom}, of its mapped file), with the bytes handed out. Close
 * frees all blocks at once; later access throws from the FFM runtime, never crashes. A cleaner closes a table dropped
 * unclosed and releases its tag. Native blocks count against {@link #budget(long)} and {@link NativeBudget} from first
 * hand-out (or {@link #prepay}) to close; mapped ones against neither. ARCHITECTURE.md, "Memory layout".
 *
 * <p>Threads: {@link #allocateBlock}, {@link #allocateAhead}, {@link #prepay} and {@link #close} follow the owner's
 * single-writer rule; {@link #bytes()} is read on the writer.
 */
public final class BlockArena implements SlotEntries.Space, DenseRows.Blocks {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Arena arena;
    private final Cleaner.Cleanable cleanable;
    private final int tag;
    private long bytes;
    private int blocks;
    private boolean closeCalled;
    private final ArenaListener listener;
    /** Native memory allocated ahead for the next blocks ({@link #allocateAhead}), or null. */
    private MemorySegment ahead;
    private long aheadAt;
    private MappedFile file;
    private long plannedBlocks;
    private boolean reserveTried;
    private MemorySegment region;
    private long regionBlocks;
    private boolean hugePagesAdvised;
    private long budget = Long.MAX_VALUE;
    /** Native block bytes handed out (spares too) plus {@link #prepaid}; volatile: the cleaner gives it back. */
    private volatile long charged;
    /** Bytes counted by {@link #prepay} for blocks not handed out yet. */
    private long prepaid;

    /**
     * Opens the arena of a new table.
     *
     * @param owner the table; when it becomes unreachable, the arena is closed and the tag released
     * @param lease the owner's tag lease, released on close
     */
    public BlockArena(Object owner, TagLease lease) {
        this(owner, lease, ArenaListener.NONE);
    }

    /**
     * Opens the arena of a new table that reports its blocks to {@code listener}.
     *
     * @param owner the table; when it becomes unreachable, the arena is closed and the tag released
     * @param lease the owner's tag lease, released on close
     * @param listener told of every block handed out and of the close
     */
    public BlockArena(Object owner, TagLease lease, ArenaListener listener) {
        this.arena = Arena.ofShared();
        this.tag = lease.tag;
        this.listener = listener;
        this.cleanable = CLEANER.register(owner, new Release(arena, lease, this, listener));
    }

    /**
     * Caps the owner's native memory, besides the process-wide budget; once, before the first block.
     *
     * @param bytes the cap, {@link Long#MAX_VALUE} for none
     */
    public void budget(long bytes) {
        this.budget = bytes;
    }

    /** {@return the owner's own budget in bytes; {@link Long#MAX_VALUE} for none} */
    public long budget() {
        return budget;
    }

    /** {@return bytes counted against the budgets: blocks of native memory handed out, spares included; 0 for a mapped table} */
    public long charged() {
        return charged;
    }

    /**
     * Counts blocks the owner is about to take against both budgets, so the next {@link #allocateBlock} calls draw on
     * them, or throws counting nothing. O(1); no effect on a mapped arena.
     *
     * @param schema the table's record schema
     * @param table the table's name, for the message
     * @param count blocks about to be taken, at least 0
     * @throws CapacityExceededException if a budget would be exceeded; nothing is counted
     */
    public void prepay(Schema schema, String table, long count) {
        if (file != null || count <= 0) {
            return;
        }
        long size = count * schema.blockBytes();
        long due = size - prepaid;
        if (due > 0) {
            charge(due, table, count == 1 ? "a block" : count + " blocks");
            prepaid += due;
        }
    }

    private void charge(long size, String table, String what) {
        if (size > budget - charged) {
            throw new CapacityExceededException("table '" + table + "' cannot take " + what + " (" + size
                    + " bytes): its memory budget (memoryBudget) is " + budget + " bytes and it holds "
                    + charged + " bytes in blocks; nothing was changed");
        }
        if (!NativeBudget.charge(size)) {
            throw new CapacityExceededException("table '" + table + "' cannot take " + what + " (" + size
                    + " bytes): the process-wide memory budget is " + NativeBudget.limit() + " bytes ("
                    + NativeBudget.source() + ") and tables hold " + NativeBudget.inUse() + " bytes in blocks, "
                    + charged + " of them this table's; nothing was changed");
        }
        charged += size;
    }

    private void pay(long size, String table, int block) {
        if (prepaid >= size) {
            prepaid -= size;
        } else {
            charge(size, table, "block " + block);
        }
    }

    /** log2 of the bytes from one block to the next in a {@link #region()}: 16 KiB. */
    public static final int BLOCK_SHIFT = 14;
    /** At most this much address space is reserved per table (64 GiB); blocks past it are allocated one by one. */
    private static final long MAX_RESERVATION = 1L << 36;

    /**
     * Says how many blocks the owner may ever hold, so its first block reserves address space for all of them (at most
     * 64 GiB). Without it, or without reservations, blocks come one by one.
     *
     * @param blocks the most blocks the owner can hold
     */
    public void plan(long blocks) {
        this.plannedBlocks = blocks;
    }

    /** {@return the reserved range of blocks {@code [0, regionBlocks())}, or null (none yet, mapped, or unavailable)} */
    public MemorySegment region() {
        return region;
    }

    /** {@return whether {@link #region()} holds every block the owner planned ({@link #plan}), so no block lies outside it} */
    public boolean regionHoldsAll() {
        return region != null && regionBlocks == plannedBlocks;
    }

    /** {@return how many blocks, from block 0, lie in {@link #region()}; 0 without one} */
    public long regionBlocks() {
        return regionBlocks;
    }

    /**
     * {@return address space reserved in this arena for something other than blocks (slot entries), zero where first
     * read, unmapped on close; or null where reservations are not available or over 64 GiB}
     *
     * @param bytes the size
     */
    @Override
    public MemorySegment reserve(long bytes) {
        return bytes > MAX_RESERVATION ? null : AddressSpace.reserve((bytes + 4095) & -4096L, arena);
    }

    /** {@inheritDoc} {@link AddressSpace#adviseHugePages}. */
    @Override
    public void adviseHugePages(MemorySegment range) {
        AddressSpace.adviseHugePages(range);
    }

    private void tryReserve() {
        reserveTried = true;
        long blocks = Math.min(plannedBlocks, MAX_RESERVATION >>> BLOCK_SHIFT);
        if (blocks > 0) {
            region = AddressSpace.reserve(blocks << BLOCK_SHIFT, arena);
            regionBlocks = region == null ? 0 : blocks;
        }
    }

    private void adviseHugePages(long blocks) {
        if (!hugePagesAdvised && (blocks << BLOCK_SHIFT) > AddressSpace.HUGE_PAGE) {
            hugePagesAdvised = true;
            AddressSpace.adviseHugePages(region);
        }
    }

    private MemorySegment regionBlock(Schema schema, int block) {
        if (block != blocks) {
            throw new IllegalStateException("block " + block + " allocated out of order (" + blocks + " allocated)");
        }
        adviseHugePages(block + 1L);
        return region.asSlice((long) block << BLOCK_SHIFT, schema.blockBytes());
    }

    private MemorySegment counted(MemorySegment segment, long size) {
        bytes += size;
        listener.allocated(tag, size, ++blocks, bytes);
        return segment;
    }

    /**
     * {@return the table's next block, zeroed, {@link Schema#blockBytes()} bytes aligned to {@link Schema#BLOCK_ALIGNMENT}}
     *
     * @param schema the table's record schema
     * @param table the table's name, for the message
     * @param block the block's number in its table, for the message
     * @throws CapacityExceededException if native memory runs out, or the block was not {@link #prepay prepaid} and a
     *     budget would be exceeded
     */
    public MemorySegment allocateBlock(Schema schema, String table, int block) {
        if (file != null) {
            try {
                return counted(file.nextBlock(), schema.blockBytes());
            } catch (java.io.IOException e) {
                throw new CapacityExceededException("table '" + table + "' could not grow its file " + file.name
                        + " for block " + block + ": " + e.getMessage(), e);
            }
        }
        pay(schema.blockBytes(), table, block);
        if (!reserveTried) {
            tryReserve();
        }
        if (block < regionBlocks) {
            return counted(regionBlock(schema, block), schema.blockBytes());
        }
        if (ahead != null) {
            MemorySegment data = ahead.asSlice(aheadAt, schema.blockBytes());
            aheadAt += stride(schema);
            if (aheadAt == ahead.byteSize()) {
                ahead = null;
            }
            return counted(data, schema.blockBytes());
        }
        MemorySegment data;
        try {
            data = nativeMemory(schema.blockBytes(), table, "block " + block);
        } catch (CapacityExceededException e) {
            prepaid += schema.blockBytes(); // paid for, not taken: the next block draws on it
            throw e;
        }
        return counted(data, schema.blockBytes());
    }

    /**
     * Allocates the next {@code count} blocks' memory at once (one allocation per batch of a load), for
     * {@link #allocateBlock} to hand out in order. Each block counts its {@link Schema#blockBytes()}, not the padding
     * between them, so a loaded table reports the saved one's bytes. No effect on a mapped arena.
     *
     * @param schema the table's record schema
     * @param table the table's name, for the message
     * @param block the number of the first of these blocks, for the message
     * @param count the blocks that follow
     * @throws CapacityExceededException if native memory runs out or a budget would be exceeded
     * @throws IllegalStateException if blocks allocated ahead before are still unused
     */
    public void allocateAhead(Schema schema, String table, int block, int count) {
        if (ahead != null) {
            throw new IllegalStateException("blocks allocated ahead are still unused");
        }
        prepay(schema, table, count);
        if (!reserveTried && file == null) {
            tryReserve();
        }
        if (region != null) {
            adviseHugePages(Math.min((long) block + count, regionBlocks)); // before these blocks are first touched
        }
        long past = Math.max(block, regionBlocks); // the first block the region does not hold
        long outside = (long) block + count - past;
        if (file == null && outside > 1) {
            ahead = nativeMemory(stride(schema) * outside, table, "blocks " + past + " to " + (block + count - 1));
            aheadAt = 0;
        }
    }

    private static long stride(Schema schema) {
        return (schema.blockBytes() + Schema.BLOCK_ALIGNMENT - 1) & -Schema.BLOCK_ALIGNMENT;
    }

    /** Zeroed, block-aligned native memory; the one place where running out becomes a {@link CapacityExceededException}. */
    private MemorySegment nativeMemory(long size, String table, String blocks) {
        try {
            return arena.allocate(size, Schema.BLOCK_ALIGNMENT);
        } catch (OutOfMemoryError e) {
            throw new CapacityExceededException("table '" + table + "' could not allocate " + blocks + " ("
                    + size + " bytes of native memory); it holds " + bytes + " bytes in blocks", e);
        }
    }

    /**
     * Makes the blocks come from a file, mapped into this arena (closing unmaps them and closes the file); once, before
     * any block.
     *
     * @param file the table's file, open and locked
     */
    public void mapFrom(MappedFile file) {
        file.attach(arena);
        this.file = file;
    }

    /** {@return bytes in use: handed out as blocks, less those set aside (not reset by close)} */
    public long bytes() {
        return bytes;
    }

    /**
     * Stops counting a spare segment the caller keeps zeroed for its next growth (a cancelled add's block).
     *
     * @param size bytes of the spare segment
     */
    public void setAside(long size) {
        bytes -= size;
    }

    /**
     * Counts a spare segment as in use again.
     *
     * @param size bytes of the spare, as given to {@link #setAside(long)}
     */
    public void takeBack(long size) {
        bytes += size;
    }

    /** {@return blocks handed out since creation: a table's blocks} */
    public int blocks() {
        return blocks;
    }

    /** Frees every segment of the arena and releases the tag. Idempotent. */
    public void close() {
        closeCalled = true;
        cleanable.clean();
    }

    /** Must not refer to the owner, or the owner would never become unreachable. */
    private record Release(Arena arena, TagLease lease, BlockArena counts, ArenaListener listener)
            implements Runnable {
        @Override
        public void run() {
            try {
                listener.closed(lease.tag, counts.blocks, counts.bytes, !counts.closeCalled);
                NativeBudget.release(counts.charged);
                arena.close();
            } finally {
                try {
                    if (counts.file != null) {
                        counts.file.close();
                    }
                } finally {
                    TagRegistry.release(lease);
                }
            }
        }
    }
}
