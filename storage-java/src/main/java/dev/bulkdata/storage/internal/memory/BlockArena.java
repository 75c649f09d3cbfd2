package dev.bulkdata.storage.internal.memory;

import dev.bulkdata.storage.internal.events.TableEvents;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.CapacityExceededException;
import dev.bulkdata.storage.Schema;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The memory backend of one table: a shared {@link Arena} that every block of the table comes
 * from, with a count of the bytes handed out. The blocks are native memory, or, once
 * {@link #mapFrom} made it the arena of a mapped table, 16 KiB-strided slices of regions of the
 * table's file mapped into the same arena ({@link MappedFile}). Where {@link AddressSpace}
 * reservations are available, the native blocks are the 16 KiB-strided slices of one range
 * reserved for every block the owner may hold ({@link #plan}, {@link #region()}), so that block
 * {@code b} lies at {@code b << BLOCK_SHIFT} of it. Blocks are never freed one by one; closing frees
 * them all at once (a shared arena's close costs a thread handshake, so it happens once per
 * table, never per block).
 *
 * <p>The arena is shared so that chunk-parallel code on many threads (and coroutines that hop
 * threads) can touch the blocks. Access after close throws {@link IllegalStateException} from
 * the FFM runtime; it never crashes the JVM.
 *
 * <p>If the owner becomes unreachable without {@link #close()}, a cleaner closes the arena and
 * releases the owner's tag (with what the table handed out, from its {@link TagLease}), so a
 * forgotten table leaks neither native memory nor its tag.
 *
 * <p><b>Budget.</b> Every block of native memory counts, from the moment it is first handed out
 * until the arena closes, against the owner's own budget ({@link #budget(long)}) and the
 * process-wide one ({@link NativeBudget}), whether it lies in a reserved range (memory is taken
 * when the block is first touched, which is right after it is handed out: it is zeroed or
 * written) or was allocated on its own. The check comes first: {@link #prepay} counts the blocks
 * a change is about to take, or throws {@link CapacityExceededException} counting nothing, so
 * that the change can fail before it changes anything; {@link #allocateBlock} draws on what was
 * prepaid, or pays for its block itself. Blocks mapped from a file count against neither.
 *
 * <p>Threads: {@link #allocateBlock}, {@link #allocateAhead}, {@link #prepay} and {@link #close} follow the owning table's single-writer
 * rule; {@link #bytes()} may be read from the writer thread.
 */
public final class BlockArena {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Arena arena;
    private final Cleaner.Cleanable cleanable;
    private final int tag;
    private long bytes;
    private int blocks;
    private boolean closeCalled;
    /** Native memory allocated ahead for the next blocks ({@link #allocateAhead}), or null. */
    private MemorySegment ahead;
    /** Where in {@link #ahead} the next block starts. */
    private long aheadAt;
    /** The file the blocks are mapped from, or null for blocks of native memory. */
    private MappedFile file;
    /** Blocks the owner may ever hold ({@link #plan}), 0 until planned. */
    private long plannedBlocks;
    /** Whether a reservation was tried (on the first block). */
    private boolean reserveTried;
    /** Address space for the first {@link #regionBlocks} blocks, block {@code b} at {@code b << BLOCK_SHIFT}; or null. */
    private MemorySegment region;
    private long regionBlocks;
    private boolean hugePagesAdvised;
    /** The owner's own budget in bytes ({@link #budget(long)}); {@link Long#MAX_VALUE} for none. */
    private long budget = Long.MAX_VALUE;
    /**
     * Bytes counted against the budgets: the blocks of native memory handed out (spares set
     * aside included: their memory is still held) plus {@link #prepaid}. Given back to the
     * process-wide budget when the arena closes. Written by the writer thread; read by the
     * cleaner once the owner is unreachable or closed.
     */
    private volatile long charged;
    /** Bytes counted by {@link #prepay} for blocks not handed out yet. */
    private long prepaid;

    /**
     * Opens the arena of a new table.
     *
     * @param owner the table; when it becomes unreachable, the arena is closed and the tag
     *     released
     * @param lease the owner's tag lease, released on close
     */
    public BlockArena(Object owner, TagLease lease) {
        this.arena = Arena.ofShared();
        this.tag = lease.tag;
        this.cleanable = CLEANER.register(owner, new Release(arena, lease, this));
        TableEvents.opened(owner, tag, this);
    }

    /**
     * Caps the native memory of the owner's blocks at {@code bytes}, besides the process-wide
     * budget. Called once, before the first block.
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
     * Counts {@code count} blocks that the owner is about to take, {@link Schema#blockBytes()}
     * each, against its own budget and the process-wide one, so that the next
     * {@link #allocateBlock} calls draw on them instead of checking; or throws, counting
     * nothing. O(1). No effect on an arena that maps its blocks from a file.
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

    /** Counts {@code size} bytes against both budgets, or throws counting nothing. */
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

    /** Draws one block's bytes from what was prepaid, or pays for them now. */
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
     * Says how many blocks the owner may ever hold, so that its first block reserves address
     * space for all of them at once ({@link AddressSpace}), capped at 64 GiB. Without a call, or
     * where reservations are not available, blocks are allocated one by one.
     *
     * @param blocks the most blocks the owner can hold
     */
    public void plan(long blocks) {
        this.plannedBlocks = blocks;
    }

    /**
     * {@return the reserved range holding blocks {@code [0, regionBlocks())} at
     * {@code block << BLOCK_SHIFT}, or null while there is none (before the first block, for a
     * mapped table, or where reservations are not available)}
     */
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
     * Reserves {@code bytes} of address space in this arena for something other than blocks (a
     * table's slot entries), zero where first read, unmapped when the arena closes.
     *
     * @param bytes the size
     * @return the range, or null where reservations are not available or {@code bytes} exceeds 64 GiB
     */
    public MemorySegment reserve(long bytes) {
        return bytes > MAX_RESERVATION ? null : AddressSpace.reserve((bytes + 4095) & -4096L, arena);
    }

    private void tryReserve() {
        reserveTried = true;
        long blocks = Math.min(plannedBlocks, MAX_RESERVATION >>> BLOCK_SHIFT);
        if (blocks > 0) {
            region = AddressSpace.reserve(blocks << BLOCK_SHIFT, arena);
            regionBlocks = region == null ? 0 : blocks;
        }
    }

    /**
     * Advises the region to use huge pages, once, when its first {@code blocks} blocks are
     * large enough for them to pay: from then on the kernel may back the range with them.
     */
    private void adviseHugePages(long blocks) {
        if (!hugePagesAdvised && (blocks << BLOCK_SHIFT) > AddressSpace.HUGE_PAGE) {
            hugePagesAdvised = true;
            AddressSpace.adviseHugePages(region);
        }
    }

    /** Block {@code block} of the region; blocks come in order, each once. */
    private MemorySegment regionBlock(Schema schema, int block) {
        if (block != blocks) {
            throw new IllegalStateException("block " + block + " allocated out of order (" + blocks + " allocated)");
        }
        adviseHugePages(block + 1L);
        return region.asSlice((long) block << BLOCK_SHIFT, schema.blockBytes());
    }

    private MemorySegment counted(MemorySegment segment, long size) {
        bytes += size;
        TableEvents.allocated(tag, size, ++blocks, bytes);
        return segment;
    }

    /**
     * Allocates one zeroed block of a table: {@link Schema#blockBytes()} bytes, aligned to
     * {@link Schema#BLOCK_ALIGNMENT}. The one place where running out of native memory becomes
     * a {@link CapacityExceededException}.
     *
     * @param schema the table's record schema
     * @param table the table's name, for the message
     * @param block the block's number in its table, for the message
     * @return the block's segment
     * @throws CapacityExceededException if native memory runs out, or the block was not
     *     {@link #prepay prepaid} and a budget would be exceeded
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
     * Allocates the memory of the next {@code count} blocks at once, for {@link #allocateBlock}
     * to hand out in order: a load that knows how many blocks follow pays one allocation (and
     * one entry in the shared arena's list of memory to free) per batch instead of one per
     * block. Blocks are never freed one by one, so sharing an allocation changes nothing else;
     * each block still counts its {@link Schema#blockBytes()} (the padding that rounds a block
     * up to 64 bytes between two of them, under 64 bytes per 16 KiB block, is not counted, so
     * a loaded table reports the bytes of the table it was saved from). No effect on an arena
     * that maps its blocks from a file.
     *
     * @param schema the table's record schema
     * @param table the table's name, for the message
     * @param block the number in its table of the first of these blocks, for the message
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

    /** Bytes from one block to the next in an allocation of several: a block, rounded up to its alignment. */
    private static long stride(Schema schema) {
        return (schema.blockBytes() + Schema.BLOCK_ALIGNMENT - 1) & -Schema.BLOCK_ALIGNMENT;
    }

    /** Zeroed native memory, aligned for blocks; the one place where running out of it becomes a {@link CapacityExceededException}. */
    private MemorySegment nativeMemory(long size, String table, String blocks) {
        try {
            return arena.allocate(size, Schema.BLOCK_ALIGNMENT);
        } catch (OutOfMemoryError e) {
            throw new CapacityExceededException("table '" + table + "' could not allocate " + blocks + " ("
                    + size + " bytes of native memory); it holds " + bytes + " bytes in blocks", e);
        }
    }

    /**
     * Makes this arena's blocks come from a file: from now on {@link #allocateBlock} hands out
     * the file's blocks, mapped into this arena, and closing the arena unmaps them and closes
     * the file. Called once, before any block is allocated.
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
     * Stops counting {@code size} bytes of a segment the caller keeps as a spare (zeroed, for
     * its next growth): an add that was cancelled gives back the block it allocated this way.
     *
     * @param size bytes of the spare segment
     */
    public void setAside(long size) {
        bytes -= size;
    }

    /**
     * Counts a spare segment as in use again.
     *
     * @param size bytes of the spare segment, as given to {@link #setAside(long)}
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
    private record Release(Arena arena, TagLease lease, BlockArena counts) implements Runnable {
        @Override
        public void run() {
            try {
                TableEvents.closed(lease.tag, counts.blocks, counts.bytes, !counts.closeCalled);
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
