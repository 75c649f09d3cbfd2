package dev.bulkdata.it.classpath;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.TableStats;

/** storage-java from the class path: both table kinds, a stale handle, stats. */
public final class App {
    public static final int RECORDS = 10_000;
    public static final int REMOVED = 1_000;

    public static void main(String[] args) {
        check(!App.class.getModule().isNamed(), "the application is on the class path");
        check(!Table.class.getModule().isNamed(), "storage-java is on the class path");

        Schema schema = Schema.builder("cp-particles").add(FieldType.FLOAT, "x", "vx").build();
        FloatField x = schema.floatField("x");
        FloatField vx = schema.floatField("vx");
        try (BulkTable bulk = BulkTable.of(schema); PackedTable packed = PackedTable.of(schema)) {
            for (Table table : new Table[] {bulk, packed}) {
                long[] handles = new long[RECORDS];
                table.addAll(handles);
                for (int i = 0; i < RECORDS; i++) {
                    table.set(handles[i], vx, 2f);
                }
                table.forEach((chunk, slot) -> chunk.set(slot, x, chunk.get(slot, x) + chunk.get(slot, vx) * 0.5f));
                for (int i = 0; i < REMOVED; i++) {
                    table.remove(handles[i]);
                }
                check(!table.contains(handles[0]), "a removed record's handle is stale");
                try {
                    table.get(handles[0], x);
                    check(false, "a stale handle throws");
                } catch (InvalidHandleException expected) {
                    check(expected.reason() == InvalidHandleException.Reason.STALE, "reason STALE");
                }
                double sum = 0;
                for (int i = REMOVED; i < RECORDS; i++) {
                    sum += table.get(handles[i], x);
                }
                check(sum == RECORDS - REMOVED, "every live record moved by 1.0: " + sum);
                TableStats stats = table.stats();
                check(stats.live() == RECORDS - REMOVED, "live " + stats);
                System.out.println("class-path consumer: " + stats);
            }
            // The periodic dev.bulkdata.TableStatistics event (every second by default) sees
            // both tables with their final counts.
            sleep(2_500);
        }
        System.out.println("class-path consumer: OK");
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("failed: " + what);
        }
    }

    private App() {
    }
}
