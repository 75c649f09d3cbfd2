package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.arrow.ArrowExport;
import dev.bulkdata.storage.arrow.ArrowStream;
import dev.bulkdata.storage.arrow.DuckDbViews;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
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

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * SQL over a table through the Arrow C stream of storage-arrow, at {@code n} 32-byte records
 * (seven floats and an int {@code region} of 16): {@code SELECT region, sum(x), count(*) ...
 * GROUP BY region}.
 * <ul>
 * <li>{@link #exportAndQuery}: register the table as a DuckDB view (export) and run the query;
 * <li>{@link #duckDbTableQuery}: the same query over a DuckDB table holding the same records
 *     (filled once, with DuckDB's appender);
 * <li>{@link #duckDbAppendAndQuery}: that table made, filled with the appender and queried;
 * <li>{@link #vectorSchemaRootCopyAndQuery}: the table copied into an Arrow Java
 *     {@code VectorSchemaRoot} (one vector per field, filled with {@code set(row, value)}),
 *     handed to DuckDB as an Arrow stream by Arrow Java's C Data bridge, and queried; its fork
 *     opens {@code java.nio} to Arrow Java's allocator, which needs it on JDK 25;
 * <li>{@link #javaLoop}: the same aggregate in a plain loop over the table's chunks;
 * <li>{@link #fullExport} and {@link #incrementalExport}: an export consumed by a C-interface
 *     consumer (every array taken and released), of every chunk, and of the chunks changed since
 *     the last export after a frame that wrote 1 % of them.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {ArrowBenchmark.XMX, ArrowBenchmark.NATIVE_ACCESS})
public class ArrowBenchmark {
    static final String XMX = "-Xmx4g";
    /** storage-arrow's upcalls and DuckDB's native library, without the JVM's warning. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** Arrow Java's allocator reads a direct buffer's address field, which JDK 25 keeps closed. */
    static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    static final String QUERY = "SELECT region, sum(x), count(*) FROM %s GROUP BY region";
    static final Schema SCHEMA = Schema.builder("particles")
            .add(FieldType.FLOAT, "x", "y", "z", "vx", "vy", "vz", "t").add(FieldType.INT, "region").build();
    static final FloatField X = SCHEMA.floatField("x");
    static final IntField REGION = SCHEMA.intField("region");

    @State(Scope.Benchmark)
    public static class Db {
        BulkTable table;
        long[] firstOfChunk;
        DuckDBConnection db;
        DuckDbViews views;
        Statement sql;
        ArrowExport export;
        ChangeFilter changes = ChangeFilter.of(X);
        int since;
        int cursor;
        Arena arena;
        MemorySegment array;

        @Setup(Level.Trial)
        public void setUp(Size size) throws SQLException {
            table = BulkTable.of(SCHEMA);
            Random random = new Random(42);
            for (int i = 0; i < size.n; i++) {
                long h = table.add();
                table.set(h, X, random.nextFloat());
                table.set(h, REGION, random.nextInt(16));
            }
            try (ChunkIteration chunks = table.iterate()) {
                firstOfChunk = new long[chunks.count()];
                for (Chunk c : chunks) {
                    firstOfChunk[c.index()] = c.handle(c.nextLive(0));
                }
            }
            db = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
            views = new DuckDbViews(db);
            sql = db.createStatement();
            append("native");
            export = ArrowExport.of(table);
            since = table.markVersion();
            arena = Arena.ofConfined();
            array = arena.allocate(80, 8);
        }

        void append(String name) throws SQLException {
            sql.execute("CREATE OR REPLACE TABLE " + name
                    + " (x FLOAT, y FLOAT, z FLOAT, vx FLOAT, vy FLOAT, vz FLOAT, t FLOAT, region INTEGER)");
            try (DuckDBAppender appender = db.createAppender(DuckDBConnection.DEFAULT_SCHEMA, name)) {
                table.forEach((chunk, s) -> {
                    try {
                        appender.beginRow();
                        appender.append(chunk.get(s, X));
                        for (int f = 1; f < 7; f++) {
                            appender.append(0f);
                        }
                        appender.append(chunk.get(s, REGION));
                        appender.endRow();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }

        double query(String table) throws SQLException {
            double checksum = 0;
            try (ResultSet r = sql.executeQuery(String.format(QUERY, table))) {
                while (r.next()) {
                    checksum += r.getDouble(2) + r.getLong(3);
                }
            }
            return checksum;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws SQLException {
            views.close();
            sql.close();
            db.close();
            table.close();
            arena.close();
        }
    }

    @Benchmark
    @Fork(3)
    public double exportAndQuery(Db d) throws SQLException {
        d.views.register("particles", d.table);
        return d.query("particles");
    }

    @Benchmark
    @Fork(3)
    public double duckDbTableQuery(Db d) throws SQLException {
        return d.query("native");
    }

    @Benchmark
    @Fork(3)
    public double duckDbAppendAndQuery(Db d) throws SQLException {
        d.append("appended");
        return d.query("appended");
    }

    /** Arrow Java's allocator, made only in the fork of {@link #vectorSchemaRootCopyAndQuery}. */
    @State(Scope.Benchmark)
    public static class ArrowJava {
        BufferAllocator allocator;

        @Setup(Level.Trial)
        public void setUp() {
            allocator = new RootAllocator();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            allocator.close();                      // fails if a copy was not freed
        }
    }

    /**
     * (b): the table copied into a {@code VectorSchemaRoot}, exported to DuckDB through Arrow
     * Java's C Data bridge and queried; the copy, the export and the release are in the time.
     */
    @Benchmark
    // JMH takes each @Fork attribute from the method if it sets it, else from the class: a
    // method's jvmArgsAppend replaces the class's, which are therefore repeated here.
    @Fork(jvmArgsAppend = {XMX, NATIVE_ACCESS, OPEN_NIO})
    public double vectorSchemaRootCopyAndQuery(Db d, ArrowJava a) throws SQLException {
        VectorSchemaRoot root = copy(d.table, a.allocator);
        try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(a.allocator)) {
            // The reader owns the root from here: DuckDB's release of the stream closes both.
            Data.exportArrayStream(a.allocator, new RootReader(a.allocator, root), stream);
            d.db.registerArrowStream("rootcopy", stream);
            return d.query("rootcopy");
        }
    }

    /** The live records of the table, copied into one Arrow Java vector per field. */
    static VectorSchemaRoot copy(BulkTable table, BufferAllocator allocator) {
        int n = table.size();
        List<FieldVector> vectors = new ArrayList<>();
        FloatField[] floatFields = new FloatField[7];
        Float4Vector[] floats = new Float4Vector[7];
        for (int f = 0; f < 7; f++) {
            floatFields[f] = (FloatField) SCHEMA.fields().get(f);
            floats[f] = new Float4Vector(floatFields[f].name(), allocator);
            floats[f].allocateNew(n);
            vectors.add(floats[f]);
        }
        IntVector region = new IntVector(REGION.name(), allocator);
        region.allocateNew(n);
        vectors.add(region);
        MemorySegment[] columns = new MemorySegment[7];
        int row = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (Chunk chunk : chunks) {
                for (int f = 0; f < 7; f++) {
                    columns[f] = chunk.column(floatFields[f]);
                }
                MemorySegment regions = chunk.column(REGION);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    while (live != 0) {
                        int s = (w << 6) + Long.numberOfTrailingZeros(live);
                        live &= live - 1;
                        for (int f = 0; f < 7; f++) {
                            floats[f].set(row, columns[f].getAtIndex(ValueLayout.JAVA_FLOAT, s));
                        }
                        region.set(row, regions.getAtIndex(ValueLayout.JAVA_INT, s));
                        row++;
                    }
                }
            }
        }
        VectorSchemaRoot root = new VectorSchemaRoot(vectors);
        root.setRowCount(row);
        return root;
    }

    /** One batch: a {@code VectorSchemaRoot} as an {@code ArrowReader}, for Arrow Java's stream export. */
    static final class RootReader extends ArrowReader {
        private final VectorSchemaRoot source;
        private boolean read;

        RootReader(BufferAllocator allocator, VectorSchemaRoot source) {
            super(allocator);
            this.source = source;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            prepareLoadNextBatch();
            if (read) {
                return false;
            }
            read = true;
            try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
                loadRecordBatch(batch);             // the reader's root takes the buffers, no copy
            }
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
            source.close();
        }

        @Override
        protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
            return source.getSchema();
        }
    }

    @Benchmark
    public double javaLoop(Db d) {
        double[] sum = new double[16];
        long[] count = new long[16];
        try (ChunkIteration chunks = d.table.iterate()) {
            for (Chunk chunk : chunks) {
                MemorySegment x = chunk.column(X);
                MemorySegment region = chunk.column(REGION);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long live = chunk.liveBits(w);
                    while (live != 0) {
                        int s = (w << 6) + Long.numberOfTrailingZeros(live);
                        live &= live - 1;
                        int r = region.getAtIndex(ValueLayout.JAVA_INT, s);
                        sum[r] += x.getAtIndex(ValueLayout.JAVA_FLOAT, s);
                        count[r]++;
                    }
                }
            }
        }
        double checksum = 0;
        for (int r = 0; r < 16; r++) {
            checksum += sum[r] + count[r];
        }
        return checksum;
    }

    private static final MethodHandle GET_NEXT = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle RELEASE = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));

    /** Takes and releases every array of the stream, as a C consumer would; returns their rows. */
    static long consume(ArrowStream stream, MemorySegment array) throws Throwable {
        MemorySegment s = stream.struct();
        long rows = 0;
        while (true) {
            int rc = (int) GET_NEXT.invokeExact(s.get(ValueLayout.ADDRESS, 8), s, array);
            if (rc != 0) {
                throw new IllegalStateException("get_next: " + rc);
            }
            MemorySegment release = array.get(ValueLayout.ADDRESS, 64);
            if (release.address() == 0) {
                break;
            }
            rows += array.get(ValueLayout.JAVA_LONG, 0);
            RELEASE.invokeExact(release, array);
        }
        RELEASE.invokeExact(s.get(ValueLayout.ADDRESS, 24), s);
        return rows;
    }

    @Benchmark
    @Fork(3)
    public long fullExport(Db d) throws Throwable {
        return consume(d.export.open(), d.array);
    }

    /** A frame that writes 1 % of the chunks (one record each), then the export of what changed. */
    @Benchmark
    @Fork(3)
    public long incrementalExport(Db d) throws Throwable {
        int writes = Math.max(1, d.firstOfChunk.length / 100);
        for (int i = 0; i < writes; i++) {
            long h = d.firstOfChunk[d.cursor];
            d.cursor = (d.cursor + 97) % d.firstOfChunk.length;
            d.table.set(h, X, d.table.get(h, X) + 1f);
        }
        long rows = consume(d.export.open(d.changes, d.since), d.array);
        d.since = d.table.markVersion();
        return rows;
    }
}
