package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Change versions: one frame on {@code n} records in which 1 % of the chunks are written (one
 * record each, by handle), then a pass that copies the position columns ({@code px},
 * {@code py}, {@code pz}) of the chunks to upload into a staging buffer, as a renderer would:
 * {@link #filteredPass} only the chunks whose positions changed since the last frame
 * ({@code forEachChunk(ChangeFilter, since, ...)}), {@link #fullPass} every chunk. Both end the
 * frame with {@code markVersion()}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class ChangeVersionBenchmark {

    /** A table, one handle per chunk (its first record), and a staging buffer for every chunk's positions. */
    @State(Scope.Benchmark)
    public static class Frame {
        BulkTable table;
        FloatField px = Subjects.SOA.floatField("px");
        FloatField py = Subjects.SOA.floatField("py");
        FloatField pz = Subjects.SOA.floatField("pz");
        ChangeFilter positions = ChangeFilter.of(px, py, pz);
        /** The first record of each chunk. */
        long[] firstOfChunk;
        /** Chunks written per frame: 1 % of them, at least one. */
        int writesPerFrame;
        int cursor;
        int since;
        Arena arena;
        MemorySegment staging;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            long[] handles = new long[size.n];
            table = Subjects.table(Subjects.SOA, size.n, handles);
            int perChunk = Subjects.SOA.slotsPerBlock();
            int chunks = (size.n + perChunk) / perChunk;
            firstOfChunk = new long[chunks];
            // Slot 0 is the free-list header: the first chunk's first record is handles[0] (slot 1).
            for (int c = 0; c < chunks; c++) {
                firstOfChunk[c] = handles[Math.max(0, c * perChunk - 1)];
            }
            writesPerFrame = Math.max(1, chunks / 100);
            arena = Arena.ofShared();
            staging = arena.allocate((long) chunks * 3 * perChunk * Float.BYTES, 64);
            since = table.markVersion();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
            arena.close();
        }

        /** The frame's writes: one record in each of the next 1 % of the chunks, round robin. */
        void write() {
            long[] first = firstOfChunk;
            for (int i = 0; i < writesPerFrame; i++) {
                long h = first[cursor];
                table.set(h, px, table.get(h, px) + 1f);
                cursor = cursor + 1 == first.length ? 0 : cursor + 1;
            }
        }

        /** Copies a chunk's three position columns into its place in the staging buffer; returns the bytes. */
        long upload(Chunk chunk) {
            long column = (long) chunk.slotCount() * Float.BYTES;
            long at = (long) chunk.index() * 3 * column;
            MemorySegment.copy(chunk.column(px), 0, staging, at, column);
            MemorySegment.copy(chunk.column(py), 0, staging, at + column, column);
            MemorySegment.copy(chunk.column(pz), 0, staging, at + 2 * column, column);
            return 3 * column;
        }
    }

    /** The frame, then a pass over the chunks whose positions changed since the last frame. */
    @Benchmark
    @Fork(3)
    public long filteredPass(Frame s) {
        s.write();
        long bytes = 0;
        try (ChunkIteration chunks = s.table.iterate(s.positions, s.since)) {
            for (Chunk chunk : chunks) {
                bytes += s.upload(chunk);
            }
        }
        s.since = s.table.markVersion();
        return bytes;
    }

    /** The frame, then a pass over every chunk. */
    @Benchmark
    @Fork(3)
    public long fullPass(Frame s) {
        s.write();
        long bytes = 0;
        try (ChunkIteration chunks = s.table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                bytes += s.upload(chunks.chunk(c));
            }
        }
        s.since = s.table.markVersion();
        return bytes;
    }
}
