package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.PackedTable;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

/** Workload 2: sum {@code t} over all live records. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class IterateBenchmark {

    /** A bulkdata table with {@code n} records. */
    @State(Scope.Benchmark)
    public static class Bulk {
        BulkTable soa;
        BulkTable aos;
        FloatField soaT = Subjects.SOA.floatField("t");
        FloatField aosT = Subjects.AOS.floatField("t");

        @Setup(Level.Trial)
        public void setUp(Size size) {
            soa = Subjects.table(Subjects.SOA, size.n, new long[size.n]);
            aos = Subjects.table(Subjects.AOS, size.n, new long[size.n]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            soa.close();
            aos.close();
        }
    }

    /** A packed table with {@code n} records. */
    @State(Scope.Benchmark)
    public static class Packed {
        PackedTable soa;
        FloatField t = Subjects.SOA.floatField("t");

        @Setup(Level.Trial)
        public void setUp(Size size) {
            soa = Subjects.packed(Subjects.SOA, size.n, new long[size.n]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            soa.close();
        }
    }


    /** The limit: one {@code float[]} column. */
    @State(Scope.Benchmark)
    public static class Columns {
        float[] t;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            t = new float[size.n];
            for (int i = 0; i < size.n; i++) {
                t[i] = Subjects.t(i);
            }
        }
    }

    /** What Java users write today. */
    @State(Scope.Benchmark)
    public static class Heap {
        ArrayList<Particle> list;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            list = Subjects.arrayList(size.n);
        }
    }

    /** Boxed-key maps. */
    @State(Scope.Benchmark)
    public static class Maps {
        HashMap<Long, Particle> map;
        Long2ObjectOpenHashMap<Particle> fastutil;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            map = Subjects.hashMap(size.n);
            fastutil = Subjects.fastutil(size.n);
        }
    }

    @Benchmark
    @Fork(3)
    public float floatArray(Columns s) {
        float sum = 0;
        for (float v : s.t) {
            sum += v;
        }
        return sum;
    }

    /**
     * Chunk by chunk: the column as a segment, live slots 64 at a time from the bitmap, a full
     * word (no hole) as a counted loop: the loop shape {@code Chunk} documents.
     */
    @Benchmark
    @Fork(3)
    public float bulkSoaColumns(Bulk s) {
        return sumColumn(s.soa, s.soaT);
    }

    /** The column loop over the live slots of a table; also {@link MappedBenchmark}'s. */
    static float sumColumn(BulkTable table, FloatField field) {
        float sum = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment t = chunk.column(field);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    if (live == -1L) {                     // no hole: a counted loop
                        for (int slot = w << 6, end = slot + 64; slot < end; slot++) {
                            sum += t.getAtIndex(ValueLayout.JAVA_FLOAT, slot);
                        }
                    } else {
                        while (live != 0) {
                            int slot = (w << 6) + Long.numberOfTrailingZeros(live);
                            live &= live - 1;
                            sum += t.getAtIndex(ValueLayout.JAVA_FLOAT, slot);
                        }
                    }
                }
            }
        }
        return sum;
    }

    /** Packed: every chunk's live slots are {@code [0, liveCount())}, no bitmap needed. */
    @Benchmark
    @Fork(3)
    public float packedSoaColumns(Packed s) {
        float sum = 0;
        try (ChunkIteration chunks = s.soa.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment t = chunk.column(s.t);
                for (int slot = 0, live = chunk.liveCount(); slot < live; slot++) {
                    sum += t.getAtIndex(ValueLayout.JAVA_FLOAT, slot);
                }
            }
        }
        return sum;
    }

    /** Kotlin, record by record: {@code table.forEach { sum += it[T] }} with typed handles. */
    @Benchmark
    @Fork(3)
    public float kotlin(KotlinTable s) {
        return KotlinWorkloads.iterate(s.table);
    }

    /**
     * Typed slot access in the loop shape the docs recommend: live slots 64 at a time from
     * {@code liveBits}, each read with {@code chunk.get(slot, field)}.
     */
    @Benchmark
    @Fork(3)
    public float bulkSoaSlots(Bulk s) {
        float sum = 0;
        try (ChunkIteration chunks = s.soa.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    if (live == -1L) {                     // no hole: a counted loop
                        for (int slot = w << 6, end = slot + 64; slot < end; slot++) {
                            sum += chunk.get(slot, s.soaT);
                        }
                    } else {
                        while (live != 0) {
                            int slot = (w << 6) + Long.numberOfTrailingZeros(live);
                            live &= live - 1;
                            sum += chunk.get(slot, s.soaT);
                        }
                    }
                }
            }
        }
        return sum;
    }

    /** Typed slot access stepping with {@code nextLive}: each step depends on the last. */
    @Benchmark
    public float bulkSoaNextLive(Bulk s) {
        float sum = 0;
        try (ChunkIteration chunks = s.soa.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int slot = chunk.nextLive(0); slot >= 0; slot = chunk.nextLive(slot + 1)) {
                    sum += chunk.get(slot, s.soaT);
                }
            }
        }
        return sum;
    }

    /** AOS: the block's records, t at a fixed offset every stride bytes. */
    @Benchmark
    @Fork(3)
    public float bulkAos(Bulk s) {
        float sum = 0;
        long base = s.aosT.blockOffset();
        long stride = s.aosT.slotStride();
        try (ChunkIteration chunks = s.aos.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment records = chunk.records();
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    if (live == -1L) {                     // no hole: a counted loop
                        for (int slot = w << 6, end = slot + 64; slot < end; slot++) {
                            sum += records.get(ValueLayout.JAVA_FLOAT_UNALIGNED, base + slot * stride);
                        }
                    } else {
                        while (live != 0) {
                            int slot = (w << 6) + Long.numberOfTrailingZeros(live);
                            live &= live - 1;
                            sum += records.get(ValueLayout.JAVA_FLOAT_UNALIGNED, base + slot * stride);
                        }
                    }
                }
            }
        }
        return sum;
    }

    @Benchmark
    @Fork(3)
    public float arrayList(Heap s) {
        float sum = 0;
        for (int i = 0, n = s.list.size(); i < n; i++) {
            sum += s.list.get(i).t;
        }
        return sum;
    }

    @Benchmark
    public float hashMap(Maps s) {
        float sum = 0;
        for (Particle p : s.map.values()) {
            sum += p.t;
        }
        return sum;
    }

    @Benchmark
    public float fastutil(Maps s) {
        float sum = 0;
        for (Particle p : s.fastutil.values()) {
            sum += p.t;
        }
        return sum;
    }
}
