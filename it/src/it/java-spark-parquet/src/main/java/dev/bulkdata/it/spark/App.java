package dev.bulkdata.it.spark;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.arrow.DuckDbViews;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The guide's recording of a run, read past the JVM that made it: two frames of a live table go to
 * Parquet (a view in one call, DuckDB's {@code COPY ... TO}), Apache Spark in {@code local[2]}
 * reads the directory, and its aggregates must equal the same ones computed in Java over the
 * table, value for value and type for type. Every x is a multiple of 0.25 and every sum stays far
 * below 2^53, so a sum is exact in any order: Spark's and Java's must be equal, not close.
 */
public final class App {
    static final int REGIONS = 8;

    public static void main(String[] args) throws Exception {
        Path run = Files.createDirectories(Path.of(args[0]));
        Schema schema = Schema.builder("particles").add(FieldType.FLOAT, "x").add(FieldType.INT, "region")
                .add(FieldType.BOOLEAN, "hot").build();
        FloatField x = schema.floatField("x");
        IntField region = schema.intField("region");
        BooleanField hot = schema.booleanField("hot");

        List<List<Object>> javaTotals = new ArrayList<>();
        List<List<Object>> javaRegions = new ArrayList<>();
        try (BulkTable particles = BulkTable.of(schema);
             Connection db = DriverManager.getConnection("jdbc:duckdb:");
             DuckDbViews views = new DuckDbViews(db);
             Statement sql = db.createStatement()) {
            long[] handles = new long[220_000];
            int n = 0;
            for (; n < 200_000; n++) {
                long h = handles[n] = particles.add();
                particles.set(h, x, (n % 1000) * 0.25f);
                particles.set(h, region, n % REGIONS);
                particles.set(h, hot, n % 3 == 0);
            }
            for (int i = 0; i < n; i += 5) {
                particles.remove(handles[i]);           // holes: chunks exported with a validity bitmap
            }
            for (int frame = 0; frame < 2; frame++) {
                if (frame == 1) {                        // a frame: some move, some fade, new ones fill holes
                    for (int i = 1; i < n; i += 2) {
                        if (particles.contains(handles[i])) {
                            particles.set(handles[i], x, particles.get(handles[i], x) + 1.5f);
                        }
                    }
                    for (int i = 0; i < n; i += 7) {
                        if (particles.contains(handles[i])) {
                            particles.remove(handles[i]);
                        }
                    }
                    for (; n < handles.length; n++) {
                        long h = handles[n] = particles.add();
                        particles.set(h, x, 2.0f);
                        particles.set(h, region, n % REGIONS);
                        particles.set(h, hot, true);
                    }
                }
                // Java's answers over the live table
                long count = 0;
                double sum = 0;
                float min = Float.POSITIVE_INFINITY, max = Float.NEGATIVE_INFINITY;
                long[] regionCount = new long[REGIONS], regionHot = new long[REGIONS];
                double[] regionSum = new double[REGIONS];
                for (int i = 0; i < n; i++) {
                    long h = handles[i];
                    if (particles.contains(h)) {
                        float v = particles.get(h, x);
                        int r = particles.get(h, region);
                        count++;
                        sum += v;
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                        regionCount[r]++;
                        regionSum[r] += v;
                        regionHot[r] += particles.get(h, hot) ? 1 : 0;
                    }
                }
                javaTotals.add(List.of(frame, count, count, sum, min, max));
                for (int r = 0; r < REGIONS; r++) {
                    javaRegions.add(List.of(frame, r, regionCount[r], regionSum[r], regionHot[r]));
                }
                // The guide's recording: a view of the live blocks, DuckDB's COPY to one file per frame
                views.register("particles", particles);
                Path file = run.resolve("frame-%04d.parquet".formatted(frame));
                sql.execute("COPY (SELECT " + frame + " AS frame, * FROM particles) TO '"
                        + file.toString().replace("'", "''") + "' (FORMAT parquet)");
            }
        }

        long start = System.nanoTime();
        SparkSession spark = SparkSession.builder().master("local[2]").appName("bulkdata-parquet")
                .config("spark.ui.enabled", "false").getOrCreate();
        try {
            spark.read().parquet(run.toString()).createOrReplaceTempView("run");
            List<List<Object>> sparkTotals = values(spark.sql(
                    "SELECT frame, count(*), count(DISTINCT handle), sum(x), min(x), max(x) FROM run"
                            + " GROUP BY frame ORDER BY frame").collectAsList());
            List<List<Object>> sparkRegions = values(spark.sql(
                    "SELECT frame, region, count(*), sum(x), count_if(hot) FROM run"
                            + " GROUP BY frame, region ORDER BY frame, region").collectAsList());
            compare("frame, count, distinct handles, sum(x), min(x), max(x)", javaTotals, sparkTotals);
            compare("frame, region, count, sum(x), hot", javaRegions, sparkRegions);
            for (List<Object> row : sparkTotals) {
                System.out.println("spark: frame " + row.get(0) + ": " + row.get(1) + " rows, " + row.get(2)
                        + " handles, sum(x) " + row.get(3) + ", x in [" + row.get(4) + ", " + row.get(5) + "]");
            }
        } finally {
            spark.stop();
        }
        System.out.printf("java-spark-parquet: Spark read %d Parquet files, %d aggregate rows equal Java's (Spark: %d ms)%n",
                Files.list(run).filter(f -> f.toString().endsWith(".parquet")).count(),
                javaTotals.size() + javaRegions.size(), (System.nanoTime() - start) / 1_000_000);
    }

    static List<List<Object>> values(List<Row> rows) {
        List<List<Object>> values = new ArrayList<>();
        for (Row row : rows) {
            Object[] v = new Object[row.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = row.get(i);
            }
            values.add(Arrays.asList(v));
        }
        return values;
    }

    /** Equal values of equal types (a Long is not an Integer), row for row, or the check fails. */
    static void compare(String columns, List<List<Object>> java, List<List<Object>> spark) {
        if (!java.equals(spark)) {
            throw new AssertionError("Spark's (" + columns + ") differ from Java's:\n  Java:  " + java
                    + "\n  Spark: " + spark);
        }
    }
}
