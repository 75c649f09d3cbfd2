package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.format.MetaWords;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The {@link BulkTable}: a record lives in its slot, for good; slot {@code i} is position {@code i & recordMask} of
 * block {@code i >>> recordShift}, a {@link BulkChunk} per block (the chunk directory doubles, the only thing ever
 * copied; a block set aside by cancelAdd is kept as a spare past {@code blockCount}).
 *
 * <p>A free slot's saved link lives in its own dead record ({@link RecordLinks}). Removing and clearing write no
 * record byte: a dead slot keeps its bytes until an add zeroes them ({@link #cleanGroups}). Invariants: a slot's live
 * bit equals its meta word's; every slot never opened (at or past {@code limit}) is all zero.
 */
sealed class BulkTableImpl extends AbstractTable implements BulkTable permits MappedBulkTableImpl {
    private static final BulkChunk[] NO_CHUNKS = new BulkChunk[0];
    private static final int INITIAL_DIRECTORY = 8;

    private final ReuseOrder reuseOrder;
    final int slotsPerBlock;

    BulkChunk[] chunks = NO_CHUNKS;
    /** {@link #blockCount} before the last {@link #reserveRecords}, for {@link #unreserve}. */
    private int blocksBefore;
    // Per block, bit g: every dead slot of 64-slot group g is all zero (ARCHITECTURE.md, "Dead records' bytes"). Only
    // groups below 32 are tracked; a stray clear is safe. A view's plain clear in a pass is seen after the pass's join.
    int[] cleanGroups = new int[0];

    /** A table under a leased tag: automatic, fixed, or restored from a snapshot. */
    BulkTableImpl(Schema schema, ReuseOrder reuseOrder, HandleLayout handles, int maxCapacity, TagLease lease) {
        super(schema, handles, reuseOrder, maxCapacity, lease, table -> ((BulkTableImpl) table).new RecordLinks());
        this.reuseOrder = reuseOrder;
        this.slotsPerBlock = schema.slotsPerBlock();
        arena.plan(((long) slots.maxSlot >>> recordShift) + 1);
    }

    /** Links in the records' own link words. */
    private final class RecordLinks implements SlotMap.Links {
        @Override
        public int link(int slot) {
            return FieldAccess.get(SchemaAccess.link(schema), segments[slot >>> recordShift], slot & recordMask);
        }

        @Override
        public void setLink(int slot, int next) {
            dirty(slot);
            if (mapped != null) {
                mapped.touched(slot >>> recordShift); // not a change the versions see: its checksum is due
            }
            FieldAccess.set(SchemaAccess.link(schema), segments[slot >>> recordShift], slot & recordMask, next);
        }
    }

    // ---- Records

    @Override
    int recordOf(long handle) {
        int slot = slots.find(handle);
        if (slot < 0) {
            throw rejection(handle);
        }
        return slot;
    }

    @Override
    void initAt(int slot, int i, RecordInit init) {
        init.init(chunk(slot), slot & recordMask, i);
    }

    private BulkChunk chunk(int slot) {
        return chunks[slot >>> recordShift];
    }

    /** Allocates blocks until slot {@code highestSlot} has one; all or nothing for the records. */
    @Override
    void reserveRecords(int count, long highestSlot) {
        int needed = (int) (highestSlot >>> recordShift) + 1;
        if (needed > blockCount) {
            // Count the blocks to allocate against the budgets first: over budget, nothing changes.
            int fresh = 0;
            for (int b = blockCount; b < needed; b++) {
                if (b >= chunks.length || chunks[b] == null) {
                    fresh++;
                }
            }
            arena.prepay(schema, name(), fresh);
        }
        blocksBefore = blockCount;
        versions.ensureChunks(needed);
        while (blockCount < needed) {
            if (blockCount == chunks.length) {
                chunks = Arrays.copyOf(chunks, Math.max(INITIAL_DIRECTORY, chunks.length * 2));
                segments = Arrays.copyOf(segments, chunks.length);
                cleanGroups = Arrays.copyOf(cleanGroups, chunks.length);
            }
            cleanGroups[blockCount] = 0;
            if (chunks[blockCount] != null) {
                // A spare set aside by trimBlocks: zeroed, its bitmap empty.
                arena.takeBack(schema.blockBytes());
            } else {
                MemorySegment data = arena.allocateBlock(schema, name(), blockCount);
                chunks[blockCount] = new BulkChunk(this, data, blockCount);
                segments[blockCount] = data;
            }
            blockCount++;
        }
        if (region == null) {
            adoptRegion(arena);
        }
    }

    /** Makes a taken slot live, its record zeroed if the slot was used before, and returns its handle. */
    @Override
    long activate(int slot) {
        BulkChunk c = chunk(slot);
        if (slots.reused) {
            int s = slot & recordMask;
            zeroForReuse(c, slot >>> recordShift, s >>> 6, 1L << s);
        }
        c.markLive(slot & recordMask);
        versions.stampAll(slot >>> recordShift);
        size++;
        return slots.activate(slot);
    }

    /** A cleared table's slots from 1 up, then fresh slots (ARCHITECTURE.md, "Batch adds"). */
    @Override
    int addRun(long[] handlesOut, int from, int to) {
        if (to - from < 2) {
            return from;
        }
        int at = from;
        if (size == 0 && slots.holes() != 0) {
            int reopened = slots.reopenRun(to - at, handlesOut, at);
            liveRun(1, reopened, true);
            at += reopened;
        }
        if (at < to && slots.holes() == 0) {
            int count = to - at;
            liveRun(slots.openRun(count, handlesOut, at), count, false);
            at = to;
        }
        return at;
    }

    /** SWEEP, blocks of 64 slots or more: {@link #activate} for a free-bits word's slots at once. */
    @Override
    int addWords(long[] handlesOut, int from, int to) {
        SlotMap m = slots;
        int at = from;
        if (!m.sweepOrder || slotsPerBlock < Long.SIZE) {
            return at;
        }
        while (at < to && m.freeBits.count > 0 && m.settled == m.limit) {
            long take = m.takeWord(to - at);
            if (take == 0) {
                break;
            }
            int base = (m.cursor - 1) & -Long.SIZE;
            int block = base >>> recordShift;
            int group = (base & recordMask) >>> 6;
            BulkChunk c = chunks[block];
            zeroForReuse(c, block, group, take);
            int n = Long.bitCount(take);
            c.live[group] |= take;
            c.liveCount += n;
            versions.stampAll(block);
            size += n;
            for (long rest = take; rest != 0; rest &= rest - 1) {
                handlesOut[at++] = m.activate(base | Long.numberOfTrailingZeros(rest));
            }
        }
        return at;
    }

    /** Counts in {@code count} slots from {@code first} that the slot map made live; zeroes their records if {@code reused}. */
    private void liveRun(int first, int count, boolean reused) {
        for (int slot = first, end = first + count; slot < end; ) {
            int block = slot >>> recordShift;
            int s = slot & recordMask;
            int n = Math.min(end - slot, slotsPerBlock - s);
            if (reused) {
                SchemaAccess.wipeRun(schema, segments[block], s, n);
            }
            chunks[block].markLiveRun(s, n);
            versions.stampAll(block);
            slot += n;
        }
        size += count;
    }

    // Zeroes the reused slots {@code take} of one 64-slot group: nothing in a clean group, the whole group if it holds
    // no record, else each record.
    private void zeroForReuse(BulkChunk c, int block, int group, long take) {
        if (group < Integer.SIZE) {
            int clean = cleanGroups[block];
            int bit = 1 << group;
            if ((clean & bit) != 0) {
                return;
            }
            if (c.live[group] == 0) {
                int from = group << 6;
                int opened = Math.min(slotsPerBlock, slots.limit - (block << recordShift));
                SchemaAccess.wipeRun(schema, segments[block], from, Math.min(Long.SIZE, opened - from));
                cleanGroups[block] = clean | bit;
                return;
            }
        }
        for (long rest = take; rest != 0; rest &= rest - 1) {
            SchemaAccess.wipe(schema, segments[block], (group << 6) | Long.numberOfTrailingZeros(rest));
        }
    }

    /** The bytes of dead {@code slot} may change (a removal, a link): its group is no longer clean. */
    private void dirty(int slot) {
        cleanGroups[slot >>> recordShift] &= ~(1 << ((slot & recordMask) >>> 6));
    }

    // A writable view: no group of the block is clean. Stores only if a mark is set (parallel views share the line).
    void dirtyBlock(int block) {
        if (cleanGroups[block] != 0) {
            cleanGroups[block] = 0;
        }
    }

    /** Clears the slot's live bit and counts it out; its bytes stay until the slot is reused. */
    @Override
    void dropRecord(int slot) {
        chunk(slot).markDead(slot & recordMask);
        dirty(slot);
        versions.stampStructure(slot >>> recordShift);
        size--;
    }

    /**
     * A slot given back to the never-opened slots must be all zero again; blocks past those before the last reservation
     * stay in the directory as spares, reused by {@link #reserveRecords}.
     */
    @Override
    void unreserve(int slot) {
        if (slot >= slots.limit) {
            SchemaAccess.wipe(schema, segments[slot >>> recordShift], slot & recordMask);
        }
        while (blockCount > blocksBefore) {
            blockCount--;
            arena.setAside(schema.blockBytes());
        }
    }

    /** The slot map's pass (none for a reset), then a block's live bits cleared per block that held records. */
    @Override
    void clearRecords(boolean reset) {
        if (reset) {
            slots.resetAll();
        } else {
            slots.releaseAllLive();
        }
        for (int i = 0; i < blockCount; i++) {
            BulkChunk c = chunks[i];
            if (c.liveCount > 0) {
                versions.stampStructure(i);
                cleanGroups[i] &= ~c.clearAll();
            }
        }
        size = 0;
    }

    /**
     * {@inheritDoc} The chunk directory and clean marks keep their arrays, so a thread racing a {@code close()} (a
     * misuse) meets the closed table's {@link IllegalStateException} at its next check, not an index out of bounds.
     */
    @Override
    void onClose() {
        // Null-safe: close must free the memory even of a table a bug left inconsistent.
        for (int i = 0; i < Math.min(blockCount, chunks.length); i++) {
            if (chunks[i] != null) {
                Arrays.fill(chunks[i].live, 0L);
                chunks[i].liveCount = 0;
            }
        }
        blockCount = 0;
    }

    // ---- Queries and iteration

    @Override
    public ReuseOrder reuseOrder() {
        return reuseOrder;
    }

    @Override
    public int capacity() {
        ensureOpen();
        int limit = slots.limit;
        long opened = Math.min((long) blockCount * slotsPerBlock, (long) slots.maxSlot + 1);
        long inBlocks = limit == 0 ? 0 : opened - limit;
        return (int) (size + slots.holes() + inBlocks);
    }

    @Override
    public TableStats stats() {
        if (closed) {
            return TableStats.closed(name());
        }
        ensureOpen();
        return new TableStats(name(), size, slots.holes(), slots.retired, capacity(), blockCount, arena.bytes());
    }

    @Override
    int chunkCount() {
        ensureOpen();
        return blockCount;
    }

    @Override
    BulkChunk chunkAt(int i) {
        ensureOpen();
        return chunks[i];
    }

    // ---- Snapshots (the saved state, StoredTables)

    /** Allocates block {@code b} of a table being restored (blocks in order) and returns it to be filled. */
    MemorySegment restoreBlock(int b) {
        reserveRecords(0, (long) b << recordShift);
        return segments[b];
    }

    /**
     * Sets the live bits and the size of a restored table from its live words: a bitmap word per
     * {@link MetaWords#liveStep} slots from slot 0 ({@link MetaWords}).
     */
    void restoreLive(long[] words) {
        int step = MetaWords.liveStep(slotsPerBlock);
        for (int w = 0; w < words.length; w++) {
            long bits = words[w];
            if (bits != 0) {
                int first = w * step;
                BulkChunk c = chunk(first);
                c.live[(first & recordMask) >>> 6] = bits;
                int n = Long.bitCount(bits);
                c.liveCount += n;
                size += n;
            }
        }
    }
}
