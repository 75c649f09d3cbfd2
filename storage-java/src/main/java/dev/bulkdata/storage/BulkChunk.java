package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotMap;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The chunk of one block of a {@link BulkTableImpl}: the block's native segment of record bytes plus, beside it on the
 * heap, the live bitmap and the live count. One per block, made with the block, so visiting chunks allocates nothing.
 *
 * <pre>
 *  data (native, Schema.blockBytes() &lt;= 16 KiB, 64-byte aligned): record bytes only
 *  live (long per 64 slots): bit s%64 of word s/64 = the live bit of slot s
 * </pre>
 *
 * <p>Invariant: bit {@code s} of {@code live} equals the live bit of the slot's meta word in the table's
 * {@link SlotMap}, and {@code liveCount} is the number of set bits. Memory per slot beside the record: 1 bit (the
 * 4-byte meta word is in the slot map). Threads: structure (live, liveCount) changes only on the table's writer
 * thread; field reads and writes of distinct slots may run on many threads.
 */
final class BulkChunk extends SlotChunk {
    final BulkTableImpl table;
    final long[] live;
    int liveCount;

    /** The chunk of block {@code index}: its slots are {@code index * slotsPerBlock + s}. */
    BulkChunk(BulkTableImpl table, MemorySegment data, int index) {
        super(table.schema, data, table.schema.slotsPerBlock(), table.versions, index);
        this.table = table;
        this.live = new long[words()];
    }

    /** {@return the number of bitmap words: {@code ceil(slots / 64)}} */
    private int words() {
        return (slots + Long.SIZE - 1) >>> 6;
    }

    /** {@return the last bitmap word of a full chunk} */
    private long lastFull() {
        return -1L >>> (-slots & (Long.SIZE - 1));
    }

    // Whether every slot is live: then liveBits and nextLive read no bitmap word (often a cache miss in a pass over
    // many chunks). position() keeps its bitmap test: a live-count branch there was slower (benchmarks/NOTES.md).
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

    /** Marks slots {@code [from, from + count)}, all dead, live: whole words at a time. */
    void markLiveRun(int from, int count) {
        int end = from + count;
        for (int s = from; s < end; ) {
            int word = s >>> 6;
            int upTo = Math.min(end, (word + 1) << 6);
            long bits = (-1L >>> (Long.SIZE - (upTo - s))) << s;
            live[word] |= bits;
            s = upTo;
        }
        liveCount += count;
    }

    void markDead(int slot) {
        live[slot >>> 6] &= ~(1L << slot);
        liveCount--;
    }

    // A clear: every slot dead, the live count 0. Returns a bit per bitmap word (the first 32) that held a live slot.
    int clearAll() {
        int held = 0;
        for (int w = 0; w < words(); w++) {
            if (live[w] != 0) {
                held |= 1 << w;         // past word 31 this sets bit w & 31 too: harmless, see BulkTableImpl.cleanGroups
                live[w] = 0;
            }
        }
        liveCount = 0;
        return held;
    }

    @Override
    String tableName() {
        return table.name();
    }

    @Override
    void writing() {
        table.dirtyBlock(index);
    }

    @Override
    void checkAccess() {
        table.checkChunkAccess();
    }

    // The live slots in runs: a chunk without holes is one counted loop over every slot, out of which the JIT hoists
    // the visitor's loop-invariant checks; otherwise each word's set bits.
    @Override
    void forEachLive(RecordVisitor visitor) {
        if (full()) {
            for (int s = 0; s < slots; s++) {
                visitor.visit(this, s);
            }
            return;
        }
        long[] live = this.live;
        for (int w = 0; w < live.length; w++) {
            long bits = live[w];
            if (bits == -1L) {      // no hole: a counted loop
                for (int s = w << 6, end = s + 64; s < end; s++) {
                    visitor.visit(this, s);
                }
                continue;
            }
            while (bits != 0) {
                int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                visitor.visit(this, s);
            }
        }
    }

    /** Checks that the chunk may be used and {@code slot} is in this block and live, returning it. */
    @Override
    int position(int slot) {
        table.checkChunkAccess();
        // One compare: a negative slot shifts to a huge word index, and bits past slotCount() are never set.
        int word = slot >>> 6;
        if (word >= live.length || (live[word] & (1L << slot)) == 0) {
            throw hole(slot);
        }
        return slot;
    }

    // Slow path of position(): outside the chunk, a hole, or the table closed by another thread (close clears bits).
    private RuntimeException hole(int slot) {
        table.recheckChunkAccess();
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
        return isLiveUnchecked(Objects.checkIndex(slot, slots));
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
            if (++word == words()) {
                return -1;
            }
            bits = live[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    @Override
    public int nextHole(int from) {
        table.checkChunkAccess();
        if (from >= slots) {
            return slots;
        }
        int word = Objects.checkIndex(from, slots) >>> 6;
        if (full()) {
            return slots;
        }
        long holes = ~live[word] & (-1L << from);
        while (holes == 0) {
            if (++word == live.length) {
                return slots;
            }
            holes = ~live[word];
        }
        // The last word's bits past slotCount() are never live, so they read as holes: cap at slots.
        return Math.min(slots, (word << 6) + Long.numberOfTrailingZeros(holes));
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
        return table.slots.handleOf(index * slots + slot);
    }

    @Override
    public void removeLater(int slot) {
        position(slot);
        table.queueRemoval(index * slots + slot);
    }

    @Override
    public void addLater(java.util.function.LongConsumer init) {
        table.checkChunkAccess();
        table.queueAdd(index, init);
    }

    @Override
    public String toString() {
        return "Chunk[" + table.name() + " #" + index + ", live=" + liveCount + "/" + slots + "]";
    }
}
