package dev.bulkdata.it.arrow;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.arrow.DuckDbViews;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/** The guide's first steps: a table, a view in one call, SQL, the answer checked against Java. */
public final class App {
    public static void main(String[] args) throws Exception {
        Schema schema = Schema.builder("particles").add(FieldType.FLOAT, "x").add(FieldType.INT, "region").build();
        FloatField x = schema.floatField("x");
        IntField region = schema.intField("region");
        long[] count = new long[4];
        try (BulkTable particles = BulkTable.of(schema);
             Connection db = DriverManager.getConnection("jdbc:duckdb:");
             DuckDbViews views = new DuckDbViews(db);
             Statement sql = db.createStatement()) {
            for (int i = 0; i < 100_000; i++) {
                long h = particles.add();
                particles.set(h, x, i * 0.5f);
                particles.set(h, region, i % 4);
                count[i % 4]++;
            }
            views.register("particles", particles);
            try (ResultSet r = sql.executeQuery("SELECT region, count(*) FROM particles GROUP BY region ORDER BY region")) {
                for (int g = 0; g < 4; g++) {
                    if (!r.next() || r.getInt(1) != g || r.getLong(2) != count[g]) {
                        throw new AssertionError("region " + g + ": DuckDB's count differs from " + count[g]);
                    }
                }
            }
            particles.add();                            // the stream was released: writable again
        }
        System.out.println("java-arrow-duckdb: SQL over a live table agrees with Java");
    }
}
