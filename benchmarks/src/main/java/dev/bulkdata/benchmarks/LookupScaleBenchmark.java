package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FloatField;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * {@link LookupBenchmark#bulk}'s lookup as the table outgrows the caches: 8M and 32M records
 * (256 MiB and 1 GiB of records), beside the same floor as {@link LookupBenchmark#floorRegionMeta}
 * (meta words and blocks in reserved ranges on huge pages, no library) and the floor with each
 * block's meta words after it ({@link #floorInterleaved}). The C++ and Rust harness
 * runs the same lookup at these sizes ({@code benchmarks/peers/run.sh 1000000 8388608 33554432}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class LookupScaleBenchmark {

    /** A filled SOA table and its handles in shuffled order. */
    @State(Scope.Benchmark)
    public static class Bulk {
        @Param({"8388608", "33554432"})
        public int n;
        BulkTable table;
        final FloatField t = Subjects.SOA.floatField("t");
        long[] shuffled;

        @Setup(Level.Trial)
        public void setUp() {
            long[] handles = new long[n];
            table = Subjects.table(Subjects.SOA, n, handles);
            shuffled = Subjects.shuffled(handles);
            Subjects.logHugePages("table of " + n + " records");
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** The floor's memory: meta words and 16 KiB blocks of 512 SOA records, each in a reserved range. */
    @State(Scope.Benchmark)
    public static class Floor {
        static final int TAG = 7;
        static final int GENERATION = 3;
        @Param({"8388608", "33554432"})
        public int n;
        MemorySegment region;
        MemorySegment meta;
        /** Blocks 18 KiB apart, each followed by its slots' meta words (as {@code LookupBenchmark.Floor.interleaved}). */
        MemorySegment interleaved;
        long tOffset;
        long[] shuffled;
        Arena arena;

        @Setup(Level.Trial)
        public void setUp() {
            arena = Arena.ofShared();
            tOffset = Subjects.SOA.floatField("t").blockOffset();
            region = Reserved.range(((long) (n >>> 9) + 1) << 14, arena);
            meta = Reserved.range((n + 1L) * 4, arena);
            interleaved = Reserved.range(((long) (n >>> 9) + 1) * LookupBenchmark.Floor.INTERLEAVED_STRIDE, arena);
            long[] handles = new long[n];
            for (int i = 0; i < n; i++) {
                int slot = i + 1;
                meta.set(ValueLayout.JAVA_INT_UNALIGNED, slot * 4L, GENERATION << 1 | 1);
                region.set(ValueLayout.JAVA_FLOAT_UNALIGNED, ((long) (slot >>> 9) << 14) + tOffset + (slot & 511) * 4L, Subjects.t(i));
                interleaved.set(ValueLayout.JAVA_INT_UNALIGNED, LookupBenchmark.Floor.interleavedMeta(slot), GENERATION << 1 | 1);
                interleaved.set(ValueLayout.JAVA_FLOAT_UNALIGNED,
                        (slot >>> 9) * LookupBenchmark.Floor.INTERLEAVED_STRIDE + tOffset + (slot & 511) * 4L, Subjects.t(i));
                handles[i] = (long) TAG << 56 | (long) GENERATION << 32 | slot;
            }
            shuffled = Subjects.shuffled(handles);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    /** t of every record, by handle, in shuffled order. */
    @Benchmark
    @Fork(3)
    public float bulk(Bulk s) {
        float sum = 0;
        for (long h : s.shuffled) {
            sum += s.table.get(h, s.t);
        }
        return sum;
    }

    /** The floor of {@link #bulk}: the same checks and reads on the same layout, no library. */
    @Benchmark
    public float floor(Floor s) {
        float sum = 0;
        MemorySegment region = s.region;
        MemorySegment meta = s.meta;
        for (long h : s.shuffled) {
            int slot = (int) h;
            if ((h >>> 56) != Floor.TAG || meta.get(ValueLayout.JAVA_INT_UNALIGNED, slot * 4L) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            sum += region.get(ValueLayout.JAVA_FLOAT_UNALIGNED, ((long) (slot >>> 9) << 14) + s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }

    /**
     * {@link #floor} with each block's meta words in the 2 KiB after it, blocks 18 KiB apart in
     * one range: one region per lookup instead of two, the same two cache lines.
     */
    @Benchmark
    public float floorInterleaved(Floor s) {
        float sum = 0;
        MemorySegment region = s.interleaved;
        for (long h : s.shuffled) {
            int slot = (int) h;
            if ((h >>> 56) != Floor.TAG
                    || region.get(ValueLayout.JAVA_INT_UNALIGNED, LookupBenchmark.Floor.interleavedMeta(slot)) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            sum += region.get(ValueLayout.JAVA_FLOAT_UNALIGNED,
                    (slot >>> 9) * LookupBenchmark.Floor.INTERLEAVED_STRIDE + s.tOffset + (slot & 511) * 4L);
        }
        return sum;
    }
}
