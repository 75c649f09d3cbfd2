package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
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
import java.util.concurrent.TimeUnit;

/**
 * The particle pass with expiry: {@code p += v * dt} and {@code t -= dt} over {@code n}
 * records, a tenth of which expire in the pass and are removed. Removed through the queue
 * ({@link Chunk#removeLater}, applied when the pass ends) against the same pass removing
 * nothing followed by {@code removeAll} of the same records (what the queue costs over the
 * least any program does), and against the hand-written queue (handles collected in an array
 * during the pass, {@code removeAll} after). Before each call the tenth is added back into the
 * slots the last call freed, so every call starts from a table of the same shape.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class QueuedChangesBenchmark {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final float DT = UpdateBenchmark.DT;
    private static final float LONG_LIFE = 1e9f;
    private static final Field[] FIELDS = UpdateBenchmark.fields(Subjects.SOA);
    private static final FloatField T = Subjects.SOA.floatField("t");

    /** A table of {@code n} records, a tenth of them (every tenth slot) expiring in the next pass. */
    @State(Scope.Thread)
    public static class Particles {
        BulkTable table;
        /** The expiring records' handles, for removeAll and the hand-written queue. */
        long[] expiring;
        long[] collected;
        int collectedCount;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            long[] all = new long[size.n];
            table = Subjects.table(Subjects.SOA, size.n, all);
            for (long h : all) {
                table.set(h, T, LONG_LIFE);
            }
            expiring = new long[size.n / 10];
            collected = new long[expiring.length];
            for (int i = 0; i < expiring.length; i++) {
                expiring[i] = all[i * 10 + 3];
            }
            table.removeAll(expiring);
        }

        /** Adds the tenth back into the slots the last call freed, expiring in the next pass. */
        @Setup(Level.Invocation)
        public void refill() {
            if (table.size() == expiring.length * 10) {
                table.removeAll(expiring);             // the pass removed nothing (a broken run): start over
            }
            table.addAll(expiring);
            for (long h : expiring) {
                table.set(h, T, DT / 2);
            }
            collectedCount = 0;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** {@code p += v * dt} and {@code t -= dt} of slot {@code s}; {@return whether the record expired} */
    private static boolean step(MemorySegment t, MemorySegment px, MemorySegment py, MemorySegment pz,
                                MemorySegment vx, MemorySegment vy, MemorySegment vz, int s) {
        px.setAtIndex(F, s, px.getAtIndex(F, s) + vx.getAtIndex(F, s) * DT);
        py.setAtIndex(F, s, py.getAtIndex(F, s) + vy.getAtIndex(F, s) * DT);
        pz.setAtIndex(F, s, pz.getAtIndex(F, s) + vz.getAtIndex(F, s) * DT);
        float life = t.getAtIndex(F, s) - DT;
        t.setAtIndex(F, s, life);
        return life <= 0f;
    }

    /** The pass, removing nothing: counts the expired records. */
    private static int passCounting(BulkTable table) {
        int[] expired = new int[1];
        table.forEachChunk(chunk -> {
            MemorySegment t = chunk.writableColumn(T);
            MemorySegment px = chunk.writableColumn(FIELDS[0]);
            MemorySegment py = chunk.writableColumn(FIELDS[1]);
            MemorySegment pz = chunk.writableColumn(FIELDS[2]);
            MemorySegment vx = chunk.column(FIELDS[3]);
            MemorySegment vy = chunk.column(FIELDS[4]);
            MemorySegment vz = chunk.column(FIELDS[5]);
            int n = chunk.slotCount();
            int count = 0;
            if (chunk.liveCount() == n) {
                for (int s = 0; s < n; s++) {
                    if (step(t, px, py, pz, vx, vy, vz, s)) {
                        count++;
                    }
                }
            } else {
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {
                        if (step(t, px, py, pz, vx, vy, vz, (w << 6) + Long.numberOfTrailingZeros(live))) {
                            count++;
                        }
                    }
                }
            }
            expired[0] += count;
        });
        return expired[0];
    }

    /** The pass removing the expired records through the queue, applied when it ends. */
    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
    public int passQueuingRemovals(Particles p) {
        p.table.forEachChunk(chunk -> {
            MemorySegment t = chunk.writableColumn(T);
            MemorySegment px = chunk.writableColumn(FIELDS[0]);
            MemorySegment py = chunk.writableColumn(FIELDS[1]);
            MemorySegment pz = chunk.writableColumn(FIELDS[2]);
            MemorySegment vx = chunk.column(FIELDS[3]);
            MemorySegment vy = chunk.column(FIELDS[4]);
            MemorySegment vz = chunk.column(FIELDS[5]);
            int n = chunk.slotCount();
            if (chunk.liveCount() == n) {
                for (int s = 0; s < n; s++) {
                    if (step(t, px, py, pz, vx, vy, vz, s)) {
                        chunk.removeLater(s);
                    }
                }
            } else {
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {
                        int s = (w << 6) + Long.numberOfTrailingZeros(live);
                        if (step(t, px, py, pz, vx, vy, vz, s)) {
                            chunk.removeLater(s);
                        }
                    }
                }
            }
        });
        return p.table.size();
    }

    /** The same pass removing nothing, then {@code removeAll} of the records it found expired: the least any program does. */
    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
    public int passThenRemoveAll(Particles p) {
        int expired = passCounting(p.table);
        p.table.removeAll(p.expiring);
        return expired + p.table.size();
    }

    /** The hand-written queue: the pass collects the expired records' handles, {@code removeAll} after it. */
    @Benchmark
    public int passCollectingHandles(Particles p) {
        p.table.forEachChunk(chunk -> {
            MemorySegment t = chunk.writableColumn(T);
            MemorySegment px = chunk.writableColumn(FIELDS[0]);
            MemorySegment py = chunk.writableColumn(FIELDS[1]);
            MemorySegment pz = chunk.writableColumn(FIELDS[2]);
            MemorySegment vx = chunk.column(FIELDS[3]);
            MemorySegment vy = chunk.column(FIELDS[4]);
            MemorySegment vz = chunk.column(FIELDS[5]);
            int n = chunk.slotCount();
            if (chunk.liveCount() == n) {
                for (int s = 0; s < n; s++) {
                    if (step(t, px, py, pz, vx, vy, vz, s)) {
                        p.collected[p.collectedCount++] = chunk.handle(s);
                    }
                }
            } else {
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {
                        int s = (w << 6) + Long.numberOfTrailingZeros(live);
                        if (step(t, px, py, pz, vx, vy, vz, s)) {
                            p.collected[p.collectedCount++] = chunk.handle(s);
                        }
                    }
                }
            }
        });
        p.table.removeAll(p.collected, 0, p.collectedCount);
        return p.table.size();
    }

    /** The record pass ({@code forEach}) with typed slot access, removing through the queue. */
    @Benchmark
    public int forEachQueuingRemovals(Particles p) {
        BulkTable table = p.table;
        table.forEach((chunk, s) -> {
            chunk.set(s, FIELDS_PX, chunk.get(s, FIELDS_PX) + chunk.get(s, FIELDS_VX) * DT);
            chunk.set(s, FIELDS_PY, chunk.get(s, FIELDS_PY) + chunk.get(s, FIELDS_VY) * DT);
            chunk.set(s, FIELDS_PZ, chunk.get(s, FIELDS_PZ) + chunk.get(s, FIELDS_VZ) * DT);
            float life = chunk.get(s, T) - DT;
            chunk.set(s, T, life);
            if (life <= 0f) {
                chunk.removeLater(s);
            }
        });
        return table.size();
    }

    private static final FloatField FIELDS_PX = (FloatField) FIELDS[0];
    private static final FloatField FIELDS_PY = (FloatField) FIELDS[1];
    private static final FloatField FIELDS_PZ = (FloatField) FIELDS[2];
    private static final FloatField FIELDS_VX = (FloatField) FIELDS[3];
    private static final FloatField FIELDS_VY = (FloatField) FIELDS[4];
    private static final FloatField FIELDS_VZ = (FloatField) FIELDS[5];
}
