package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReuseOrder#SWEEP}: holes are refilled in slot order from the slot after the last add's,
 * wrapping round; clear starts again at slot 1; a snapshot, a mapped table's reopen and an exact
 * {@code cancelAdd} keep where the next add looks. The exact order under random operations is
 * checked by {@link BulkTableModelTest}'s SWEEP configurations.
 */
class SweepReuseTest {
    private final Schema schema = TestSchemas.particles(RecordLayout.SOA);

    private BulkTable open(ReuseOrder order) {
        return BulkTable.builder(schema).reuseOrder(order).build();
    }

    private static long slot(Table table, long handle) {
        return table.handleLayout().slot(handle);
    }

    /** Adds one record and returns its slot. */
    private static long addSlot(Table table) {
        return slot(table, table.add());
    }

    @Test
    void holesAreRefilledInSlotOrder_notInTheOrderTheyWereMade() {
        for (ReuseOrder order : List.of(ReuseOrder.SWEEP, ReuseOrder.FIFO)) {
            try (BulkTable table = open(order)) {
                long[] h = new long[10];                 // slots 1..10
                table.addAll(h);
                table.remove(h[7]);
                table.remove(h[2]);
                table.remove(h[5]);
                List<Long> slots = List.of(addSlot(table), addSlot(table), addSlot(table));
                assertEquals(order == ReuseOrder.SWEEP ? List.of(3L, 6L, 8L) : List.of(8L, 3L, 6L), slots, order.name());
                assertEquals(order, table.reuseOrder());
                TableAudit.check(table);
            }
        }
    }

    @Test
    void aHoleBehindTheLastAddWaitsUntilTheAddsWrapRound() {
        try (BulkTable table = open(ReuseOrder.SWEEP)) {
            long[] h = new long[10];                     // slots 1..10
            table.addAll(h);
            table.remove(h[1]);                          // slot 2
            table.remove(h[7]);                          // slot 8
            assertEquals(2, addSlot(table));
            table.remove(h[0]);                          // slot 1, behind the last add
            assertEquals(8, addSlot(table));
            assertEquals(1, addSlot(table));             // wrapped round
            assertEquals(11, addSlot(table));            // no hole left: a fresh slot
            TableAudit.check(table);
        }
    }

    /**
     * Random churn: between two adds into the same slot, every other slot that was a hole at the
     * first of them has been refilled. That is what spreads generations over the holes.
     */
    @Test
    void aSlotIsReusedAgainOnlyAfterEveryHoleOfItsLastReuseWasRefilled() {
        long seed = 0x5EEDL;
        Random random = new Random(seed);
        try (BulkTable table = open(ReuseOrder.SWEEP)) {
            List<Long> live = new ArrayList<>();
            Set<Long> holes = new TreeSet<>();
            Map<Long, Set<Long>> waitingAtLastTake = new HashMap<>();
            for (int i = 0; i < 300; i++) {
                live.add(table.add());
            }
            for (int step = 0; step < 20_000; step++) {
                if (!live.isEmpty() && (random.nextInt(3) > 0 || live.size() > 600)) {
                    long h = live.remove(random.nextInt(live.size()));
                    table.remove(h);
                    holes.add(slot(table, h));
                } else {
                    long h = table.add();
                    long s = slot(table, h);
                    Set<Long> waiting = waitingAtLastTake.get(s);
                    if (waiting != null) {
                        assertTrue(waiting.isEmpty(), "seed " + seed + ", step " + step + ": slot " + s
                                + " reused again before holes " + waiting);
                    }
                    holes.remove(s);
                    for (Set<Long> w : waitingAtLastTake.values()) {
                        w.remove(s);
                    }
                    waitingAtLastTake.put(s, new HashSet<>(holes));
                    live.add(h);
                }
            }
            TableAudit.check(table);
        }
    }

    @Test
    void clear_startsAgainAtTheFirstSlot_andSkipsARetiredSlot() {
        HandleLayout twoBits = HandleLayout.of(8, 2);    // generations 0..3
        try (BulkTable table = BulkTable.builder(schema).handleLayout(twoBits).reuseOrder(ReuseOrder.SWEEP).build()) {
            long[] h = new long[6];
            table.addAll(h);                             // slots 1..6
            long first = h[0];
            for (int g = 0; g < 3; g++) {                // slot 1 up to generation 3, live
                table.remove(first);
                first = table.add();
                assertEquals(1, slot(table, first));
            }
            assertEquals(3, twoBits.generation(first));
            table.remove(h[4]);
            assertEquals(5, addSlot(table));             // the next add would look at slot 6 first
            table.clear();                               // slot 1 retires, 2..6 are holes from slot 2 on
            assertEquals(2, addSlot(table));
            assertEquals(3, addSlot(table));
            assertEquals(1, table.stats().retired());
            TableAudit.check(table);
        }
    }

    @Test
    void cancelAdd_givesTheSlotBackAndTheNextAddTakesItAgain() {
        try (BulkTable table = open(ReuseOrder.SWEEP)) {
            long[] h = new long[10];
            table.addAll(h);
            table.remove(h[2]);                          // slot 3
            table.remove(h[6]);                          // slot 7
            long added = table.add();
            assertEquals(3, slot(table, added));
            assertTrue(table.cancelAdd(added));
            assertFalse(table.contains(added));
            long again = table.add();
            assertEquals(3, slot(table, again));
            assertEquals(table.handleLayout().generation(added) + 1, table.handleLayout().generation(again));
            assertEquals(7, addSlot(table));
            TableAudit.check(table);
        }
    }

    /** {@return the handle of the live record in {@code slot}} */
    private static long handleIn(Table table, long slot) {
        long[] found = {0};
        table.forEach((chunk, s) -> {
            long h = chunk.handle(s);
            if (slot(table, h) == slot) {
                found[0] = h;
            }
        });
        return found[0];
    }

    /**
     * After {@link #behindTheCursor}: the record in slot 5 (after the last add's slot 2, before
     * the next hole, 8) removed, the next adds are slots 5, 8, 1, then a fresh one.
     */
    private static void addsAfterTheCursor(Table table) {
        table.remove(handleIn(table, 5));
        assertEquals(5, addSlot(table));
        assertEquals(8, addSlot(table));
        assertEquals(1, addSlot(table));
        assertEquals(11, addSlot(table));
        TableAudit.check(table);
    }

    /** Sets up a table whose next adds are slot 8, then slot 1 (behind the last add, so not first). */
    private static void behindTheCursor(Table table) {
        long[] h = new long[10];
        table.addAll(h);
        table.remove(h[1]);                              // slot 2
        table.remove(h[7]);                              // slot 8
        assertEquals(2, addSlot(table));
        table.remove(h[0]);                              // slot 1
    }

    @Test
    void aLoadedSnapshot_addsIntoTheSlotsTheSavedTableWould(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sweep.bulk");
        try (BulkTable table = open(ReuseOrder.SWEEP)) {
            behindTheCursor(table);
            Snapshots.save(table, file);
            try (Table loaded = Snapshots.load(file, schema, Snapshots.LoadOption.NEW_TAG)) {
                assertEquals(ReuseOrder.SWEEP, ((BulkTable) loaded).reuseOrder());
                addsAfterTheCursor(table);
                addsAfterTheCursor(loaded);
            }
        }
    }

    @Test
    void aReopenedMappedTable_addsIntoTheSlotsTheClosedOneWould(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sweep.mapped");
        BulkTable.Builder builder = BulkTable.builder(schema).reuseOrder(ReuseOrder.SWEEP);
        try (MappedBulkTable table = builder.mapped(file)) {
            behindTheCursor(table);
        }
        try (MappedBulkTable table = builder.mapped(file)) {
            addsAfterTheCursor(table);
        }
    }
}
