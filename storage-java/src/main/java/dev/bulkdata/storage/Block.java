package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One block of a {@link StableTable}: a native segment of record bytes plus, beside it on the
 * heap, a metadata word per slot and a live bitmap. It is also the {@link Chunk} that iteration
 * hands out, so visiting chunks allocates nothing.
 *
 * <pre>
 *  data (native, Schema.blockBytes() &lt;= 16 KiB, 64-byte aligned): record bytes only
 *  meta (int per slot):
 *   31  30                                   1   0
 *  +---+--------------------------------------+---+
 *  | R |          generation (30 bits)        | L |   L = live, R = retired
 *  +---+--------------------------------------+---+
 *  live (long per 64 slots): bit s%64 of word s/64 = L of slot s
 * </pre>
 *
 * <p>Invariants, for every slot {@code s} of the block:
 * <ul>
 * <li>{@code L(s)} equals bit {@code s} of {@code live}, and {@code liveCount} is the number of
 *     set bits;
 * <li>a live slot's generation is the generation in every handle the table handed out for it
 *     since the last removal; a handle is valid iff {@code meta[s] == generation << 1 | 1};
 * <li>a free slot is wiped: every byte of it is zero except the free-list link word;
 * <li>a retired slot ({@code R} set) is neither live nor in the free list, and never will be.
 * </ul>
 * Memory per slot beside the record: 4 bytes of meta and 1 bit of bitmap.
 *
 * <p>Threads: structure (meta, live, liveCount) changes only on the table's writer thread.
 * Field reads and writes of distinct slots may run on many threads.
 */
final class Block extends SlotChunk {
    static final int LIVE = 1;
    static final int RETIRED = 1 << 31;
    static final int GENERATION_SHIFT = 1;
    /** Generation bits of a meta word once the live and retired bits are shifted out. */
    static final int GENERATION_MASK = (1 << HandleLayout.MAX_GENERATION_BITS) - 1;

    final StableTable table;
    final int[] meta;
    final long[] live;
    /** This block's number: its slots are {@code index * slotsPerBlock + s}. */
    final int index;
    int liveCount;

    Block(StableTable table, MemorySegment data, int index) {
        super(table.schema, data, table.schema.slotsPerBlock());
        this.table = table;
        this.index = index;
        this.meta = new int[slots];
        this.live = new long[(slots + Long.SIZE - 1) >>> 6];
    }

    static int generation(int meta) {
        return (meta >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    boolean isLiveUnchecked(int slot) {
        return (live[slot >>> 6] & (1L << slot)) != 0;
    }

    void markLive(int slot) {
        meta[slot] |= LIVE;
        live[slot >>> 6] |= 1L << slot;
        liveCount++;
    }

    void markDead(int slot) {
        meta[slot] &= ~LIVE;
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
        Objects.checkIndex(slot, meta.length);
        if ((live[slot >>> 6] & (1L << slot)) == 0) {
            throw hole(slot);
        }
        return slot;
    }

    private RuntimeException hole(int slot) {
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
        return isLiveUnchecked(Objects.checkIndex(slot, meta.length));
    }

    @Override
    public int nextLive(int from) {
        table.checkChunkAccess();
        if (from >= meta.length) {
            return -1;
        }
        int word = Objects.checkIndex(from, meta.length) >>> 6;
        long bits = live[word] & (-1L << from);
        while (bits == 0) {
            if (++word == live.length) {
                return -1;
            }
            bits = live[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    @Override
    public int liveWordCount() {
        table.checkChunkAccess();
        return live.length;
    }

    @Override
    public long liveBits(int word) {
        table.checkChunkAccess();
        return live[Objects.checkIndex(word, live.length)];
    }

    @Override
    public long handle(int slot) {
        position(slot);
        return table.handleOf(index * meta.length + slot, generation(meta[slot]));
    }

    @Override
    public String toString() {
        return "Chunk[" + table.name() + " #" + index + ", live=" + liveCount + "/" + meta.length + "]";
    }
}
