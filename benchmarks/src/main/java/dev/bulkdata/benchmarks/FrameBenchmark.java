package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.Table;
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

import java.util.HashMap;
import java.util.concurrent.TimeUnit;

/**
 * Workload 5, steady state: one game frame on 100,000 records: remove 5 % of them (a
 * different random 5 % each frame), add as many, then a full update pass {@code p += v * dt}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class FrameBenchmark {
    static final int N = 100_000;
    static final int TURNOVER = N / 20;

    /** Positions (0..N-1) of the records each frame replaces: a shuffled cycle of all of them. */
    @State(Scope.Benchmark)
    public static class Cycle {
        final int[] order = Subjects.shuffled(N, Subjects.SEED);
        int cursor;

        /** {@return the first of this frame's {@link #TURNOVER} positions in {@link #order}} */
        int next() {
            int from = cursor;
            cursor = (cursor + TURNOVER) % N;
            return from;
        }
    }

    /** A table of {@code N} records; {@code handles[i]} is the record at position {@code i}. */
    @State(Scope.Benchmark)
    public static class Bulk {
        BulkTable table;
        FloatField t = Subjects.SOA.floatField("t");
        long[] handles = new long[N];

        @Setup(Level.Trial)
        public void setUp() {
            table = Subjects.table(Subjects.SOA, N, handles);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** A packed table of {@code N} records. */
    @State(Scope.Benchmark)
    public static class Packed {
        PackedTable table;
        FloatField t = Subjects.SOA.floatField("t");
        long[] handles = new long[N];

        @Setup(Level.Trial)
        public void setUp() {
            table = Subjects.packed(Subjects.SOA, N, handles);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** Maps from ids to particles; {@code ids[i]} is the id at position {@code i}. */
    @State(Scope.Benchmark)
    public static class Maps {
        HashMap<Long, Particle> map = Subjects.hashMap(N);
        Long2ObjectOpenHashMap<Particle> fastutil = Subjects.fastutil(N);
        long[] ids = new long[N];
        long nextId = N + 1L;

        @Setup(Level.Trial)
        public void setUp() {
            for (int i = 0; i < N; i++) {
                ids[i] = i + 1L;
            }
        }
    }

    @Benchmark
    @Fork(3)
    public int bulk(Bulk s, Cycle c) {
        replace(s.table, s.handles, s.t, c);
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int i = 0, n = chunks.count(); i < n; i++) {
                UpdateBenchmark.updateColumns(chunks.chunk(i), Subjects.SOA);
            }
        }
        return s.table.size();
    }

    @Benchmark
    @Fork(3)
    public int packed(Packed s, Cycle c) {
        replace(s.table, s.handles, s.t, c);
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int i = 0, n = chunks.count(); i < n; i++) {
                UpdateBenchmark.updateDense(chunks.chunk(i), Subjects.SOA);
            }
        }
        return s.table.size();
    }

    /** Removes this frame's {@link #TURNOVER} records and adds as many in their positions. */
    private static void replace(Table table, long[] handles, FloatField t, Cycle c) {
        int from = c.next();
        for (int k = from; k < from + TURNOVER; k++) {
            table.remove(handles[c.order[k]]);
        }
        for (int k = from; k < from + TURNOVER; k++) {
            int i = c.order[k];
            long h = table.add();
            table.set(h, t, Subjects.t(i));
            handles[i] = h;
        }
    }

    @Benchmark
    @Fork(3)
    public int hashMap(Maps s, Cycle c) {
        int from = c.next();
        for (int k = from; k < from + TURNOVER; k++) {
            s.map.remove(s.ids[c.order[k]]);
        }
        for (int k = from; k < from + TURNOVER; k++) {
            int i = c.order[k];
            long id = s.nextId++;
            s.map.put(id, new Particle(Subjects.t(i)));
            s.ids[i] = id;
        }
        for (Particle p : s.map.values()) {
            UpdateBenchmark.update(p);
        }
        return s.map.size();
    }

    @Benchmark
    public int fastutil(Maps s, Cycle c) {
        int from = c.next();
        for (int k = from; k < from + TURNOVER; k++) {
            s.fastutil.remove(s.ids[c.order[k]]);
        }
        for (int k = from; k < from + TURNOVER; k++) {
            int i = c.order[k];
            long id = s.nextId++;
            s.fastutil.put(id, new Particle(Subjects.t(i)));
            s.ids[i] = id;
        }
        for (Particle p : s.fastutil.values()) {
            UpdateBenchmark.update(p);
        }
        return s.fastutil.size();
    }
}
