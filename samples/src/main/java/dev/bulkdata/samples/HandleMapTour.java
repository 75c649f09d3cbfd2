package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.Schema;

/**
 * The walk-through of the article "Game Engine Containers - handle_map", on a {@link BulkTable}: insert, look up, erase, a
 * stale handle caught, {@code clear()} (old handles stay stale) against a fresh table
 * (handles start over, and the old table's handles are rejected as foreign), and
 * {@code reset()}, the purge that the same article sets beside {@code clear()}. Every handle is
 * printed in the readable {@code name#slot@generation} form.
 */
public final class HandleMapTour {
    /**
     * What the tour observed.
     *
     * @param inserted records inserted
     * @param staleCaught stale-handle uses that were rejected
     * @param foreignCaught uses of the old table's handle on the fresh table that were rejected
     * @param sumAfterClear sum of the values read back after clear and re-insert
     */
    public record Outcome(int inserted, int staleCaught, int foreignCaught, int sumAfterClear) {
    }

    private HandleMapTour() {
    }

    /**
     * Runs the tour.
     *
     * @param out where to print
     * @return what happened, for tests
     */
    public static Outcome run(SampleOutput out) {
        Schema schema = Schema.builder("items").add(FieldType.INT, "value", "sort").build();
        IntField value = schema.intField("value");
        int stale = 0;
        int foreign = 0;
        int sum = 0;
        try (BulkTable items = BulkTable.of(schema)) {
            long a = items.add();
            long b = items.add();
            long c = items.add();
            items.set(a, value, 10);
            items.set(b, value, 20);
            items.set(c, value, 30);
            out.line("insert  %s=10 %s=20 %s=30", items.format(a), items.format(b), items.format(c));
            out.line("lookup  %s -> %d", items.format(b), items.get(b, value));

            items.remove(b);
            out.line("erase   %s; size is now %d", items.format(b), items.size());
            long d = items.add();
            items.set(d, value, 40);
            out.line("insert  %s=40 reuses the slot with the next generation", items.format(d));
            try {
                items.get(b, value);
            } catch (InvalidHandleException e) {
                stale++;
                out.line("stale   %s rejected: %s", items.format(b), e.reason());
            }
            int[] total = {0};
            items.forEach((chunk, slot) -> total[0] += chunk.get(slot, value));
            out.line("iterate %d live items, values sum to %d (no handle lookups)", items.size(), total[0]);

            items.clear();
            out.line("clear   size %d; %s is stale: %b", items.size(), items.format(a), !items.contains(a));
            if (!items.contains(a)) {
                stale++;
            }
            long e = items.add();
            items.set(e, value, 7);
            sum += items.get(e, value);
            out.line("insert  %s after clear: same slot, new generation", items.format(e));

            try (BulkTable fresh = BulkTable.of(schema)) {
                long f = fresh.add();
                fresh.set(f, value, 8);
                sum += fresh.get(f, value);
                out.line("fresh   %s: a fresh table starts at generation 0 again, with its own tag", fresh.format(f));
                try {
                    fresh.get(e, value);
                } catch (InvalidHandleException x) {
                    foreign++;
                    out.line("foreign %s of the cleared table, used on the fresh one, rejected: %s",
                            items.format(e), x.reason());
                }
            }

            items.reset();                              // the purge: one write per opened slot
            long g = items.add();
            out.line("reset   %s is stale: %b; %s takes slot 1 again, a generation above every earlier one",
                    items.format(e), !items.contains(e), items.format(g));
            if (!items.contains(e)) {
                stale++;
            }
        }
        return new Outcome(3, stale, foreign, sum);
    }
}
