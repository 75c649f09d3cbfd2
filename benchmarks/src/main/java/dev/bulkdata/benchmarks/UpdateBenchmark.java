package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Workloads 6 and 7: {@code p += v * dt} on all three axes (SOA against AOS against the
 * limit), and iteration at 0 / 25 / 50 / 90 / 99 % holes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class UpdateBenchmark {
    static final float DT = 1f / 60;

    /** The update of one chunk, p += v * dt, through its columns (SOA) or records (AOS). */
    static void update(Chunk chunk, Schema schema) {
        if (schema.layout() == dev.bulkdata.storage.schema.RecordLayout.SOA) {
            updateColumns(chunk, schema);
        } else {
            updateRecords(chunk, schema);
        }
    }

    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT;
    private static final ValueLayout.OfFloat FU = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private static final Field[] SOA_FIELDS = fields(Subjects.SOA);

    /** {@return px, py, pz, vx, vy, vz of a schema} */
    static Field[] fields(Schema schema) {
        return new Field[] {schema.field("px"), schema.field("py"), schema.field("pz"),
            schema.field("vx"), schema.field("vy"), schema.field("vz")};
    }

    static void updateColumns(Chunk chunk, Schema schema) {
        updateColumns(chunk, schema == Subjects.SOA ? SOA_FIELDS : fields(schema));
    }

    /** The column update of one chunk, with {@code f} = {@link #fields(Schema)} of its table. */
    static void updateColumns(Chunk chunk, Field[] f) {
        MemorySegment px = chunk.writableColumn(f[0]);
        MemorySegment py = chunk.writableColumn(f[1]);
        MemorySegment pz = chunk.writableColumn(f[2]);
        MemorySegment vx = chunk.column(f[3]);
        MemorySegment vy = chunk.column(f[4]);
        MemorySegment vz = chunk.column(f[5]);
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {                        // no hole: one loop from 0
            for (int s = 0; s < n; s++) {
                px.setAtIndex(FU, s, px.getAtIndex(FU, s) + vx.getAtIndex(FU, s) * DT);
                py.setAtIndex(FU, s, py.getAtIndex(FU, s) + vy.getAtIndex(FU, s) * DT);
                pz.setAtIndex(FU, s, pz.getAtIndex(FU, s) + vz.getAtIndex(FU, s) * DT);
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {
                int s = (w << 6) + Long.numberOfTrailingZeros(live);
                px.setAtIndex(FU, s, px.getAtIndex(FU, s) + vx.getAtIndex(FU, s) * DT);
                py.setAtIndex(FU, s, py.getAtIndex(FU, s) + vy.getAtIndex(FU, s) * DT);
                pz.setAtIndex(FU, s, pz.getAtIndex(FU, s) + vz.getAtIndex(FU, s) * DT);
            }
        }
    }

    static void updateRecords(Chunk chunk, Schema schema) {
        MemorySegment r = chunk.writableRecords();
        long stride = schema.slotBytes();
        long px = schema.field("px").blockOffset();
        long vx = schema.field("vx").blockOffset();
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {                        // no hole: one loop from 0
            for (int s = 0; s < n; s++) {
                long at = s * stride;
                r.set(FU, at + px, r.get(FU, at + px) + r.get(FU, at + vx) * DT);
                r.set(FU, at + px + 4, r.get(FU, at + px + 4) + r.get(FU, at + vx + 4) * DT);
                r.set(FU, at + px + 8, r.get(FU, at + px + 8) + r.get(FU, at + vx + 8) * DT);
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {
                int s = (w << 6) + Long.numberOfTrailingZeros(live);
                long at = s * stride;
                r.set(FU, at + px, r.get(FU, at + px) + r.get(FU, at + vx) * DT);
                r.set(FU, at + px + 4, r.get(FU, at + px + 4) + r.get(FU, at + vx + 4) * DT);
                r.set(FU, at + px + 8, r.get(FU, at + px + 8) + r.get(FU, at + vx + 8) * DT);
            }
        }
    }

    /** SOA and AOS tables of {@code n} records. */
    @State(Scope.Benchmark)
    public static class Bulk {
        BulkTable soa;
        BulkTable aos;
        FloatField px = Subjects.SOA.floatField("px");
        FloatField vx = Subjects.SOA.floatField("vx");

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

    /** A packed SOA table of {@code n} records. */
    @State(Scope.Benchmark)
    public static class Packed {
        PackedTable soa;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            soa = Subjects.packed(Subjects.SOA, size.n, new long[size.n]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            soa.close();
        }
    }


    /** The limit: six {@code float[]} columns. */
    @State(Scope.Benchmark)
    public static class Columns {
        float[] px;
        float[] py;
        float[] pz;
        float[] vx;
        float[] vy;
        float[] vz;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            px = new float[size.n];
            py = new float[size.n];
            pz = new float[size.n];
            vx = new float[size.n];
            vy = new float[size.n];
            vz = new float[size.n];
            java.util.Arrays.fill(vx, 1f);
            java.util.Arrays.fill(vy, 2f);
            java.util.Arrays.fill(vz, 3f);
        }
    }

    /** Heap objects. */
    @State(Scope.Benchmark)
    public static class Heap {
        ArrayList<Particle> list;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            list = Subjects.arrayList(size.n);
        }
    }

    /**
     * A table of {@code n} slots of which exactly {@code holes} percent are holes, chosen at
     * random: time per live record is the score divided by {@link #live(int, int)}.
     */
    @State(Scope.Benchmark)
    public static class Holey {
        /** Percent of slots that are holes. */
        @Param({"0", "25", "50", "90", "99"})
        public int holes;
        Table table;
        FloatField t = Subjects.SOA.floatField("t");

        /** {@return the live records of a table of {@code n} slots with {@code holes} percent holes} */
        static int live(int n, int holes) {
            return n - (int) ((long) n * holes / 100);
        }

        Table make(int n, long[] handles) {
            return Subjects.table(Subjects.SOA, n, handles);
        }

        @Setup(Level.Trial)
        public void setUp(Size size) {
            long[] handles = new long[size.n];
            table = make(size.n, handles);
            int[] order = Subjects.shuffled(size.n, Subjects.SEED);
            for (int i = 0, removed = size.n - live(size.n, holes); i < removed; i++) {
                table.remove(handles[order[i]]);
            }
            if (table.size() != live(size.n, holes)) {
                throw new AssertionError("holey table has " + table.size() + " records");
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** The same removals from an AOS table: t is read every 32 bytes. */
    @State(Scope.Benchmark)
    public static class HoleyAos extends Holey {
        {
            t = Subjects.AOS.floatField("t");
        }

        @Override
        Table make(int n, long[] handles) {
            return Subjects.table(Subjects.AOS, n, handles);
        }
    }

    /** The same removals from a PackedTable: it has no holes, its rows stay dense. */
    @State(Scope.Benchmark)
    public static class HoleyPacked extends Holey {
        @Override
        Table make(int n, long[] handles) {
            return Subjects.packed(Subjects.SOA, n, handles);
        }
    }

    @Benchmark
    @Fork(3)
    public void floatArray(Columns s) {
        float[] px = s.px, py = s.py, pz = s.pz, vx = s.vx, vy = s.vy, vz = s.vz;
        for (int i = 0; i < px.length; i++) {
            px[i] += vx[i] * DT;
            py[i] += vy[i] * DT;
            pz[i] += vz[i] * DT;
        }
    }

    @Benchmark
    @Fork(3)
    public void bulkSoa(Bulk s) {
        try (ChunkIteration chunks = s.soa.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                updateColumns(chunks.chunk(c), Subjects.SOA);
            }
        }
    }

    /** Packed rows: every chunk is a dense prefix, so the loop needs no bitmap. */
    @Benchmark
    @Fork(3)
    public void packedSoa(Packed s) {
        try (ChunkIteration chunks = s.soa.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                updateDense(chunks.chunk(c), Subjects.SOA);
            }
        }
    }

    static void updateDense(Chunk chunk, Schema schema) {
        Field[] f = schema == Subjects.SOA ? SOA_FIELDS : fields(schema);
        MemorySegment px = chunk.writableColumn(f[0]);
        MemorySegment py = chunk.writableColumn(f[1]);
        MemorySegment pz = chunk.writableColumn(f[2]);
        MemorySegment vx = chunk.column(f[3]);
        MemorySegment vy = chunk.column(f[4]);
        MemorySegment vz = chunk.column(f[5]);
        for (int s = 0, live = chunk.liveCount(); s < live; s++) {
            px.setAtIndex(FU, s, px.getAtIndex(FU, s) + vx.getAtIndex(FU, s) * DT);
            py.setAtIndex(FU, s, py.getAtIndex(FU, s) + vy.getAtIndex(FU, s) * DT);
            pz.setAtIndex(FU, s, pz.getAtIndex(FU, s) + vz.getAtIndex(FU, s) * DT);
        }
    }

    @Benchmark
    @Fork(3)
    public void bulkAos(Bulk s) {
        try (ChunkIteration chunks = s.aos.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                updateRecords(chunks.chunk(c), Subjects.AOS);
            }
        }
    }

    @Benchmark
    public void arrayList(Heap s) {
        for (int i = 0, n = s.list.size(); i < n; i++) {
            update(s.list.get(i));
        }
    }

    /** The update of one heap particle. */
    static void update(Particle p) {
        p.px += p.vx * DT;
        p.py += p.vy * DT;
        p.pz += p.vz * DT;
    }

    /** Kotlin, record by record: {@code table.forEach { it[PX] += it[VX] * DT; ... }}. */
    @Benchmark
    @Fork(3)
    public float kotlin(KotlinTable s) {
        return KotlinWorkloads.update(s.table);
    }

    /** The Java column loop ({@link #bulkSoa}'s) over the chunks of {@link #kotlin}'s table: the pair for its ratio. */
    @Benchmark
    @Fork(3)
    public void kotlinColumns(KotlinTable s) {
        try (ChunkIteration chunks = s.table.core().iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                updateColumns(chunks.chunk(c), s.fields);
            }
        }
    }

    /** AOS: the same pass as {@link #holes}, reading t from each live record. */
    @Benchmark
    @Fork(3)
    public float holesAos(HoleyAos s) {
        float sum = 0;
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment records = chunk.records();
                long base = s.t.blockOffset();
                long stride = s.t.slotStride();
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    while (live != 0) {
                        int slot = (w << 6) + Long.numberOfTrailingZeros(live);
                        live &= live - 1;
                        sum += records.get(FU, base + slot * stride);
                    }
                }
            }
        }
        return sum;
    }

    /** PackedTable: every chunk's live records are its first {@code liveCount()} rows. */
    @Benchmark
    @Fork(3)
    public float holesPacked(HoleyPacked s) {
        float sum = 0;
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment t = chunk.column(s.t);
                for (int slot = 0, live = chunk.liveCount(); slot < live; slot++) {
                    sum += t.getAtIndex(F, slot);
                }
            }
        }
        return sum;
    }

    /** Sum of t over the live records of a table with holes. */
    @Benchmark
    @Fork(3)
    public float holes(Holey s) {
        float sum = 0;
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                MemorySegment t = chunk.column(s.t);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    while (live != 0) {
                        int slot = (w << 6) + Long.numberOfTrailingZeros(live);
                        live &= live - 1;
                        sum += t.getAtIndex(ValueLayout.JAVA_FLOAT, slot);
                    }
                }
            }
        }
        return sum;
    }
}
