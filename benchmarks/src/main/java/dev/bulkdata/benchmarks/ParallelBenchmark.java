package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.Schema;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workload 8: the update {@code p += v * dt} over a table, one chunk per task, on 1 or 2
 * worker threads that take chunks from a shared counter: by hand ({@code update}), through the
 * Java API ({@code forEachChunkExecutor}) and as Kotlin coroutines ({@code coroutines}); its
 * floor ({@code floor}) is the same column loop over the same blocks with no library.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class ParallelBenchmark {

    /** A table and a pool of worker threads. */
    @State(Scope.Benchmark)
    public static class Workers {
        /** Worker threads. */
        @Param({"1", "2"})
        public int threads;
        BulkTable table;
        ExecutorService pool;
        Future<?>[] running;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            table = Subjects.table(Subjects.SOA, size.n, new long[size.n]);
            pool = Executors.newFixedThreadPool(threads);
            running = new Future<?>[threads];
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pool.shutdownNow();
            table.close();
        }
    }


    /** Kotlin: one coroutine per chunk on Dispatchers.Default, at most {@code threads} at once. */
    @Benchmark
    @Fork(3)
    public int coroutines(KotlinTable k, Workers s) {
        return KotlinWorkloads.updateCoroutines(k.table, s.threads);
    }

    /**
     * The Java API: {@code Table.forEachChunk(executor, threads, visitor)}, the calling thread
     * and {@code threads - 1} pool tasks taking chunks from the pass's counter.
     */
    @Benchmark
    @Fork(3)
    public int forEachChunkExecutor(Workers s) {
        s.table.forEachChunk(s.pool, s.threads, chunk -> UpdateBenchmark.updateColumns(chunk, Subjects.SOA));
        return s.threads;
    }

    @Benchmark
    @Fork(3)
    public int update(Workers s) throws Exception {
        try (ChunkIteration chunks = s.table.iterate()) {
            AtomicInteger next = new AtomicInteger();
            int count = chunks.count();
            for (int t = 0; t < s.threads; t++) {
                s.running[t] = s.pool.submit(() -> {
                    for (int c = next.getAndIncrement(); c < count; c = next.getAndIncrement()) {
                        UpdateBenchmark.updateColumns(chunks.chunk(c), Subjects.SOA);
                    }
                });
            }
            for (int t = 0; t < s.threads; t++) {
                s.running[t].get();
            }
            return count;
        }
    }

    /**
     * The blocks of {@link #update}'s table with no library: one native range of 16 KiB blocks
     * in the standard record's SOA layout, each block's six columns sliced once, and a pool of
     * worker threads.
     */
    @State(Scope.Benchmark)
    public static class Floor {
        /** Worker threads. */
        @Param({"1", "2"})
        public int threads;
        Arena arena;
        /** Per block: px, py, pz (written) and vx, vy, vz (read). */
        MemorySegment[][] columns;
        ExecutorService pool;
        Future<?>[] running;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            Schema schema = Subjects.SOA;
            int per = schema.slotsPerBlock();
            int blocks = (size.n + per - 1) / per;
            Field[] f = UpdateBenchmark.fields(schema);
            arena = Arena.ofShared();
            MemorySegment all = arena.allocate((long) blocks * schema.blockBytes(), 64);
            columns = new MemorySegment[blocks][6];
            for (int b = 0; b < blocks; b++) {
                MemorySegment block = all.asSlice((long) b * schema.blockBytes(), schema.blockBytes());
                for (int k = 0; k < 6; k++) {
                    columns[b][k] = block.asSlice(f[k].blockOffset(), (long) per * Float.BYTES);
                }
                for (int k = 3; k < 6; k++) {
                    columns[b][k].fill((byte) 0x3F); // about 0.75f everywhere
                }
            }
            pool = Executors.newFixedThreadPool(threads);
            running = new Future<?>[threads];
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pool.shutdownNow();
            arena.close();
        }
    }

    /** The floor of {@link #update}: its loop, pool and chunk counter over {@link Floor}'s blocks, no library. */
    @Benchmark
    @Fork(3)
    public int floor(Floor s) throws Exception {
        AtomicInteger next = new AtomicInteger();
        int count = s.columns.length;
        for (int t = 0; t < s.threads; t++) {
            s.running[t] = s.pool.submit(() -> {
                for (int c = next.getAndIncrement(); c < count; c = next.getAndIncrement()) {
                    floorBlock(s.columns[c]);
                }
            });
        }
        for (int t = 0; t < s.threads; t++) {
            s.running[t].get();
        }
        return count;
    }

    /** {@code p += v * dt} over one block's columns, as {@link UpdateBenchmark#updateColumns(dev.bulkdata.storage.Chunk, Field[])} does over a full chunk. */
    private static void floorBlock(MemorySegment[] c) {
        MemorySegment px = c[0];
        MemorySegment py = c[1];
        MemorySegment pz = c[2];
        MemorySegment vx = c[3];
        MemorySegment vy = c[4];
        MemorySegment vz = c[5];
        ValueLayout.OfFloat fu = ValueLayout.JAVA_FLOAT_UNALIGNED;
        float dt = UpdateBenchmark.DT;
        int n = (int) (px.byteSize() / Float.BYTES);
        for (int s = 0; s < n; s++) {
            px.setAtIndex(fu, s, px.getAtIndex(fu, s) + vx.getAtIndex(fu, s) * dt);
            py.setAtIndex(fu, s, py.getAtIndex(fu, s) + vy.getAtIndex(fu, s) * dt);
            pz.setAtIndex(fu, s, pz.getAtIndex(fu, s) + vz.getAtIndex(fu, s) * dt);
        }
    }
}
