package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
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

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The SIMD kernels of storage-vector against C2's loop over {@code float[]} columns (which it
 * vectorises), in one run: the update {@code p += v * dt} on three axes, then every kernel once
 * over a whole table ({@code fill}, {@code scale}, {@code add}, {@code axpy}, {@code sum},
 * {@code min}, {@code max}, {@code lessThan}, and {@code min} of a {@code long} field) beside
 * the same loop over an array. The forks run with {@code --add-modules jdk.incubator.vector} on
 * the machine's own instruction set; {@link KernelAvx2Benchmark} runs the same methods with C2
 * limited to AVX2. The update rows carry a target, so they run 3 forks. The setup fails if the
 * kernels are not vectorised.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class KernelBenchmark {
    static final float DT = 1f / 60;
    static final FloatField T = Subjects.SOA.floatField("t");
    static final FloatField PX = Subjects.SOA.floatField("px");
    static final FloatField PY = Subjects.SOA.floatField("py");
    static final FloatField PZ = Subjects.SOA.floatField("pz");
    static final FloatField VX = Subjects.SOA.floatField("vx");
    static final FloatField VY = Subjects.SOA.floatField("vy");
    static final FloatField VZ = Subjects.SOA.floatField("vz");

    /** A record of 4 {@code long}s, for the 64-bit kernels (AVX2 has no 64-bit min or max). */
    static final Schema LONGS = Schema.builder("longs").add(FieldType.LONG, "a", "b", "c", "d").build();
    static final LongField A = LONGS.longField("a");

    /** SOA tables of {@code n} records, both kinds, and a table of {@code n} records of longs. */
    @State(Scope.Benchmark)
    public static class Tables {
        BulkTable bulk;
        PackedTable packed;
        BulkTable longs;
        long[] mask = new long[Subjects.SOA.slotsPerBlock() / 64 + 1];

        @Setup(Level.Trial)
        public void setUp(Size size) {
            if (!Kernels.vectorized()) {
                throw new IllegalStateException("the kernels are not vectorised: run with --add-modules jdk.incubator.vector");
            }
            bulk = Subjects.table(Subjects.SOA, size.n, new long[size.n]);
            packed = Subjects.packed(Subjects.SOA, size.n, new long[size.n]);
            longs = BulkTable.of(LONGS);
            long[] handles = new long[size.n];
            longs.addAll(handles);
            for (int i = 0; i < size.n; i++) {
                longs.set(handles[i], A, Columns.longValue(i));
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            bulk.close();
            packed.close();
            longs.close();
        }
    }

    /**
     * The floor: the update with no library, the same Vector API loop over the columns of
     * 16 KiB native blocks laid out as a table's (one arena, the schema's column offsets, a
     * {@code MemorySegment} per column). What the kernels cost above it is the library's
     * (checks, views, change versions); what it costs above the {@code float[]} loop is the
     * layout's (2 KiB runs of each column per block instead of one long array).
     */
    @State(Scope.Benchmark)
    public static class Blocks {
        MemorySegment[] columns;
        Arena arena;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            int slots = Subjects.SOA.slotsPerBlock();
            int blocks = (size.n + slots - 1) / slots;
            arena = Arena.ofShared();
            MemorySegment all = arena.allocate((long) blocks * Schema.BLOCK_BYTES, Schema.BLOCK_BYTES);
            FloatField[] fields = {PX, PY, PZ, VX, VY, VZ};
            columns = new MemorySegment[blocks * fields.length];
            for (int b = 0; b < blocks; b++) {
                for (int f = 0; f < fields.length; f++) {
                    columns[b * fields.length + f] = all.asSlice((long) b * Schema.BLOCK_BYTES + fields[f].blockOffset(),
                            (long) slots * Float.BYTES);
                }
            }
            for (int b = 0; b < blocks; b++) {
                for (int f = 3; f < 6; f++) {
                    MemorySegment v = columns[b * fields.length + f];
                    for (int s = 0; s < slots; s++) {
                        v.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, s, f - 2);
                    }
                }
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;

    private static void axpyFloor(MemorySegment a, MemorySegment b, float k) {
        long step = FLOATS.vectorByteSize();
        for (long off = 0, end = a.byteSize(); off < end; off += step) {
            FloatVector.fromMemorySegment(FLOATS, a, off, ByteOrder.nativeOrder())
                    .add(FloatVector.fromMemorySegment(FLOATS, b, off, ByteOrder.nativeOrder()).mul(k))
                    .intoMemorySegment(a, off, ByteOrder.nativeOrder());
        }
    }

    /** The update over raw blocks, the three axes per block as {@link #updateBulkChunks}. */
    @Benchmark
    @Fork(3)
    public void updateFloorBlocks(Blocks s) {
        MemorySegment[] c = s.columns;
        for (int i = 0; i < c.length; i += 6) {
            axpyFloor(c[i], c[i + 3], DT);
            axpyFloor(c[i + 1], c[i + 4], DT);
            axpyFloor(c[i + 2], c[i + 5], DT);
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
        long[] a;

        /** The long values, in the table and the array alike. */
        static long longValue(int i) {
            return (i * 0x9E3779B97F4A7C15L) >> 20;
        }

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
            a = new long[size.n];
            for (int i = 0; i < size.n; i++) {
                a[i] = longValue(i);
            }
            java.util.Arrays.fill(vx, 1f);
            java.util.Arrays.fill(vy, 2f);
            java.util.Arrays.fill(vz, 3f);
        }
    }

    @Benchmark
    @Fork(3)
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
    @Fork(3)
    public void updateBulkTable(Tables s) {
        Kernels.axpy(s.bulk, PX, VX, DT);
        Kernels.axpy(s.bulk, PY, VY, DT);
        Kernels.axpy(s.bulk, PZ, VZ, DT);
    }

    /** One iteration, the three axes per chunk while its block is in cache. */
    @Benchmark
    @Fork(3)
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
    @Fork(3)
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

    // Every kernel once over the whole table, beside the same loop over an array (C2 vectorises
    // the array loops except the float sum, which it may not reorder, and the min and max of
    // floats, whose NaN and -0.0 rules it does not vectorise).

    @Benchmark
    public void fillFloatArray(Columns s) {
        java.util.Arrays.fill(s.vx, 1f);
    }

    @Benchmark
    public void fillBulkTable(Tables s) {
        Kernels.fill(s.bulk, VX, 1f);
    }

    @Benchmark
    public void scaleFloatArray(Columns s) {
        float[] a = s.vy;
        for (int i = 0; i < a.length; i++) {
            a[i] *= -1f;
        }
    }

    @Benchmark
    public void scaleBulkTable(Tables s) {
        Kernels.scale(s.bulk, VY, -1f);
    }

    @Benchmark
    public void addFloatArray(Columns s) {
        float[] a = s.pz;
        for (int i = 0; i < a.length; i++) {
            a[i] += DT;
        }
    }

    @Benchmark
    public void addBulkTable(Tables s) {
        Kernels.add(s.bulk, PZ, DT);
    }

    @Benchmark
    public void axpyFloatArray(Columns s) {
        float[] a = s.px;
        float[] b = s.vx;
        for (int i = 0; i < a.length; i++) {
            a[i] += b[i] * DT;
        }
    }

    @Benchmark
    public void axpyBulkTable(Tables s) {
        Kernels.axpy(s.bulk, PX, VX, DT);
    }

    @Benchmark
    public float minFloatArray(Columns s) {
        float min = Float.POSITIVE_INFINITY;
        for (float v : s.t) {
            min = Math.min(min, v);
        }
        return min;
    }

    @Benchmark
    public float minBulkTable(Tables s) {
        return Kernels.min(s.bulk, T);
    }

    @Benchmark
    public float maxFloatArray(Columns s) {
        float max = Float.NEGATIVE_INFINITY;
        for (float v : s.t) {
            max = Math.max(max, v);
        }
        return max;
    }

    @Benchmark
    public float maxBulkTable(Tables s) {
        return Kernels.max(s.bulk, T);
    }

    @Benchmark
    public long minLongArray(Columns s) {
        long min = Long.MAX_VALUE;
        for (long v : s.a) {
            min = Math.min(min, v);
        }
        return min;
    }

    @Benchmark
    public long minLongBulkTable(Tables s) {
        return Kernels.min(s.longs, A);
    }
}
