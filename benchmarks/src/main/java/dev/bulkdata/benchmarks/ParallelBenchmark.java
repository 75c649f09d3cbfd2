package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChunkIteration;
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

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workload 8: the update {@code p += v * dt} over a table, one chunk per task, on 1 or 2
 * worker threads that take chunks from a shared counter: by hand ({@code update}), through the
 * Java API ({@code forEachChunkExecutor}) and as Kotlin coroutines ({@code coroutines}).
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
}
