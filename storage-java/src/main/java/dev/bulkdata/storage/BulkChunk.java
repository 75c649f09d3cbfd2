package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The chunk of one block of a {@link BulkTableImpl}: the block's native segment of record
 * bytes plus, beside it on the heap, the live bitmap and the live count. One per block, made
 * with the block, so visiting chunks allocates nothing.
 *
 * <pre>
 *  data (native, Schema.blockBytes() &lt;= 16 KiB, 64-byte aligned): record bytes only
 *  live (long per 64 slots): bit s%64 of word s/64 = the live bit of slot s
 * </pre>
 *
 * <p>Invariant: bit {@code s} of {@code live} equals the live bit of the slot's meta word in
 * the table's {@link SlotIndex}, and {@code liveCount} is the number of set bits. Memory per
 * slot beside the record: 1 bit (the 4-byte meta word is in the index).
 *
 * <p>Threads: structure (live, liveCount) changes only on the table's writer thread. Field
 * reads and writes of distinct slots may run on many threads.
 */
final class BulkChunk extends SlotChunk {
    final BulkTableImpl table;
    final long[] live;
    int liveCount;
    /**
     * Bit {@code g}: every dead slot of group {@code g} (the 64 slots of bitmap word {@code g})
     * is all zero, so an add into it writes no byte. Set when an add into an empty group zeroes
     * the group whole; cleared by a removal in it, a free-list link written into it, or a
     * writable view of the block. An int, so that a chunk object stays at 48 bytes: groups
     * past the 32nd (blocks of more than 2,048 slots, records under 8 bytes) are never clean.
     */
    int cleanGroups;

    /** The chunk of block {@code index}: its slots are {@code index * slotsPerBlock + s}. */
    BulkChunk(BulkTableImpl table, MemorySegment data, int index) {
        super(table.schema, data, table.versions, index);
        this.table = table;
        this.live = new long[words()];
    }

    /** {@return the number of bitmap words: {@code ceil(slots() / 64)}} */
    private int words() {
        return (slots() + Long.SIZE - 1) >>> 6;
    }

    /** {@return the last bitmap word of a full chunk} */
    private long lastFull() {
        return -1L >>> (-slots() & (Long.SIZE - 1));
    }

    /**
     * Whether every slot is live: then the accessors and {@code liveBits}/{@code nextLive} read
     * no bitmap word (the bitmap is a heap array of its own, whose line is often a cache miss
     * of its own in a pass over many chunks).
     */
    boolean full() {
        return liveCount == slots();
    }

    boolean isLiveUnchecked(int slot) {
        return (live[slot >>> 6] & (1L << slot)) != 0;
    }

    void markLive(int slot) {
        live[slot >>> 6] |= 1L << slot;
        liveCount++;
    }

    void markDead(int slot) {
        live[slot >>> 6] &= ~(1L << slot);
        liveCount--;
        cleanGroups &= ~(1 << (slot >>> 6));
    }

    /**
     * Readies reused {@code slot} for a new record, all zero: nothing if its group is clean;
     * the whole group up to {@code opened} (the first never-opened slot of this block, past
     * which every record is zero already) if the group holds no record, which makes it clean
     * (an add after a clear or after many removals pays a fill per column per 64 slots instead
     * of a store per field per record); else the one record.
     */
    void wipeForReuse(int slot, int opened) {
        int group = slot >>> 6;
        if (group >= Integer.SIZE) {
            schema.wipe(data, slot);
            return;
        }
        int bit = 1 << group;
        if ((cleanGroups & bit) != 0) {
            return;
        }
        if (live[group] == 0) {
            int from = group << 6;
            schema.wipeRun(data, from, Math.min(Math.min(Long.SIZE, slots() - from), opened - from));
            cleanGroups |= bit;
            return;
        }
        schema.wipe(data, slot);
    }

    /** A clear: every slot dead; the groups that held records are no longer clean. */
    void clearAll() {
        int held = 0;
        for (int w = 0; w < words(); w++) {
            if (live[w] != 0) {
                held |= 1 << w;         // past word 31 this clears bit w & 31 too: harmless
                live[w] = 0;
            }
        }
        cleanGroups &= ~held;
        liveCount = 0;
    }

    /** The bytes of dead {@code slot} may change (a free-list link): its group is no longer clean. */
    void dirty(int slot) {
        cleanGroups &= ~(1 << (slot >>> 6));
    }

    /** Any byte of the block may change (a writable view): no group is clean any more. */
    void dirtyAll() {
        cleanGroups = 0;
    }

    @Override
    String tableName() {
        return table.name();
    }

    @Override
    void writing() {
        dirtyAll();
    }

    @Override
    void checkAccess() {
        table.checkChunkAccess();
    }

    /** Checks that the chunk may be used and {@code slot} is in this block and live, returning it. */
    @Override
    int position(int slot) {
        table.checkChunkAccess();
        if (full()) {
            if (Integer.compareUnsigned(slot, slots()) >= 0) {
                throw hole(slot);
            }
            return slot;
        }
        // One compare covers the range: a negative slot shifts to a huge word index, and the
        // bits of slots past slotCount() are never set.
        int word = slot >>> 6;
        if (word >= words() || (live[word] & (1L << slot)) == 0) {
            throw hole(slot);
        }
        return slot;
    }

    /** The slow path of {@link #position}: out of the chunk, or a hole. */
    private RuntimeException hole(int slot) {
        Objects.checkIndex(slot, slots());
        return new IllegalArgumentException("slot " + slot + " of chunk " + index + " of table '" + table.name()
                + "' is a hole (no live record); visit live slots with nextLive() or liveBits()");
    }

    @Override
    public int index() {
        table.checkChunkAccess();
        return index;
    }

    @Override
    public int liveCount() {
        table.checkChunkAccess();
        return liveCount;
    }

    @Override
    public boolean isLive(int slot) {
        table.checkChunkAccess();
        Objects.checkIndex(slot, slots());
        return full() || isLiveUnchecked(slot);
    }

    @Override
    public int nextLive(int from) {
        table.checkChunkAccess();
        if (from >= slots()) {
            return -1;
        }
        if (full()) {
            return Objects.checkIndex(from, slots());
        }
        int word = Objects.checkIndex(from, slots()) >>> 6;
        long bits = live[word] & (-1L << from);
        while (bits == 0) {
            if (++word == words()) {
                return -1;
            }
            bits = live[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    @Override
    public int liveWordCount() {
        table.checkChunkAccess();
        return words();
    }

    @Override
    public long liveBits(int word) {
        table.checkChunkAccess();
        Objects.checkIndex(word, words());
        if (full()) {
            return word == words() - 1 ? lastFull() : -1L;
        }
        return live[word];
    }

    @Override
    public long handle(int slot) {
        position(slot);
        return table.index.handleOf(index * slots() + slot);
    }

    @Override
    public String toString() {
        return "Chunk[" + table.name() + " #" + index + ", live=" + liveCount + "/" + slots() + "]";
    }
}
