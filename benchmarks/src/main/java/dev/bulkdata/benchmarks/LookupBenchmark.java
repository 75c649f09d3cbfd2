package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.kotlin.TypedTable;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

/**
 * Workloads 3 and 4: sum {@code t} through {@code n} live handles in shuffled order (and write
 * it through them: {@code bulkSet}, {@code packedSet}; {@code bulkSetTracked} after a {@code markVersion()}), and {@code n} lookups of removed
 * handles (all misses, via {@code contains}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class LookupBenchmark {

    /** A table, its handles in shuffled order, and handles of removed records. */
    @State(Scope.Benchmark)
    public static class Bulk {
        Table table;
        FloatField t = Subjects.SOA.floatField("t");
        long[] shuffled;
        long[] stale;

        Table make(int n, long[] handles) {
            return Subjects.table(Subjects.SOA, n, handles);
        }

        @Setup(Level.Trial)
        public void setUp(Size size) {
            int n = size.n;
            long[] handles = new long[n];
            table = make(n, handles);
            // Stale handles: remove every record, add as many again (the slots are reused with
            // the next generation, the hardest case for a stale check), set t as before.
            stale = handles.clone();
            table.removeAll(handles);
            table.addAll(handles);
            for (int i = 0; i < n; i++) {
                table.set(handles[i], t, Subjects.t(i));
            }
            shuffled = Subjects.shuffled(handles);
            Subjects.logHugePages(getClass().getSimpleName() + " table of " + n + " records");
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /**
     * The same table after one {@code markVersion()}: from then on every set stamps its chunk's
     * field version (before the first mark a table skips the stamps, see {@code ChangeVersions}).
     */
    @State(Scope.Benchmark)
    public static class Tracked extends Bulk {
        @Override
        @Setup(Level.Trial)
        public void setUp(Size size) {
            super.setUp(size);
            table.markVersion();
        }
    }

    /** The same in AOS: the record's fields share its 32-byte line. */
    @State(Scope.Benchmark)
    public static class BulkAos extends Bulk {
        {
            t = Subjects.AOS.floatField("t");
        }

        @Override
        Table make(int n, long[] handles) {
            return Subjects.table(Subjects.AOS, n, handles);
        }
    }

    /** The same for a packed table. */
    @State(Scope.Benchmark)
    public static class Packed extends Bulk {
        @Override
        Table make(int n, long[] handles) {
            return Subjects.packed(Subjects.SOA, n, handles);
        }
    }

    /** A Kotlin-declared table and its raw handles in shuffled order. */
    @State(Scope.Benchmark)
    public static class Kotlin {
        TypedTable<KParticles> table;
        long[] shuffled;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            long[] handles = new long[size.n];
            table = KotlinWorkloads.open(size.n, handles);
            shuffled = Subjects.shuffled(handles);
            Subjects.logHugePages("Kotlin table of " + size.n + " records");
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** The limit: a {@code float[]} indexed by shuffled ints. */
    @State(Scope.Benchmark)
    public static class Columns {
        float[] t;
        int[] shuffled;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            t = new float[size.n];
            for (int i = 0; i < size.n; i++) {
                t[i] = Subjects.t(i);
            }
            shuffled = Subjects.shuffled(size.n, Subjects.SEED);
        }
    }

    /**
     * The floor of a checked lookup, no library: a handle's slot and generation checked against
     * an {@code int} meta word in pages of 4,096 (as the slot map keeps them), then {@code t}
     * read from a {@code float[]} ({@link #floorArrays}) or from its place in 16 KiB native blocks
     * of 512 32-byte SOA records ({@link #floorBlocks}: a BulkTable's memory layout). The
     * handles are shuffled in the same order as the tables'.
     */
    @State(Scope.Benchmark)
    public static class Floor {
        static final int TAG = 7;
        static final int GENERATION = 3;
        int[][] meta;
        float[] t;
        MemorySegment[] blocks;
        /** The same blocks in one reserved range on huge pages, block b at b * 16 KiB. */
        MemorySegment region;
        /** The meta words in one reserved range on huge pages, slot s at 4 s. */
        MemorySegment metaRegion;
        /** A PackedTable's entries in a reserved range: slot s's meta word at 8 s, its row beside it. */
        MemorySegment entries;
        /**
         * Blocks and meta words interleaved in one reserved range: block b at b * 18 KiB, its
         * 512 slots' meta words in the 2 KiB after it, so slot s's at (s / 512 + 1) * 16 KiB + 4 s.
         */
        MemorySegment interleaved;
        long tOffset;
        long[] shuffled;
        Arena arena;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            int n = size.n;
            meta = new int[(n >>> 12) + 1][4096];
            t = new float[n + 1];
            arena = Arena.ofShared();
            blocks = new MemorySegment[(n >>> 9) + 1];
            tOffset = Subjects.SOA.floatField("t").blockOffset();
            for (int b = 0; b < blocks.length; b++) {
                blocks[b] = arena.allocate(16384, 64);
            }
            region = Reserved.range((long) blocks.length << 14, arena);
            metaRegion = Reserved.range((n + 1L) * 4, arena);
            entries = Reserved.range((n + 1L) * 8, arena);
            interleaved = Reserved.range((long) blocks.length * INTERLEAVED_STRIDE, arena);
            long[] handles = new long[n];
            for (int i = 0; i < n; i++) {
                int slot = i + 1;
                meta[slot >>> 12][slot & 4095] = GENERATION << 1 | 1;
                t[slot] = Subjects.t(i);
                blocks[slot >>> 9].set(ValueLayout.JAVA_FLOAT, tOffset + (slot & 511) * 4L, Subjects.t(i));
                region.set(ValueLayout.JAVA_FLOAT, ((long) (slot >>> 9) << 14) + tOffset + (slot & 511) * 4L, Subjects.t(i));
                metaRegion.set(ValueLayout.JAVA_INT, slot * 4L, GENERATION << 1 | 1);
                entries.set(ValueLayout.JAVA_LONG, slot * 8L, (long) (slot - 1) << 32 | (GENERATION << 1 | 1));
                interleaved.set(ValueLayout.JAVA_INT, interleavedMeta(slot), GENERATION << 1 | 1);
                interleaved.set(ValueLayout.JAVA_FLOAT, (slot >>> 9) * INTERLEAVED_STRIDE + tOffset + (slot & 511) * 4L, Subjects.t(i));
                handles[i] = (long) TAG << 56 | (long) GENERATION << 32 | slot;
            }
            shuffled = Subjects.shuffled(handles);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }

        /** Bytes from one block to the next in {@link #interleaved}: the block and its slots' meta words. */
        static final long INTERLEAVED_STRIDE = 16384 + 2048;

        /** The byte of slot {@code slot}'s meta word in {@link #interleaved}. */
        static long interleavedMeta(int slot) {
            return ((long) (slot >>> 9) + 1 << 14) + slot * 4L;
        }

        /** The slot of a live handle, else an exception (never thrown here: every handle is live). */
        int slot(long handle) {
            int slot = (int) handle;
            if ((handle >>> 56) != TAG || meta[slot >>> 12][slot & 4095] != (((int) (handle >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            return slot;
        }
    }

    /** Maps from ids 1..n, their keys shuffled; stale keys are ids that were removed. */
    @State(Scope.Benchmark)
    public static class Maps {
        HashMap<Long, Particle> map;
        Long2ObjectOpenHashMap<Particle> fastutil;
        long[] shuffled;
        long[] stale;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            int n = size.n;
            map = new HashMap<>();
            fastutil = new Long2ObjectOpenHashMap<>();
            stale = new long[n];
            for (int i = 0; i < n; i++) {
                long removed = i + 1;
                map.put(removed, Subjects.particle(i));
                fastutil.put(removed, Subjects.particle(i));
                stale[i] = removed;
            }
            for (int i = 0; i < n; i++) {
                map.remove(stale[i]);
                fastutil.remove(stale[i]);
                long id = n + i + 1L;
                map.put(id, Subjects.particle(i));
                fastutil.put(id, Subjects.particle(i));
            }
            int[] order = Subjects.shuffled(n, Subjects.SEED);
            shuffled = new long[n];
            for (int i = 0; i < n; i++) {
                shuffled[i] = n + order[i] + 1L;
            }
        }
    }

    @Benchmark
    public float floatArray(Columns s) {
        float sum = 0;
        for (int i : s.shuffled) {
            sum += s.t[i];
        }
        return sum;
    }

    /** The floor of a checked lookup: meta word, then a {@code float[]} (see {@link Floor}). */
    @Benchmark
    public float floorArrays(Floor s) {
        float sum = 0;
        for (long h : s.shuffled) {
            sum += s.t[s.slot(h)];
        }
        return sum;
    }

    /** The floor of a checked lookup in a BulkTable's memory layout (see {@link Floor}). */
    @Benchmark
    public float floorBlocks(Floor s) {
        float sum = 0;
        for (long h : s.shuffled) {
            int slot = s.slot(h);
            sum += s.blocks[slot >>> 9].get(ValueLayout.JAVA_FLOAT, s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }

    /**
     * The floor of a checked lookup in a BulkTable's layout with its blocks reserved at once:
     * meta words as {@link #floorBlocks}, the record at {@code base + (slot / 512) * 16 KiB} of
     * one range on huge pages (see {@link Floor}).
     */
    @Benchmark
    public float floorRegion(Floor s) {
        float sum = 0;
        MemorySegment region = s.region;
        for (long h : s.shuffled) {
            int slot = s.slot(h);
            sum += region.get(ValueLayout.JAVA_FLOAT, ((long) (slot >>> 9) << 14) + s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }

    /** As {@link #floorRegion} with the meta words in a reserved range of their own too. */
    @Benchmark
    @Fork(3)
    public float floorRegionMeta(Floor s) {
        float sum = 0;
        MemorySegment region = s.region;
        MemorySegment meta = s.metaRegion;
        for (long h : s.shuffled) {
            int slot = (int) h;
            if ((h >>> 56) != Floor.TAG || meta.get(ValueLayout.JAVA_INT, slot * 4L) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            sum += region.get(ValueLayout.JAVA_FLOAT, ((long) (slot >>> 9) << 14) + s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }

    /**
     * The floor of a PackedTable's lookup: the slot's 8-byte entry (meta word, row), then the
     * row's {@code t} in blocks reserved at once: two dependent reads.
     */
    @Benchmark
    @Fork(3)
    public float floorPacked(Floor s) {
        float sum = 0;
        MemorySegment region = s.region;
        MemorySegment entries = s.entries;
        for (long h : s.shuffled) {
            int slot = (int) h;
            long entry = entries.get(ValueLayout.JAVA_LONG, slot * 8L);
            if ((h >>> 56) != Floor.TAG || (int) entry != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            int row = (int) (entry >>> 32);
            sum += region.get(ValueLayout.JAVA_FLOAT, ((long) (row >>> 9) << 14) + s.tOffset + (row & 511) * 4L);
        }
        return sum;
    }

    /**
     * As {@link #floorRegionMeta} with each block's meta words in the 2 KiB after it, blocks
     * 18 KiB apart in one range (see {@link Floor#interleaved}): the same memory, one region, and
     * the {@code t} columns of neighbouring blocks no longer on the same cache sets.
     */
    @Benchmark
    public float floorInterleaved(Floor s) {
        float sum = 0;
        MemorySegment region = s.interleaved;
        for (long h : s.shuffled) {
            int slot = (int) h;
            if ((h >>> 56) != Floor.TAG || region.get(ValueLayout.JAVA_INT, Floor.interleavedMeta(slot)) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            sum += region.get(ValueLayout.JAVA_FLOAT, (slot >>> 9) * Floor.INTERLEAVED_STRIDE + s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }

    /** The lookup loop: t of every record, by handle, in shuffled order. */
    private static float sum(Bulk s) {
        float sum = 0;
        for (long h : s.shuffled) {
            sum += s.table.get(h, s.t);
        }
        return sum;
    }

    /** Writes {@code t} through every handle in shuffled order: lookup, write, change stamp. */
    @Benchmark
    public float bulkSet(Bulk s) {
        return setAll(s.table, s.t, s.shuffled);
    }

    /** As {@link #bulkSet} on a table that marked a version: the cost of the change stamps. */
    @Benchmark
    public float bulkSetTracked(Tracked s) {
        return setAll(s.table, s.t, s.shuffled);
    }

    /** As {@link #bulkSet} on a PackedTable. */
    @Benchmark
    public float packedSet(Packed s) {
        return setAll(s.table, s.t, s.shuffled);
    }

    private static float setAll(Table table, FloatField t, long[] handles) {
        float x = 0;
        for (long h : handles) {
            table.set(h, t, x);
            x += 1f;
        }
        return x;
    }

    @Benchmark
    @Fork(3)
    public float bulk(Bulk s) {
        return sum(s);
    }

    @Benchmark
    @Fork(3)
    public float bulkAos(BulkAos s) {
        return sum(s);
    }

    @Benchmark
    @Fork(3)
    public float packed(Packed s) {
        return sum(s);
    }

    @Benchmark
    @Fork(3)
    public float kotlin(Kotlin s) {
        return KotlinWorkloads.lookup(s.table, s.shuffled);
    }

    @Benchmark
    @Fork(3)
    public float hashMap(Maps s) {
        float sum = 0;
        for (long id : s.shuffled) {
            sum += s.map.get(id).t;
        }
        return sum;
    }

    @Benchmark
    @Fork(3)
    public float fastutil(Maps s) {
        float sum = 0;
        for (long id : s.shuffled) {
            sum += s.fastutil.get(id).t;
        }
        return sum;
    }

    @Benchmark
    public int staleBulk(Bulk s) {
        int found = 0;
        for (long h : s.stale) {
            found += s.table.contains(h) ? 1 : 0;
        }
        return found;
    }

    @Benchmark
    public int stalePacked(Packed s) {
        int found = 0;
        for (long h : s.stale) {
            found += s.table.contains(h) ? 1 : 0;
        }
        return found;
    }

    @Benchmark
    public int staleHashMap(Maps s) {
        int found = 0;
        for (long id : s.stale) {
            found += s.map.containsKey(id) ? 1 : 0;
        }
        return found;
    }

    @Benchmark
    public int staleFastutil(Maps s) {
        int found = 0;
        for (long id : s.stale) {
            found += s.fastutil.containsKey(id) ? 1 : 0;
        }
        return found;
    }
}
