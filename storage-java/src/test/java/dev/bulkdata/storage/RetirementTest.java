package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Generations and retirement with a tiny handle layout: 8 slot bits (slots 1..255) and 2
 * generation bits (generations 0..3). A slot is handed out at generations 0, 1, 2 and 3, then
 * retired for good, so no handle is ever handed out twice and an old handle never reaches a
 * later record. Runs on a BulkTable in both reuse orders and on a PackedTable (whose sparse
 * slots are reused first in, first out).
 */
class RetirementTest {
    private static final HandleLayout TINY = HandleLayout.of(8, 2);
    private static final int SLOTS = 255;
    private static final int GENERATIONS = 4;

    /** The table variants: a table kind and the order in which it reuses slots. */
    enum Variant {
        BULK_FIFO(ReuseOrder.FIFO), BULK_LIFO(ReuseOrder.LIFO), BULK_SWEEP(ReuseOrder.SWEEP), PACKED(ReuseOrder.FIFO);

        final ReuseOrder order;

        Variant(ReuseOrder order) {
            this.order = order;
        }

        Table table() {
            Schema schema = TestSchemas.particles(RecordLayout.SOA);
            if (this == PACKED) {
                return PackedTable.builder(schema).handleLayout(TINY).build();
            }
            return BulkTable.builder(schema).handleLayout(TINY).reuseOrder(order).build();
        }
    }

    /** Records every handle handed out and checks the retirement rules as they go. */
    private static final class Ledger {
        final Table table;
        final FloatField px;
        /** Generations each slot was handed out at, in order. */
        final Map<Integer, List<Integer>> generations = new TreeMap<>();
        final Set<Long> handedOut = new HashSet<>();
        final List<Long> dead = new ArrayList<>();
        final Set<Integer> retiredSlots = new HashSet<>();
        /** Slots in the order they were handed out. */
        final List<Integer> order = new ArrayList<>();

        Ledger(Table table) {
            this.table = table;
            this.px = table.schema().floatField("px");
        }

        int slot(long h) {
            return (int) TINY.slot(h);
        }

        void added(long h) {
            assertTrue(handedOut.add(h), () -> "handle " + table.format(h) + " was handed out before");
            int slot = slot(h);
            int generation = TINY.generation(h);
            assertFalse(retiredSlots.contains(slot), () -> "retired slot " + slot + " was handed out again");
            List<Integer> seen = generations.computeIfAbsent(slot, s -> new ArrayList<>());
            assertEquals(seen.size(), generation, () -> "slot " + slot + " handed out at generation " + generation
                    + " after generations " + seen);
            seen.add(generation);
            order.add(slot);
            assertTrue(table.contains(h));
            assertEquals(0f, table.get(h, px), "a new record is all zero");
            table.set(h, px, slot * 10f + generation);
        }

        void removed(long h) {
            int retiredBefore = table.stats().retired();
            table.remove(h);
            afterDeath(h);
            int expected = TINY.generation(h) == TINY.maxGeneration() ? retiredBefore + 1 : retiredBefore;
            assertEquals(expected, table.stats().retired(),
                    "a removal retires its slot exactly when the generation was 3");
        }

        /** Notes that {@code h}'s record is gone (by remove, removeAll or clear). */
        void afterDeath(long h) {
            dead.add(h);
            if (TINY.generation(h) == TINY.maxGeneration()) {
                assertTrue(retiredSlots.add(slot(h)));
            }
        }

        void assertRetiredCountMatches() {
            assertEquals(retiredSlots.size(), table.stats().retired(), "stats().retired()");
        }

        /** Every handle of a removed record is rejected as stale, forever. */
        void assertEveryDeadHandleIsStale() {
            for (long h : dead) {
                assertFalse(table.contains(h), () -> table.format(h) + " must stay dead");
                InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> table.get(h, px));
                assertEquals(InvalidHandleException.Reason.STALE, e.reason(), e::getMessage);
                assertThrows(InvalidHandleException.class, () -> table.set(h, px, -1f));
            }
        }

        void assertEverySlotUsedAtEveryGenerationThenRetired() {
            assertEquals(SLOTS, generations.size(), "every slot 1..255 is handed out");
            assertEquals(1, generations.keySet().iterator().next());
            for (Map.Entry<Integer, List<Integer>> e : generations.entrySet()) {
                assertEquals(List.of(0, 1, 2, 3), e.getValue(), "generations of slot " + e.getKey());
            }
            assertEquals(SLOTS * GENERATIONS, handedOut.size());
            assertEquals(SLOTS, retiredSlots.size());
            TableStats stats = table.stats();
            assertEquals(SLOTS, stats.retired());
            assertEquals(0, stats.live());
            assertEquals(0, stats.holes());
        }

        /** With every slot retired, nothing can be added and a failed add changes nothing. */
        void assertFullForever() {
            TableSnapshot before = TableSnapshot.of(table);
            assertThrows(CapacityExceededException.class, table::add);
            assertThrows(CapacityExceededException.class, () -> table.addAll(new long[1]));
            assertEquals(before, TableSnapshot.of(table));
            assertEquals(0, table.capacity());
            TableAudit.check(table);
        }
    }

    @ParameterizedTest(name = "{0}, {1} records kept live")
    @CsvSource({"BULK_FIFO, 0", "BULK_FIFO, 3", "BULK_FIFO, 100", "BULK_LIFO, 0", "BULK_LIFO, 3", "BULK_LIFO, 100",
            "BULK_SWEEP, 0", "BULK_SWEEP, 3", "BULK_SWEEP, 100", "PACKED, 0", "PACKED, 3", "PACKED, 100"})
    void addRemoveChurn_handsEachSlotOutAtGenerations0To3ThenRetiresIt(Variant variant, int keepLive) {
        try (Table t = variant.table()) {
            Ledger ledger = new Ledger(t);
            ArrayDeque<Long> live = new ArrayDeque<>();
            int steps = 0;
            while (true) {
                long h;
                try {
                    h = t.add();
                } catch (CapacityExceededException e) {
                    if (live.isEmpty()) {
                        break;
                    }
                    ledger.removed(live.poll());
                    continue;
                }
                ledger.added(h);
                live.add(h);
                if (live.size() > keepLive) {
                    ledger.removed(live.poll());
                }
                if (++steps % 64 == 0) {
                    TableAudit.check(t);
                    ledger.assertRetiredCountMatches();
                    ledger.assertEveryDeadHandleIsStale();
                }
                assertTrue(steps <= SLOTS * GENERATIONS, "more adds than slots times generations");
            }
            assertEquals(SLOTS * GENERATIONS, steps);
            TableAudit.check(t);
            ledger.assertEverySlotUsedAtEveryGenerationThenRetired();
            ledger.assertEveryDeadHandleIsStale();
            ledger.assertFullForever();
            if (keepLive == 0) {
                // Nothing else live: each slot is reused at once until it retires, in both orders.
                for (int i = 0; i < ledger.order.size(); i++) {
                    assertEquals(i / GENERATIONS + 1, ledger.order.get(i), "slot of add #" + i);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void reuseOrder_decidesWhichHoleIsHandedOutNext(Variant variant) {
        try (Table t = variant.table()) {
            long[] h = new long[6];
            t.addAll(h);
            t.remove(h[1]);
            t.remove(h[3]);
            t.remove(h[4]);
            long next = t.add();
            // FIFO: the hole made first; LIFO: the hole made last; SWEEP: the first hole after the
            // slot the last add took (h[5], the highest), wrapping round: the lowest
            long expectedSlot = variant.order == ReuseOrder.LIFO ? TINY.slot(h[4]) : TINY.slot(h[1]);
            assertEquals(expectedSlot, TINY.slot(next));
            assertEquals(1, TINY.generation(next));
            TableAudit.check(t);
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void clear_retiresLiveSlotsAtMaxGenerationAndFreesTheOthers(Variant variant) {
        try (Table t = variant.table()) {
            Ledger ledger = new Ledger(t);
            // Slot 1 reaches generation 3: with a single hole both orders reuse it.
            long h = t.add();
            ledger.added(h);
            for (int g = 1; g <= 3; g++) {
                ledger.removed(h);
                h = t.add();
                ledger.added(h);
                assertEquals(1, ledger.slot(h));
                assertEquals(g, TINY.generation(h));
            }
            long two = t.add();
            long three = t.add();
            ledger.added(two);
            ledger.added(three);
            TableAudit.check(t);

            t.clear();
            ledger.afterDeath(h);
            ledger.afterDeath(two);
            ledger.afterDeath(three);
            ledger.assertRetiredCountMatches();
            TableAudit.check(t);
            TableStats stats = t.stats();
            assertEquals(0, stats.live());
            assertEquals(1, stats.retired());
            assertEquals(variant == Variant.PACKED ? 0 : 2, stats.holes(), "a PackedTable reports no holes");
            assertEquals(2, TableAudit.freeSlots(t).length, "two free slots either way");
            ledger.assertEveryDeadHandleIsStale();

            for (int i = 0; i < 3; i++) {
                long again = t.add();
                ledger.added(again);
                assertNotEquals(1, ledger.slot(again), "the slot retired by clear() must never come back");
            }
            TableAudit.check(t);
        }
    }

    @ParameterizedTest(name = "{0} by {1}")
    @CsvSource({"BULK_FIFO, CLEAR", "BULK_LIFO, CLEAR", "BULK_FIFO, REMOVE_ALL", "BULK_LIFO, REMOVE_ALL",
            "BULK_SWEEP, CLEAR", "BULK_SWEEP, REMOVE_ALL",
            "PACKED, CLEAR", "PACKED, REMOVE_ALL"})
    void fourRoundsOfFillingAndEmptying_retireEverySlotAndLeaveTheTableFull(Variant variant, String empty) {
        try (Table t = variant.table()) {
            Ledger ledger = new Ledger(t);
            for (int round = 0; round < GENERATIONS; round++) {
                long[] all = new long[SLOTS];
                t.addAll(all);
                for (long h : all) {
                    ledger.added(h);
                    assertEquals(round, TINY.generation(h));
                }
                assertEquals(SLOTS, t.size());
                assertThrows(CapacityExceededException.class, t::add, "255 live records fill the index space");
                if (empty.equals("CLEAR")) {
                    t.clear();
                } else {
                    t.removeAll(all);
                }
                for (long h : all) {
                    ledger.afterDeath(h);
                }
                // Only the last round retires slots, all of them at once.
                assertEquals(round == GENERATIONS - 1 ? SLOTS : 0, t.stats().retired());
                ledger.assertRetiredCountMatches();
                TableAudit.check(t);
                ledger.assertEveryDeadHandleIsStale();
            }
            ledger.assertEverySlotUsedAtEveryGenerationThenRetired();
            ledger.assertFullForever();
        }
    }
}
