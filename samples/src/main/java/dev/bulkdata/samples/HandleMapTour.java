package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.FieldType;
import dev.bulkdata.storage.IntField;
import dev.bulkdata.storage.InvalidHandleException;
import dev.bulkdata.storage.Schema;

import java.io.PrintStream;

/**
 * The handle_map walk-through of seed 000, on a {@link BulkTable}: insert, look up, erase, a
 * stale handle caught, and {@code clear()} (old handles stay stale) against a fresh table
 * (handles start over). Every handle is printed in the readable {@code name#index@generation}
 * form.
 */
public final class HandleMapTour {
    /**
     * What the tour observed.
     *
     * @param inserted records inserted
     * @param staleCaught stale-handle uses that were rejected
     * @param sumAfterClear sum of the values read back after clear and re-insert
     */
    public record Outcome(int inserted, int staleCaught, int sumAfterClear) {
    }

    private HandleMapTour() {
    }

    /**
     * Runs the tour.
     *
     * @param out where to print
     * @return what happened, for tests
     */
    public static Outcome run(PrintStream out) {
        Schema schema = Schema.builder("items").add(FieldType.INT, "value", "sort").build();
        IntField value = schema.intField("value");
        int stale = 0;
        int sum = 0;
        try (BulkTable items = BulkTable.of(schema)) {
            long a = items.add();
            long b = items.add();
            long c = items.add();
            items.set(a, value, 10);
            items.set(b, value, 20);
            items.set(c, value, 30);
            out.printf("insert  %s=10 %s=20 %s=30%n", items.format(a), items.format(b), items.format(c));
            out.printf("lookup  %s -> %d%n", items.format(b), items.get(b, value));

            items.remove(b);
            out.printf("erase   %s; size is now %d%n", items.format(b), items.size());
            long d = items.add();
            items.set(d, value, 40);
            out.printf("insert  %s=40 reuses the slot with the next generation%n", items.format(d));
            try {
                items.get(b, value);
            } catch (InvalidHandleException e) {
                stale++;
                out.printf("stale   %s rejected: %s%n", items.format(b), e.reason());
            }

            items.clear();
            out.printf("clear   size %d; %s is stale: %b%n", items.size(), items.format(a), !items.contains(a));
            if (!items.contains(a)) {
                stale++;
            }
            long e = items.add();
            items.set(e, value, 7);
            sum += items.get(e, value);
            out.printf("insert  %s after clear: same slot, new generation%n", items.format(e));
        }
        try (BulkTable fresh = BulkTable.of(schema)) {
            long f = fresh.add();
            fresh.set(f, value, 8);
            sum += fresh.get(f, value);
            out.printf("fresh   %s: a new table starts at generation 0 with its own tag%n", fresh.format(f));
        }
        return new Outcome(3, stale, sum);
    }
}
