package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SQL over live tables in DuckDB (1,000,000 particles, 100,000 voices referring to them through
 * a handle field), every answer compared with the same computation in Java.
 */
class DuckDbSqlTest {
    static final int PARTICLES = 1_000_000;
    static final int VOICES = 100_000;
    static final int REGIONS = 16;
    static final Schema P = Schema.builder("particles")
            .add(FieldType.FLOAT, "x", "y").add(FieldType.INT, "region", "age").add(FieldType.BOOLEAN, "hot").build();
    static final FloatField X = P.floatField("x");
    static final IntField REGION = P.intField("region");
    static final IntField AGE = P.intField("age");
    static final BooleanField HOT = P.booleanField("hot");
    static final Schema V = Schema.builder("voices").add(FieldType.INT, "level").addHandle("particle", "particles").build();
    static final IntField LEVEL = V.intField("level");
    static final HandleField PARTICLE = V.handleField("particle");

    static BulkTable particles;
    static BulkTable voices;
    static Connection db;
    static DuckDbViews views;
    static Random random;

    @BeforeAll
    static void fill() throws SQLException {
        random = ArrowExportTest.random("DuckDbSqlTest");
        particles = BulkTable.of(P);
        voices = BulkTable.of(V);
        long[] hs = new long[PARTICLES];
        for (int i = 0; i < PARTICLES; i++) {
            long h = particles.add();
            hs[i] = h;
            particles.set(h, X, random.nextFloat());
            particles.set(h, P.floatField("y"), random.nextFloat());
            particles.set(h, REGION, random.nextInt(REGIONS));
            particles.set(h, AGE, random.nextInt(1000));
            particles.set(h, HOT, random.nextInt(4) == 0);
        }
        for (int i = 0; i < VOICES; i++) {
            long v = voices.add();
            voices.set(v, LEVEL, random.nextInt(100));
            voices.set(v, PARTICLE, hs[random.nextInt(PARTICLES)]);
        }
        for (int i = 0; i < PARTICLES / 100; i++) {       // 1 % gone: holes, and stale references
            long h = hs[random.nextInt(PARTICLES)];
            if (particles.contains(h)) {
                particles.remove(h);
            }
        }
        db = DriverManager.getConnection("jdbc:duckdb:");
        views = new DuckDbViews(db);
    }

    @AfterAll
    static void close() throws SQLException {
        views.close();
        db.close();
        particles.close();
        voices.close();
    }

    private static List<List<Object>> query(String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(sql)) {
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                List<Object> row = new ArrayList<>();
                for (int c = 1; c <= n; c++) {
                    Object o = r.getObject(c);
                    row.add(o instanceof Number num && !(o instanceof Float || o instanceof Double) ? num.longValue() : o);
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** Registers the particles, runs the query, checks that DuckDB released the stream. */
    private static List<List<Object>> overParticles(String sql) throws SQLException {
        ArrowStream stream = views.register("particles", particles);
        List<List<Object>> rows = query(sql);
        assertTrue(stream.isReleased(), "DuckDB released every array and the stream");
        return rows;
    }

    @Test
    void countAndFilter() throws SQLException {
        long count = 0;
        long ageSum = 0;
        long all = 0;
        try (var chunks = particles.iterate()) {
            for (var chunk : chunks) {
                for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                    all++;
                    if (chunk.get(s, X) > 0.25f && chunk.get(s, REGION) == 3 && chunk.get(s, HOT)) {
                        count++;
                        ageSum += chunk.get(s, AGE);
                    }
                }
            }
        }
        assertEquals(particles.size(), all);
        assertEquals(List.of(List.of(all)), overParticles("SELECT count(*) FROM particles"));
        assertEquals(List.of(List.of(count, ageSum)), overParticles(
                "SELECT count(*), sum(age) FROM particles WHERE x > 0.25 AND region = 3 AND hot"));
    }

    @Test
    void groupBy() throws SQLException {
        long[] count = new long[REGIONS];
        long[] ages = new long[REGIONS];
        float[] min = new float[REGIONS];
        double[] sumX = new double[REGIONS];
        Arrays.fill(min, Float.MAX_VALUE);
        particles.forEach((chunk, s) -> {
            int r = chunk.get(s, REGION);
            count[r]++;
            ages[r] += chunk.get(s, AGE);
            min[r] = Math.min(min[r], chunk.get(s, X));
            sumX[r] += chunk.get(s, X);
        });
        List<List<Object>> rows = overParticles(
                "SELECT region, count(*), sum(age), min(x), sum(x) FROM particles GROUP BY region ORDER BY region");
        assertEquals(REGIONS, rows.size());
        for (int r = 0; r < REGIONS; r++) {
            List<Object> row = rows.get(r);
            assertEquals(List.of((long) r, count[r], ages[r]), row.subList(0, 3));
            assertEquals(min[r], ((Number) row.get(3)).floatValue());
            assertEquals(sumX[r], ((Number) row.get(4)).doubleValue(), Math.abs(sumX[r]) * 1e-9);
        }
    }

    @Test
    void joinThroughAHandleField() throws SQLException {
        TreeMap<Long, long[]> expected = new TreeMap<>();
        voices.forEach((chunk, s) -> {
            long p = chunk.get(s, PARTICLE);
            if (particles.contains(p)) {
                long[] e = expected.computeIfAbsent((long) particles.get(p, REGION), k -> new long[2]);
                e[0]++;
                e[1] += chunk.get(s, LEVEL);
            }
        });
        views.register("particles", particles);
        views.register("voices", voices);
        List<List<Object>> rows = query("SELECT p.region, count(*), sum(v.level) FROM voices v"
                + " JOIN particles p ON v.particle = p.handle GROUP BY p.region ORDER BY p.region");
        List<List<Object>> want = new ArrayList<>();
        expected.forEach((r, e) -> want.add(List.of(r, e[0], e[1])));
        assertEquals(want, rows);
    }

    @Test
    void windowFunction() throws SQLException {
        long[] best = new long[REGIONS];                // per region: the oldest, the smallest handle on a tie
        int[] bestAge = new int[REGIONS];
        Arrays.fill(bestAge, -1);
        particles.forEach((chunk, s) -> {
            int r = chunk.get(s, REGION);
            int age = chunk.get(s, AGE);
            long h = chunk.handle(s);
            if (age > bestAge[r] || age == bestAge[r] && h < best[r]) {
                bestAge[r] = age;
                best[r] = h;
            }
        });
        List<List<Object>> rows = overParticles("SELECT region, handle, age FROM (SELECT region, handle, age,"
                + " row_number() OVER (PARTITION BY region ORDER BY age DESC, handle) AS rn FROM particles)"
                + " WHERE rn = 1 ORDER BY region");
        for (int r = 0; r < REGIONS; r++) {
            assertEquals(List.of((long) r, best[r], (long) bestAge[r]), rows.get(r));
        }
    }

    @Test
    void liveTableBetweenQueries() throws SQLException {
        long before = particles.size();
        assertEquals(List.of(List.of(before)), overParticles("SELECT count(*) FROM particles"));
        long h = particles.add();                       // writable again once DuckDB released the stream
        particles.set(h, AGE, 5000);
        assertEquals(List.of(List.of(before + 1, 5000L)), overParticles("SELECT count(*), max(age) FROM particles"));
        particles.remove(h);
        views.register("particles", particles);
        query("SELECT count(*) FROM particles");
        SQLException again = assertThrows(SQLException.class, () -> query("SELECT count(*) FROM particles"));
        assertTrue(again.getMessage().contains("released"), again.getMessage());   // one scan per registration
    }

    @Test
    void incrementalView() throws SQLException {
        int since = particles.markVersion();
        particles.forEach((chunk, s) -> { });
        long changed = 0;
        try (var chunks = particles.iterate()) {
            for (int i = 0; i < chunks.count(); i += 100) {            // one chunk in a hundred
                var chunk = chunks.chunk(i);
                int s = chunk.nextLive(0);
                chunk.set(s, AGE, chunk.get(s, AGE));
                changed += chunk.liveCount();
            }
        }
        ArrowStream stream = views.registerChanged("changed", ArrowExport.of(particles).withHandles("handle"),
                ChangeFilter.of(AGE), since);
        assertEquals(List.of(List.of(changed)), query("SELECT count(*) FROM changed"));
        assertTrue(stream.isReleased());
    }

    @Test
    void parquetWrittenByCopyReadsBack() throws Exception {
        Path dir = Path.of(System.getProperty("test.output", "target/test-output"));
        Files.createDirectories(dir);
        Path file = dir.resolve("particles.parquet");
        Files.deleteIfExists(file);
        long[] count = new long[REGIONS];
        long[] ages = new long[REGIONS];
        particles.forEach((chunk, s) -> {
            count[chunk.get(s, REGION)]++;
            ages[chunk.get(s, REGION)] += chunk.get(s, AGE);
        });
        ArrowStream stream = views.register("particles", particles);
        try (Statement sql = db.createStatement()) {
            sql.execute("COPY (SELECT * FROM particles) TO '" + file + "' (FORMAT parquet)");
        }
        assertTrue(stream.isReleased());
        assertTrue(Files.size(file) > 0);
        List<List<Object>> rows = query("SELECT region, count(*), sum(age), count(DISTINCT handle) FROM read_parquet('"
                + file + "') GROUP BY region ORDER BY region");
        for (int r = 0; r < REGIONS; r++) {
            assertEquals(List.of((long) r, count[r], ages[r], count[r]), rows.get(r));
        }
    }

    @Test
    void aViewNoQueryTookIsReleasedByRegisteringAgainOrClose() throws SQLException {
        try (BulkTable t = BulkTable.of(V)) {
            t.add();
            DuckDbViews own = new DuckDbViews(db);
            ArrowStream first = own.register("small", t);
            assertThrows(java.util.ConcurrentModificationException.class, t::add);
            assertThrows(IllegalStateException.class, t::close);
            ArrowStream second = own.register("small", t);     // replaces the view; the first stream is freed
            assertTrue(first.isReleased());
            assertTrue(!second.isReleased());
            own.close();
            assertTrue(second.isReleased());
            assertThrows(IllegalStateException.class, () -> own.register("small", t));
            t.add();
        }
        Connection notDuckDb = (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    throw new SQLException("not a database");
                });
        assertThrows(IllegalArgumentException.class, () -> new DuckDbViews(notDuckDb));
        assertThrows(IllegalArgumentException.class, () -> new DuckDbViews(null));
    }
}
