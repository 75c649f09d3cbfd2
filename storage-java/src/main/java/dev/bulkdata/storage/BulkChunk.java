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
    /** {@code live.length}, kept here so that a full chunk's iteration never reads the array. */
    private final int words;
    /** The last bitmap word of a full chunk. */
    private final long lastFull;
    int liveCount;

    /** The chunk of block {@code index}: its slots are {@code index * slotsPerBlock + s}. */
    BulkChunk(BulkTableImpl table, MemorySegment data, int index) {
        super(table.schema, data, table.schema.slotsPerBlock(), table.versions, index);
        this.table = table;
        this.words = (slots + Long.SIZE - 1) >>> 6;
        this.live = new long[words];
        this.lastFull = -1L >>> (words * Long.SIZE - slots);
    }

    /**
     * Whether every slot is live: then the accessors and the iteration read no bitmap word (the
     * bitmap is a heap array of its own, whose line is often a cache miss of its own in a pass
     * over many chunks) and a pass is one counted loop over the block.
     */
    boolean full() {
        return liveCount == slots;
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
    }

    @Override
    String tableName() {
        return table.name();
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
            if (Integer.compareUnsigned(slot, slots) >= 0) {
                throw hole(slot);
            }
            return slot;
        }
        // One compare covers the range: a negative slot shifts to a huge word index, and the
        // bits of slots past slotCount() are never set.
        int word = slot >>> 6;
        if (word >= words || (live[word] & (1L << slot)) == 0) {
            throw hole(slot);
        }
        return slot;
    }

    /** The slow path of {@link #position}: out of the chunk, or a hole. */
    private RuntimeException hole(int slot) {
        Objects.checkIndex(slot, slots);
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
        Objects.checkIndex(slot, slots);
        return full() || isLiveUnchecked(slot);
    }

    @Override
    public int nextLive(int from) {
        table.checkChunkAccess();
        if (from >= slots) {
            return -1;
        }
        if (full()) {
            return Objects.checkIndex(from, slots);
        }
        int word = Objects.checkIndex(from, slots) >>> 6;
        long bits = live[word] & (-1L << from);
        while (bits == 0) {
            if (++word == words) {
                return -1;
            }
            bits = live[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    @Override
    public int liveWordCount() {
        table.checkChunkAccess();
        return words;
    }

    @Override
    public long liveBits(int word) {
        table.checkChunkAccess();
        Objects.checkIndex(word, words);
        if (full()) {
            return word == words - 1 ? lastFull : -1L;
        }
        return live[word];
    }

    @Override
    public long handle(int slot) {
        position(slot);
        return table.index.handleOf(index * slots + slot);
    }

    @Override
    public String toString() {
        return "Chunk[" + table.name() + " #" + index + ", live=" + liveCount + "/" + slots + "]";
    }
}
