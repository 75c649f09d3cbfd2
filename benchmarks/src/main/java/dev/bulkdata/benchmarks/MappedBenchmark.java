package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.MappedBulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Workload 10, mapped tables (files in the system's temporary directory, on the machine's
 * disk): {@code checkpoint()} after 1 % of n standard records changed, or 1 % of the chunks
 * (also with block checksums); opening a mapped table
 * of 1 GiB at n = 1M (its metadata is read, never its blocks); and the
 * column loop over a mapped table whose pages are in memory, against the same loop over a
 * table in memory ({@link IterateBenchmark#bulkSoaColumns}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "--enable-native-access=ALL-UNNAMED"})
public class MappedBenchmark {
    private static final int TAG = 4090;

    static Path directory() throws IOException {
        return Files.createTempDirectory("bulkdata-mapped-bench");
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** A mapped table of n records, checkpointed. */
    @State(Scope.Benchmark)
    public static class Mapped {
        Path dir;
        MappedBulkTable table;
        long[] handles;
        FloatField px = Subjects.SOA.floatField("px");
        int next;
        float value;

        @Setup(Level.Trial)
        public void setUp(Size size) throws IOException {
            dir = directory();
            handles = new long[size.n];
            table = Subjects.fill(open(dir.resolve("table.bulk")), size.n, handles);
            table.checkpoint();
            IterateBenchmark.sumColumn(table, Subjects.SOA.floatField("t")); // every page in memory
        }

        /** Creates the mapped table. */
        MappedBulkTable open(Path file) throws IOException {
            return BulkTable.builder(Subjects.SOA).tag(TAG).mapped(file);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            table.close();
            delete(dir);
        }
    }

    /** The same table with a CRC32C per block ({@code blockChecksums(true)}). */
    @State(Scope.Benchmark)
    public static class Summed extends Mapped {
        @Override
        MappedBulkTable open(Path file) throws IOException {
            return BulkTable.builder(Subjects.SOA).tag(TAG - 1).blockChecksums(true).mapped(file);
        }
    }

    /** Changes 1 % of the records (one field each, spread over the table), then checkpoints. */
    @Benchmark
    public static int checkpointAfterOnePercent(Mapped s) throws IOException {
        int n = s.handles.length;
        int changes = Math.max(1, n / 100);
        for (int i = 0; i < changes; i++) {
            s.next = (s.next + 99_991) % n;
            s.table.set(s.handles[s.next], s.px, s.value++);
        }
        s.table.checkpoint();
        return changes;
    }

    /**
     * A frame that touches 1 % of the chunks, then a checkpoint: in every hundredth chunk, one
     * record removed and one added (it reuses the hole, a new generation) and px written in
     * each of its records (about 1 % of the records). The blocks' other pages and the other
     * chunks' metadata pages stay as they were, so the checkpoint writes only what changed.
     */
    @Benchmark
    public static int checkpointAfterOnePercentOfChunks(Mapped s) throws IOException {
        return onePercentOfChunks(s);
    }

    /**
     * {@link #checkpointAfterOnePercentOfChunks} on a table with block checksums: the
     * checkpoint also computes the CRC32C of the 1 % of blocks changed (by their change
     * versions) and writes them into the metadata; the stamps of the sets are in the time too.
     */
    @Benchmark
    public static int checkpointAfterOnePercentOfChunksSummed(Summed s) throws IOException {
        return onePercentOfChunks(s);
    }

    private static int onePercentOfChunks(Mapped s) throws IOException {
        int n = s.handles.length;
        int perChunk = Subjects.SOA.slotsPerBlock();
        int touched = 0;
        for (int first = 0; first + perChunk <= n; first += 100 * perChunk) {
            int victim = first + (s.next++ % perChunk);
            s.table.remove(s.handles[victim]);
            s.handles[victim] = s.table.add();
            for (int i = first; i < first + perChunk; i++) {
                s.table.set(s.handles[i], s.px, s.value);
            }
            s.value++;
            touched++;
        }
        s.table.checkpoint();
        return touched;
    }

    /** The column loop over the mapped table, paged in: compare with {@link IterateBenchmark#bulkSoaColumns}. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Fork(3)
    public static float iterateMapped(Mapped s) {
        return IterateBenchmark.sumColumn(s.table, Subjects.SOA.floatField("t"));
    }

    /**
     * A closed mapped file of {@code 32 * n} records of 32 bytes, or as many bytes in records of
     * 256 bytes (1 GiB at n = 1M: 32M or 4M slots), and the table each open gives.
     */
    @State(Scope.Benchmark)
    public static class Large {
        /** Bytes per record: opening costs per slot, so 1 GiB of large records opens faster. */
        @Param({"32", "256"})
        public int recordBytes;
        Path dir;
        Path file;
        Schema schema;
        BulkTable opened;

        @Setup(Level.Trial)
        public void setUp(Size size) throws IOException {
            dir = directory();
            file = dir.resolve("large.bulk");
            String[] names = new String[recordBytes / 4];
            for (int i = 0; i < names.length; i++) {
                names[i] = "f" + i;
            }
            schema = Schema.builder("large").add(FieldType.FLOAT, names).build();
            int records = (int) (32L * size.n * 32 / recordBytes);
            try (MappedBulkTable t = BulkTable.builder(schema).tag(TAG + 1).mapped(file)) {
                t.addAll(new long[records]);
            }
        }

        /** Closes the table an open made (close checkpoints): outside the measured time. */
        @TearDown(Level.Invocation)
        public void closeOpened() {
            if (opened != null) {
                opened.close();
                opened = null;
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            delete(dir);
        }
    }

    /** Opens the large file: reads the header and metadata, maps the regions, restores the index. */
    @Benchmark
    @Fork(3)
    public static int openLarge(Large s) throws IOException {
        s.opened = BulkTable.builder(s.schema).tag(TAG + 1).mapped(s.file);
        return s.opened.size();
    }
}
