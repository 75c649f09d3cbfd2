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
final class Block implements Chunk {
    static final int LIVE = 1;
    static final int RETIRED = 1 << 31;
    static final int GENERATION_SHIFT = 1;
    /** Generation bits of a meta word once the live and retired bits are shifted out. */
    static final int GENERATION_MASK = (1 << HandleLayout.MAX_GENERATION_BITS) - 1;

    final StableTable table;
    final MemorySegment data;
    final int[] meta;
    final long[] live;
    /** This block's number: its slots are {@code index * slotsPerBlock + s}. */
    final int index;
    int liveCount;
    /** Column views, made on first request. Racy but benign: views are interchangeable. */
    private MemorySegment[] columns;

    Block(StableTable table, MemorySegment data, int index) {
        int slots = table.schema.slotsPerBlock();
        this.table = table;
        this.data = data;
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

    /** Checks that {@code slot} is in this block and live, returning it. */
    private int live(int slot) {
        Objects.checkIndex(slot, meta.length);
        if ((live[slot >>> 6] & (1L << slot)) == 0) {
            throw hole(slot);
        }
        return slot;
    }

    private RuntimeException hole(int slot) {
        if (table.closed) {
            return table.closedException();
        }
        return new IllegalArgumentException("slot " + slot + " of chunk " + index + " of table '" + table.name()
                + "' is a hole (no live record); visit live slots with nextLive() or liveBits()");
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public int slotCount() {
        return meta.length;
    }

    @Override
    public int liveCount() {
        table.ensureOpen();
        return liveCount;
    }

    @Override
    public boolean isLive(int slot) {
        table.ensureOpen();
        return isLiveUnchecked(Objects.checkIndex(slot, meta.length));
    }

    @Override
    public int nextLive(int from) {
        table.ensureOpen();
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
        return live.length;
    }

    @Override
    public long liveBits(int word) {
        table.ensureOpen();
        return live[Objects.checkIndex(word, live.length)];
    }

    @Override
    public long handle(int slot) {
        live(slot);
        return table.handleOf(index * meta.length + slot, generation(meta[slot]));
    }

    @Override
    public MemorySegment column(Field field) {
        table.ensureOpen();
        table.schema.check(field);
        if (table.schema.layout() != Layout.SOA) {
            throw new IllegalStateException("table '" + table.name() + "' uses the " + table.schema.layout()
                    + " layout, which has no columns; use records() and field.blockOffset()/slotStride()");
        }
        MemorySegment[] views = columns;
        if (views == null) {
            views = new MemorySegment[table.schema.fields().size()];
            columns = views;
        }
        MemorySegment view = views[field.index()];
        if (view == null) {
            view = data.asSlice(field.base, (long) meta.length * field.type().byteSize());
            views[field.index()] = view;
        }
        return view;
    }

    @Override
    public MemorySegment records() {
        table.ensureOpen();
        return data;
    }

    @Override
    public byte get(int slot, ByteField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public short get(int slot, ShortField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public char get(int slot, CharField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public int get(int slot, IntField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public long get(int slot, LongField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public float get(int slot, FloatField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public double get(int slot, DoubleField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public boolean get(int slot, BooleanField field) {
        table.schema.check(field);
        return field.get(data, live(slot));
    }

    @Override
    public void set(int slot, ByteField field, byte value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, ShortField field, short value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, CharField field, char value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, IntField field, int value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, LongField field, long value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, FloatField field, float value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, DoubleField field, double value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public void set(int slot, BooleanField field, boolean value) {
        table.schema.check(field);
        field.set(data, live(slot), value);
    }

    @Override
    public String toString() {
        return "Chunk[" + table.name() + " #" + index + ", live=" + liveCount + "/" + meta.length + "]";
    }
}
