package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.vector.Kernels;
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

import java.util.concurrent.TimeUnit;

/**
 * The SIMD kernels of storage-vector against C2's loop over {@code float[]} columns (which it
 * vectorises), in one run: the update {@code p += v * dt} on three axes, a sum and the count of
 * "expire where t < 0". The forks run with {@code --add-modules jdk.incubator.vector}; the setup
 * fails if the kernels are not vectorised.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--add-modules", "jdk.incubator.vector"})
public class KernelBenchmark {
    static final float DT = 1f / 60;
    static final FloatField T = Subjects.SOA.floatField("t");
    static final FloatField PX = Subjects.SOA.floatField("px");
    static final FloatField PY = Subjects.SOA.floatField("py");
    static final FloatField PZ = Subjects.SOA.floatField("pz");
    static final FloatField VX = Subjects.SOA.floatField("vx");
    static final FloatField VY = Subjects.SOA.floatField("vy");
    static final FloatField VZ = Subjects.SOA.floatField("vz");

    /** SOA tables of {@code n} records, both kinds. */
    @State(Scope.Benchmark)
    public static class Tables {
        BulkTable bulk;
        PackedTable packed;
        long[] mask = new long[Subjects.SOA.slotsPerBlock() / 64 + 1];

        @Setup(Level.Trial)
        public void setUp(Size size) {
            if (!Kernels.vectorized()) {
                throw new IllegalStateException("the kernels are not vectorised: run with --add-modules jdk.incubator.vector");
            }
            bulk = Subjects.table(Subjects.SOA, size.n, new long[size.n]);
            packed = Subjects.packed(Subjects.SOA, size.n, new long[size.n]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            bulk.close();
            packed.close();
        }
    }

    /** The limit: {@code float[]} columns, filled as the tables are. */
    @State(Scope.Benchmark)
    public static class Columns {
        float[] t;
        float[] px;
        float[] py;
        float[] pz;
        float[] vx;
        float[] vy;
        float[] vz;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            t = new float[size.n];
            px = new float[size.n];
            py = new float[size.n];
            pz = new float[size.n];
            vx = new float[size.n];
            vy = new float[size.n];
            vz = new float[size.n];
            for (int i = 0; i < size.n; i++) {
                t[i] = Subjects.t(i);
            }
            java.util.Arrays.fill(vx, 1f);
            java.util.Arrays.fill(vy, 2f);
            java.util.Arrays.fill(vz, 3f);
        }
    }

    @Benchmark
    public void updateFloatArray(Columns s) {
        float[] px = s.px, py = s.py, pz = s.pz, vx = s.vx, vy = s.vy, vz = s.vz;
        for (int i = 0; i < px.length; i++) {
            px[i] += vx[i] * DT;
            py[i] += vy[i] * DT;
            pz[i] += vz[i] * DT;
        }
    }

    /** Three whole-table calls: {@code Kernels.axpy(table, PX, VX, dt)} per axis. */
    @Benchmark
    public void updateBulkTable(Tables s) {
        Kernels.axpy(s.bulk, PX, VX, DT);
        Kernels.axpy(s.bulk, PY, VY, DT);
        Kernels.axpy(s.bulk, PZ, VZ, DT);
    }

    /** One iteration, the three axes per chunk while its block is in cache. */
    @Benchmark
    public void updateBulkChunks(Tables s) {
        try (ChunkIteration chunks = s.bulk.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                Kernels.axpy(chunk, PX, VX, DT);
                Kernels.axpy(chunk, PY, VY, DT);
                Kernels.axpy(chunk, PZ, VZ, DT);
            }
        }
    }

    @Benchmark
    public void updatePackedChunks(Tables s) {
        try (ChunkIteration chunks = s.packed.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                Kernels.axpy(chunk, PX, VX, DT);
                Kernels.axpy(chunk, PY, VY, DT);
                Kernels.axpy(chunk, PZ, VZ, DT);
            }
        }
    }

    /** A sequential {@code float} sum, which C2 does not vectorise (it may not reorder the additions). */
    @Benchmark
    public float sumFloatArray(Columns s) {
        float sum = 0;
        for (float v : s.vx) {
            sum += v;
        }
        return sum;
    }

    @Benchmark
    public double sumBulkTable(Tables s) {
        return Kernels.sum(s.bulk, VX);
    }

    /** "Expire where t < 500" (half the records): how many. */
    @Benchmark
    public int expireFloatArray(Columns s) {
        int count = 0;
        for (float v : s.t) {
            if (v < 500) {
                count++;
            }
        }
        return count;
    }

    @Benchmark
    public int expireBulkChunks(Tables s) {
        int count = 0;
        try (ChunkIteration chunks = s.bulk.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                count += Kernels.lessThan(chunks.chunk(c), T, 500f, s.mask);
            }
        }
        return count;
    }
}
