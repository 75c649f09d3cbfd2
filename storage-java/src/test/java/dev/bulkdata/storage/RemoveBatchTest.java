package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code removeAll} of a batch in random order (small batches sorted, large ones through slot bits) leaves the table
 * exactly as {@code remove} one by one in slot order does: sizes, liveness, values, and which slots and generations the
 * next adds take, for every reuse order.
 */
class RemoveBatchTest {
    private static Table table(Schema schema, boolean packed, ReuseOrder order) {
        return packed ? PackedTable.of(schema) : BulkTable.builder(schema).reuseOrder(order).build();
    }

    @ParameterizedTest
    @CsvSource({"false, SWEEP", "false, FIFO", "false, LIFO", "true, FIFO"})
    void removeAll_inRandomOrder_matchesRemovalsOneByOneInSlotOrder(boolean packed, ReuseOrder order) {
        long seed = Seeds.seed("RemoveBatchTest", (packed ? 3 : 0) + order.ordinal());
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        try (Table batch = table(schema, packed, order); Table single = table(schema, packed, order)) {
            FloatField x = batch.schema().floatField("px");
            Random r = new Random(seed);
            List<long[]> live = new ArrayList<>(); // {handle in batch, handle in single}
            for (int round = 0; round < 30; round++) {
                int adds = r.nextInt(3000);
                long[] a = new long[adds];
                long[] b = new long[adds];
                batch.addAll(a);
                single.addAll(b);
                for (int i = 0; i < adds; i++) {
                    assertEquals(batch.handleLayout().slot(a[i]), single.handleLayout().slot(b[i]));
                    assertEquals(batch.handleLayout().generation(a[i]), single.handleLayout().generation(b[i]));
                    batch.set(a[i], x, round * 10_000f + i);
                    single.set(b[i], x, round * 10_000f + i);
                    live.add(new long[] {a[i], b[i]});
                }
                // Some rounds a few removals (sorted), others up to all of them (slot bits).
                int removals = r.nextBoolean() ? r.nextInt(Math.min(live.size(), 8) + 1) : r.nextInt(live.size() + 1);
                List<long[]> gone = new ArrayList<>();
                for (int k = 0; k < removals; k++) {
                    gone.add(live.remove(r.nextInt(live.size())));
                }
                batch.removeAll(gone.stream().mapToLong(p -> p[0]).toArray());
                gone.sort(Comparator.comparingLong(p -> single.handleLayout().slot(p[1])));
                for (long[] p : gone) {
                    single.remove(p[1]);
                    assertEquals(false, batch.contains(p[0]));
                }
                assertEquals(single.size(), batch.size());
                assertEquals(single.stats().holes(), batch.stats().holes());
                for (long[] p : live) {
                    assertEquals(single.get(p[1], x), batch.get(p[0], x));
                }
            }
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " (packed=" + packed + ", " + order + "): " + e, e);
        }
    }
}
