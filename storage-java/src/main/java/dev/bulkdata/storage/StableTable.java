package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

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
 * <p>Closing sets {@code limit} to 0 and clears every live bitmap, so every later access by
 * handle or by slot falls to the slow path, which reports the closed table; freed memory is
 * never reached.
 */
final class StableTable extends AbstractTable implements BulkTable {
    private static final Block[] NO_BLOCKS = new Block[0];
    private static final int INITIAL_DIRECTORY = 8;

    private final ReuseOrder reuseOrder;
    private final FreeList freeList;
    private final int slotsPerBlock;
    private final int shift;
    private final int mask;
    private final int indexBits;
    private final long indexMask;
    private final int generationMask;
    private final long payloadMask;
    private final long tagBits;
    private final int maxGeneration;
    /** The largest slot index this table may open (layout and maxCapacity). */
    private final int maxSlot;

    private Block[] blocks = NO_BLOCKS;
    private int blockCount;
    /** Slots {@code [0, limit)} are opened; 0 before the first block and after close. */
    private int limit;
    private int size;
    private int retired;

    StableTable(Schema schema, ReuseOrder reuseOrder, HandleLayout layout, int maxCapacity) {
        super(schema, layout);
        this.reuseOrder = reuseOrder;
        this.freeList = new FreeList(this, reuseOrder);
        this.slotsPerBlock = schema.slotsPerBlock();
        this.shift = Integer.numberOfTrailingZeros(slotsPerBlock);
        this.mask = slotsPerBlock - 1;
        this.indexBits = layout.indexBits();
        this.indexMask = (1L << indexBits) - 1;
        this.generationMask = layout.maxGeneration();
        this.payloadMask = layout.payloadMask();
        this.tagBits = (long) tag << HandleLayout.TAG_SHIFT;
        this.maxGeneration = layout.maxGeneration();
        this.maxSlot = Math.min(layout.maxIndex(), maxCapacity);
    }

    // ---------------------------------------------------------------------------------------
    // Handles

    long handleOf(int slot, int generation) {
        return tagBits | ((long) generation << indexBits) | slot;
    }

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

    /**
     * Resolves a handle to its slot index.
     *
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws IllegalStateException if the table is closed
     */
    private int slotOf(long handle) {
        int slot = find(handle);
        if (slot < 0) {
            throw rejection(handle);
        }
        return slot;
    }

    @Override
    public boolean contains(long handle) {
        return find(handle) >= 0;
    }

    /** Explains why {@code handle} failed {@link #slotOf}; the slow path. */
    private RuntimeException rejection(long handle) {
        if (closed) {
            return closedException();
        }
        String text = format(handle);
        if (handle == Handles.NULL) {
            return invalid(handle, InvalidHandleException.Reason.NULL, "null handle passed to table '" + name() + "'");
        }
        int handleTag = layout.tag(handle);
        if (handleTag != tag) {
            String owner = dev.bulkdata.storage.internal.TagRegistry.nameOf(handleTag);
            if (owner != null) {
                return invalid(handle, InvalidHandleException.Reason.FOREIGN, "handle " + Handles.format(handle)
                        + " belongs to table '" + owner + "' (tag " + handleTag + "), not to table '" + name()
                        + "' (tag " + tag + ")");
            }
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text + " has tag " + handleTag
                    + ", but table '" + name() + "' has tag " + tag + " and no open table has tag " + handleTag);
        }
        long index = layout.index(handle);
        int generation = layout.generation(handle);
        if (layout.hasStrayBits(handle)) {
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle 0x" + Long.toHexString(handle)
                    + " (slot " + index + ", generation " + generation + ") has bits set outside " + layout
                    + " of table '" + name() + "'; no table made it");
        }
        if (index == 0) {
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text
                    + " names slot 0, the free-list header of table '" + name() + "', which never holds a record");
        }
        if (index >= limit) {
            String opened = limit <= 1 ? "has not handed out any slot yet" : "has opened only slots 1.." + (limit - 1);
            return invalid(handle, InvalidHandleException.Reason.OUT_OF_RANGE, "handle " + text + " names slot "
                    + index + " (generation " + generation + "), but table '" + name() + "' " + opened);
        }
        int slot = (int) index;
        int meta = blocks[slot >>> shift].meta[slot & mask];
        int current = Block.generation(meta);
        String state = (meta & Block.RETIRED) != 0 ? "retired" : (meta & Block.LIVE) != 0 ? "live" : "free";
        String where = " (table '" + name() + "', slot " + slot + "): handle generation " + generation
                + ", slot generation " + current + ", slot is " + state;
        if (generation < current || (generation == current && (meta & Block.RETIRED) != 0)) {
            return invalid(handle, InvalidHandleException.Reason.STALE, "stale handle " + text + where
                    + "; its record was removed");
        }
        return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text + where
                + "; this table never handed it out");
    }

    private InvalidHandleException invalid(long handle, InvalidHandleException.Reason reason, String message) {
        return new InvalidHandleException(name(), handle, reason, message);
    }

    // ---------------------------------------------------------------------------------------
    // Slots and blocks

    private Block block(int slot) {
        return blocks[slot >>> shift];
    }

    boolean hasHeader() {
        return blockCount > 0;
    }

    int link(int slot) {
        return schema.link().get(blocks[slot >>> shift].data, slot & mask);
    }

    void setLink(int slot, int next) {
        schema.link().set(blocks[slot >>> shift].data, slot & mask, next);
    }

    /** Zeroes every stored byte of {@code slot}, its link word included. */
    void wipe(int slot) {
        schema.wipe(blocks[slot >>> shift].data, slot & mask);
    }

    /** Whether {@code slot} is an opened, non-header slot that is neither live nor retired. */
    boolean isFreeSlot(int slot) {
        if (slot <= 0 || slot >= limit) {
            return false;
        }
        int meta = block(slot).meta[slot & mask];
        return (meta & (Block.LIVE | Block.RETIRED)) == 0;
    }

    /** Slots never opened that this table may still open. */
    private long freshSlots() {
        return limit == 0 ? maxSlot : (long) maxSlot - limit + 1;
    }

    /** Allocates blocks until slot {@code slot} exists; all or nothing for the records. */
    private void ensureBlocksFor(long slot) {
        int needed = (int) (slot >>> shift) + 1;
        while (blockCount < needed) {
            if (blockCount == blocks.length) {
                blocks = Arrays.copyOf(blocks, Math.max(INITIAL_DIRECTORY, blocks.length * 2));
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
            blockCount++;
        }
    }

    /** Opens the next never-used slot; the caller has checked that one is left. */
    private int openSlot() {
        if (limit == 0) {
            ensureBlocksFor(1);
            limit = 1;
        } else {
            ensureBlocksFor(limit);
        }
        return limit++;
    }

    private CapacityExceededException full(long requested) {
        return new CapacityExceededException("table '" + name() + "' is full: " + requested
                + " record(s) requested, room for " + (freeList.length() + freshSlots()) + "; size=" + size
                + ", holes=" + freeList.length() + ", retired=" + retired + ", maxSlot=" + maxSlot
                + " (" + layout + ")");
    }

    /** Makes a free slot live and returns its handle. */
    private long activate(int slot) {
        Block b = block(slot);
        int s = slot & mask;
        b.markLive(s);
        size++;
        return handleOf(slot, Block.generation(b.meta[s]));
    }

    /**
     * Turns a slot whose live bit is already clear into a hole: wipes it, advances its
     * generation, and frees or retires it.
     */
    private void release(int slot) {
        Block b = block(slot);
        int s = slot & mask;
        schema.wipe(b.data, s);
        size--;
        if (advanceGeneration(b, s)) {
            freeList.push(slot);
        }
    }

    /**
     * Moves a dead slot to its next generation, so that every handle to its last record is
     * stale. A slot already at the layout's last generation is retired instead: it keeps that
     * generation, is marked {@link Block#RETIRED} and is never handed out again.
     *
     * @return whether the slot may be reused (false if it was retired)
     */
    private boolean advanceGeneration(Block b, int s) {
        int generation = Block.generation(b.meta[s]);
        if (generation == maxGeneration) {
            b.meta[s] = Block.RETIRED | (generation << Block.GENERATION_SHIFT);
            retired++;
            return false;
        }
        b.meta[s] = (generation + 1) << Block.GENERATION_SHIFT;
        return true;
    }

    // ---------------------------------------------------------------------------------------
    // Structure

    @Override
    public long add() {
        ensureMutable("add to");
        int slot = freeList.pop();
        if (slot == 0) {
            if (freshSlots() <= 0) {
                throw full(1);
            }
            slot = openSlot();
        }
        return activate(slot);
    }

    @Override
    public void addAll(long[] handlesOut, int from, int to) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        ensureMutable("add to");
        int count = to - from;
        long fromHoles = Math.min(count, freeList.length());
        long fresh = count - fromHoles;
        if (fresh > freshSlots()) {
            throw full(count);
        }
        if (fresh > 0) {
            ensureBlocksFor((limit == 0 ? 1 : limit) + fresh - 1);
        }
        for (int i = from; i < to; i++) {
            int slot = freeList.pop();
            handlesOut[i] = activate(slot != 0 ? slot : openSlot());
        }
    }

    @Override
    public void remove(long handle) {
        ensureMutable("remove from");
        int slot = slotOf(handle);
        block(slot).markDead(slot & mask);
        release(slot);
    }

    @Override
    public void removeAll(long[] handles, int from, int to) {
        Objects.checkFromToIndex(from, to, handles.length);
        ensureMutable("remove from");
        // Phase 1: validate every handle, clearing live bits as we go so that a handle given
        // twice fails the second time; on failure restore the bits and report.
        for (int i = from; i < to; i++) {
            int slot;
            try {
                slot = slotOf(handles[i]);
            } catch (InvalidHandleException e) {
                for (int j = from; j < i; j++) {
                    int done = (int) (handles[j] & indexMask);
                    block(done).markLive(done & mask);
                }
                if (find(handles[i]) >= 0) {
                    // Valid once the earlier marks are undone: it repeats an earlier handle, and
                    // removing a record twice is using a stale handle the second time.
                    throw new InvalidHandleException(name(), handles[i], InvalidHandleException.Reason.STALE,
                            "handles[" + i + "]: handle " + format(handles[i]) + " appears twice in the batch;"
                                    + " the second removal would use a stale handle; nothing was removed");
                }
                throw new InvalidHandleException(e.table(), e.handle(), e.reason(),
                        "handles[" + i + "]: " + e.getMessage() + "; nothing was removed");
            }
            block(slot).markDead(slot & mask);
        }
        // Phase 2: every slot is valid and distinct.
        for (int i = from; i < to; i++) {
            release((int) (handles[i] & indexMask));
        }
    }

    @Override
    public void clear() {
        ensureMutable("clear");
        for (int i = 0; i < blockCount; i++) {
            Block b = blocks[i];
            for (int w = 0; w < b.live.length; w++) {
                long bits = b.live[w];
                while (bits != 0) {
                    int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    advanceGeneration(b, s);
                }
                b.live[w] = 0;
            }
            b.liveCount = 0;
            b.data.fill((byte) 0);
        }
        size = 0;
        freeList.reset();
        for (int slot = 1; slot < limit; slot++) {
            if ((block(slot).meta[slot & mask] & Block.RETIRED) == 0) {
                freeList.append(slot);
            }
        }
    }

    @Override
    void onClose() {
        limit = 0;
        for (int i = 0; i < blockCount; i++) {
            Arrays.fill(blocks[i].live, 0L);
            blocks[i].liveCount = 0;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Queries and iteration

    @Override
    public ReuseOrder reuseOrder() {
        return reuseOrder;
    }

    @Override
    public int size() {
        ensureOpen();
        return size;
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

    /** The free list from head to tail. O(holes). */
    int[] freeSlots() {
        int[] slots = new int[freeList.length()];
        int slot = slots.length == 0 ? 0 : link(0);
        for (int i = 0; i < slots.length; i++) {
            slots[i] = slot;
            slot = link(slot);
        }
        return slots;
    }

    /**
     * Checks every invariant of the blocks, the free list and the counters. O(capacity).
     *
     * @throws AssertionError naming the first broken invariant
     */
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
        check(live == size, "size " + size + " but " + live + " live slots");
        check(retiredSlots == retired, "retired " + retired + " but " + retiredSlots + " retired slots");
        int[] free = freeSlots();
        java.util.BitSet seen = new java.util.BitSet();
        for (int slot : free) {
            check(isFreeSlot(slot), "free list holds slot " + slot + ", which is not free");
            check(!seen.get(slot), "free list holds slot " + slot + " twice");
            seen.set(slot);
        }
        check(free.length == 0 || link(free[free.length - 1]) == 0, "free list does not return to the header");
        int opened = Math.max(0, limit - 1);
        check(free.length + live + retiredSlots == opened, "holes " + free.length + " + live " + live
                + " + retired " + retiredSlots + " != opened slots " + opened);
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

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Fields by handle

    @Override
    public byte get(long handle, ByteField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public short get(long handle, ShortField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public char get(long handle, CharField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public int get(long handle, IntField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public long get(long handle, LongField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public float get(long handle, FloatField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public double get(long handle, DoubleField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public boolean get(long handle, BooleanField field) {
        schema.check(field);
        int slot = slotOf(handle);
        return field.get(blocks[slot >>> shift].data, slot & mask);
    }

    @Override
    public void set(long handle, ByteField field, byte value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, ShortField field, short value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, CharField field, char value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, IntField field, int value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, LongField field, long value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, FloatField field, float value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, DoubleField field, double value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }

    @Override
    public void set(long handle, BooleanField field, boolean value) {
        schema.check(field);
        int slot = slotOf(handle);
        field.set(blocks[slot >>> shift].data, slot & mask, value);
    }
}
