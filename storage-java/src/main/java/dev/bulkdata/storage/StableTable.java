package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The {@link BulkTable}: stable slots in a directory of blocks, a circular free list, a
 * generation per slot.
 *
 * <pre>
 *  handle ──► slot index i ──► block i &gt;&gt;&gt; shift, slot-in-block i &amp; mask
 *
 *  blocks (directory, doubles when full; the only thing ever copied)
 *  +------+------+------+------+------+------+
 *  |  b0  |  b1  |  b2  | null | null | null |     blockCount = 3
 *  +--|---+--|---+--|---+------+------+------+
 *     v      v      v
 *   Block  Block  Block     each: native data + int meta[slots] + long live[slots/64]
 *
 *  slots [0, limit) have been opened; slot 0 is the free-list header; limit grows one slot at a
 *  time when the free list is empty, allocating a block when it crosses into a new one.
 * </pre>
 *
 * <p>An access by handle validates, in one branch on the fast path: the tag and the bits outside
 * the layout ({@code (h & ~payloadMask) == tagBits}), the index ({@code < limit}), and the
 * slot's meta word against {@code generation << 1 | LIVE}. Everything else (naming the reason)
 * happens on the slow path in {@link #rejection(long)}.
 *
 * <p>Closing sets {@code limit} to 0, clears every live bitmap and drops the blocks, so every
 * later access by handle falls to the slow path, which reports the closed table, and every
 * chunk access fails its iteration check; freed memory is never reached.
 */
final class StableTable extends AbstractTable implements BulkTable {
    private static final Block[] NO_BLOCKS = new Block[0];
    private static final int INITIAL_DIRECTORY = 8;

    private final ReuseOrder reuseOrder;
    private final int slotsPerBlock;
    private final int shift;
    private final int mask;

    private Block[] blocks = NO_BLOCKS;
    private int blockCount;

    StableTable(Schema schema, ReuseOrder reuseOrder, HandleLayout layout, int maxCapacity) {
        super(schema, layout, reuseOrder, maxCapacity);
        this.reuseOrder = reuseOrder;
        this.slotsPerBlock = schema.slotsPerBlock();
        this.shift = Integer.numberOfTrailingZeros(slotsPerBlock);
        this.mask = slotsPerBlock - 1;
    }

    // ---------------------------------------------------------------------------------------
    // Handles

    /**
     * The one validity check of a handle: tag and stray bits, index, then the slot's meta
     * word against {@code generation << 1 | LIVE}. One branch on the fast path.
     *
     * @return the handle's slot if it refers to a live record of this table, else -1
     */
    private int find(long handle) {
        long index = handle & indexMask;
        if ((handle & ~payloadMask) == tagBits && index < limit) {
            int slot = (int) index;
            int expected = (((int) (handle >>> indexBits) & generationMask) << Block.GENERATION_SHIFT) | Block.LIVE;
            if (blocks[slot >>> shift].meta[slot & mask] == expected) {
                return slot;
            }
        }
        return -1;
    }

    @Override
    int findSlot(long handle) {
        return find(handle);
    }

    /** A record lives in its slot. */
    @Override
    int recordOf(long handle) {
        int slot = find(handle);
        if (slot < 0) {
            throw rejection(handle);
        }
        return slot;
    }

    // ---------------------------------------------------------------------------------------
    // Slots and blocks

    private Block block(int slot) {
        return blocks[slot >>> shift];
    }

    @Override
    int meta(int slot) {
        return blocks[slot >>> shift].meta[slot & mask];
    }

    @Override
    void setMeta(int slot, int meta) {
        blocks[slot >>> shift].meta[slot & mask] = meta;
    }

    @Override
    int link(int slot) {
        return schema.link().get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    void setLink(int slot, int next) {
        schema.link().set(blocks[slot >>> shift].data, slot & mask, next);
    }

    /** Zeroes every stored byte of {@code slot}, its link word included. */
    void wipe(int slot) {
        schema.wipe(blocks[slot >>> shift].data, slot & mask);
    }

    /** Allocates blocks until slot {@code slot} exists; all or nothing for the records. */
    @Override
    void ensureSlots(long slot) {
        int needed = (int) (slot >>> shift) + 1;
        while (blockCount < needed) {
            if (blockCount == blocks.length) {
                blocks = Arrays.copyOf(blocks, Math.max(INITIAL_DIRECTORY, blocks.length * 2));
                segments = Arrays.copyOf(segments, blocks.length);
            }
            if (blocks[blockCount] != null) {
                // A spare set aside by trimBlocks: zeroed, its meta words kept (a cancelled
                // add's slot keeps the generation it advanced to).
                arena.takeBack(schema.blockBytes());
                blockCount++;
                continue;
            }
            MemorySegment data;
            try {
                data = arena.allocate(schema.blockBytes(), Schema.BLOCK_ALIGNMENT);
            } catch (OutOfMemoryError e) {
                throw new CapacityExceededException("table '" + name() + "' could not allocate block " + blockCount
                        + " (" + schema.blockBytes() + " bytes of native memory); it holds " + arena.bytes()
                        + " bytes in " + blockCount + " blocks", e);
            }
            blocks[blockCount] = new Block(this, data, blockCount);
            segments[blockCount] = data;
            blockCount++;
        }
    }

    /** Makes a free slot live and returns its handle. */
    @Override
    long activate(int slot) {
        Block b = block(slot);
        int s = slot & mask;
        b.markLive(s);
        size++;
        return handleOf(slot, Block.generation(b.meta[s]));
    }

    /** Wipes a slot whose live bit is already clear. */
    @Override
    void dropRecord(int slot) {
        schema.wipe(block(slot).data, slot & mask);
        size--;
    }

    @Override
    int blockCount() {
        return blockCount;
    }

    /** Blocks past {@code count} stay in the directory as spares, reused by {@link #ensureSlots}. */
    @Override
    void trimBlocks(int count) {
        while (blockCount > count) {
            blockCount--;
            arena.setAside(schema.blockBytes());
        }
    }

    @Override
    void markDead(int slot) {
        block(slot).markDead(slot & mask);
    }

    @Override
    void markLive(int slot) {
        block(slot).markLive(slot & mask);
    }

    // ---------------------------------------------------------------------------------------
    // Structure

    /** A record lives in its slot: reserving slots reserved its room. */
    @Override
    void reserveRecords(int count) {
    }

    @Override
    void clearRecords() {
        for (int i = 0; i < blockCount; i++) {
            Block b = blocks[i];
            for (int w = 0; w < b.live.length; w++) {
                long bits = b.live[w];
                while (bits != 0) {
                    int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    retireOrAdvance(i * slotsPerBlock + s);
                }
                b.live[w] = 0;
            }
            b.liveCount = 0;
            b.data.fill((byte) 0);
        }
        size = 0;
        rebuildFreeList();
    }

    @Override
    void onClose() {
        limit = 0;
        for (int i = 0; i < blockCount; i++) {
            Arrays.fill(blocks[i].live, 0L);
            blocks[i].liveCount = 0;
        }
        blocks = NO_BLOCKS;
        blockCount = 0;
    }

    // ---------------------------------------------------------------------------------------
    // Queries and iteration

    @Override
    public ReuseOrder reuseOrder() {
        return reuseOrder;
    }

    @Override
    public int capacity() {
        ensureOpen();
        long opened = Math.min((long) blockCount * slotsPerBlock, (long) maxSlot + 1);
        long inBlocks = limit == 0 ? 0 : opened - limit;
        return (int) (size + freeList.length() + inBlocks);
    }

    @Override
    public TableStats stats() {
        if (closed) {
            return TableStats.closed(name());
        }
        ensureOpen();
        return new TableStats(name(), size, freeList.length(), retired, capacity(), blockCount, arena.bytes());
    }

    @Override
    int chunkCount() {
        ensureOpen();
        return blockCount;
    }

    @Override
    Chunk chunkAt(int index) {
        ensureOpen();
        return blocks[index];
    }

    @Override
    void forEachLive(Chunk chunk, RecordVisitor visitor) {
        Block b = (Block) chunk;
        long[] live = b.live;
        for (int w = 0; w < live.length; w++) {
            long bits = live[w];
            while (bits != 0) {
                int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                visitor.visit(b, s);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Audit, for tests

    /**
     * Checks every invariant of the blocks, the free list and the counters. O(capacity).
     *
     * @throws AssertionError naming the first broken invariant
     */
    @Override
    void checkInvariants() {
        ensureOpen();
        int live = 0;
        int retiredSlots = 0;
        for (int i = 0; i < blockCount; i++) {
            Block b = blocks[i];
            int blockLive = 0;
            for (int s = 0; s < slotsPerBlock; s++) {
                int slot = i * slotsPerBlock + s;
                int meta = b.meta[s];
                boolean bit = b.isLiveUnchecked(s);
                check(bit == ((meta & Block.LIVE) != 0), "live bit and meta disagree at slot " + slot);
                check(Block.generation(meta) <= maxGeneration, "generation beyond layout at slot " + slot);
                if (bit) {
                    blockLive++;
                    check(slot > 0 && slot < limit, "live slot " + slot + " outside [1, " + limit + ")");
                    check((meta & Block.RETIRED) == 0, "live slot " + slot + " is retired");
                }
                if ((meta & Block.RETIRED) != 0) {
                    retiredSlots++;
                    check(Block.generation(meta) == maxGeneration, "retired slot " + slot + " below max generation");
                }
                if (!bit) {
                    boolean holdsLink = slot == 0 || (slot < limit && (meta & Block.RETIRED) == 0);
                    check(isWiped(b.data, s, holdsLink), "dead slot " + slot + " holds data besides its link");
                }
            }
            check(blockLive == b.liveCount, "liveCount of block " + i + " is " + b.liveCount + ", bitmap says "
                    + blockLive);
            live += blockLive;
        }
        checkSlotCounts(live, retiredSlots);
    }

    /** Whether every stored byte of {@code slot} is zero, except the link word if it holds one. */
    private boolean isWiped(MemorySegment data, int slot, boolean holdsLink) {
        long linkStart = schema.link().offset(slot);
        for (Field f : schema.storedFields()) {
            for (int i = 0; i < f.type().byteSize(); i++) {
                long at = f.offset(slot) + i;
                boolean link = holdsLink && at >= linkStart && at < linkStart + Integer.BYTES;
                if (!link && data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) != 0) {
                    return false;
                }
            }
        }
        return true;
    }
}
