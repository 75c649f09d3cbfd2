package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a {@link PackedTable} does beyond the shared {@link TableContractTest}: dense rows (no
 * holes, contiguous chunks), swap-and-pop that keeps every handle valid, the same rejections as
 * a {@link BulkTable}, and {@code defragment}.
 */
class PackedTableTest {
    private static final long SEED = 0x9AC4_ED00L;

    /** A table of {@code n} records: {@code id} = i, {@code key} = a value in [0, keys). */
    private static final class Sample implements AutoCloseable {
        final PackedTable table;
        final Schema schema;
        final IntField id;
        final IntField key;
        final List<Long> handles = new ArrayList<>();

        Sample(RecordLayout layout, int n, int keys, long seed) {
            schema = Schema.builder("sample").layout(layout)
                    .add(FieldType.INT, "id", "key")
                    .add(FieldType.DOUBLE, "payload")
                    .build();
            table = PackedTable.of(schema);
            id = schema.intField("id");
            key = schema.intField("key");
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                long h = table.add();
                table.set(h, id, i);
                table.set(h, key, random.nextInt(keys));
                table.set(h, schema.doubleField("payload"), i * 0.5);
                handles.add(h);
            }
        }

        RecordOrder byKey() {
            return (a, b) -> Integer.compare(table.get(a, key), table.get(b, key));
        }

        /** Every handle reads its own record (id, payload); the table's audit passes. */
        void assertEveryHandleReadsItsOwnRecord() {
            for (long h : handles) {
                int i = table.get(h, id);
                assertEquals(h, handles.get(i), "handle " + table.format(h) + " reads record " + i);
                assertEquals(i * 0.5, table.get(h, schema.doubleField("payload")));
            }
            TableAudit.check(table);
        }

        /** The handles in row order. */
        List<Long> rowOrder() {
            List<Long> order = new ArrayList<>();
            table.forEach((chunk, slot) -> order.add(chunk.handle(slot)));
            return order;
        }

        @Override
        public void close() {
            table.close();
        }
    }

    // ---- dense rows ------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void iteration_isContiguous_everyChunkFullButTheLast(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (PackedTable table = PackedTable.of(schema)) {
            long[] handles = new long[3000];
            table.addAll(handles);
            SplittableRandom random = new SplittableRandom(SEED);
            for (int i = 0; i < 1000; i++) {
                int k = random.nextInt(handles.length);
                if (table.contains(handles[k])) {
                    table.remove(handles[k]);
                }
            }
            int size = table.size();
            int per = schema.slotsPerBlock();
            try (ChunkIteration chunks = table.iterate()) {
                assertEquals((size + per - 1) / per, chunks.count(), "only chunks holding rows are visited");
                int seen = 0;
                for (Chunk chunk : chunks) {
                    boolean last = chunk.index() == chunks.count() - 1;
                    int live = chunk.liveCount();
                    assertEquals(last ? size - (chunks.count() - 1) * per : per, live);
                    for (int s = 0; s < chunk.slotCount(); s++) {
                        assertEquals(s < live, chunk.isLive(s), "live slots are exactly a prefix");
                        assertEquals(s < live ? s : -1, chunk.nextLive(s));
                        assertEquals(Math.max(s, live), chunk.nextHole(s), "the first hole is the end of the prefix");
                    }
                    assertEquals(chunk.slotCount(), chunk.nextHole(chunk.slotCount()));
                    for (int w = 0; w < chunk.liveWordCount(); w++) {
                        int bits = Math.max(0, Math.min(64, live - w * 64));
                        assertEquals(bits == 64 ? -1L : (1L << bits) - 1, chunk.liveBits(w));
                    }
                    seen += live;
                }
                assertEquals(size, seen);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void remove_movesTheLastRowIntoTheGap_andEveryHandleStillReadsItsOwnRecord(RecordLayout layout) {
        try (Sample sample = new Sample(layout, 40, 4, SEED)) {
            List<Long> before = sample.rowOrder();
            long victim = sample.handles.get(5);
            sample.table.remove(victim);
            List<Long> after = sample.rowOrder();
            List<Long> expected = new ArrayList<>(before);
            expected.set(5, expected.removeLast());
            assertEquals(expected, after, "swap-and-pop: the last row fills the gap, nothing else moves");
            sample.handles.set(5, Handles.NULL);
            for (long h : sample.handles) {
                if (h != Handles.NULL) {
                    int i = sample.table.get(h, sample.id);
                    assertEquals(h, sample.handles.get(i));
                }
            }
            TableAudit.check(sample.table);
        }
    }

    /**
     * clear writes no link: the payload beside each slot's meta word (a live slot's row, a free
     * one's link) is left as it was, whatever its bits, also on pages updated by the branch-free
     * loop that steps every live slot's generation; and every old handle is stale.
     */
    @Test
    void clear_stepsEveryGeneration_andLeavesEveryPayloadAsItWas() {
        Schema schema = Schema.builder("payloads").add(FieldType.INT, "id").build();
        try (PackedTable table = PackedTable.of(schema)) {
            long[] handles = new long[10_000];  // three pages of the slotMap
            table.addAll(handles);
            SplittableRandom random = new SplittableRandom(SEED);
            for (int i = 0; i < 2_000; i++) {
                long h = handles[random.nextInt(handles.length)];
                if (table.contains(h)) {
                    table.remove(h);      // rows move (swap-and-pop), free slots get links
                }
            }
            SlotMap slotMap = ((AbstractTable) table).slots;
            int limit = slotMap.limit;
            int[] before = new int[limit];
            int[] generations = new int[limit];
            for (int slot = 1; slot < limit; slot++) {
                before[slot] = slotMap.payload(slot);
                generations[slot] = SlotMeta.generation(slotMap.meta(slot));
            }
            List<Long> live = new ArrayList<>();
            table.forEach((chunk, slot) -> live.add(chunk.handle(slot)));
            boolean[] wasLive = new boolean[limit];
            for (long h : live) {
                wasLive[(int) table.handleLayout().slot(h)] = true;
            }
            table.clear();
            for (int slot = 1; slot < limit; slot++) {
                assertEquals(before[slot], slotMap.payload(slot), "payload of slot " + slot);
                assertFalse(SlotMeta.isLive(slotMap.meta(slot)), "slot " + slot + " is free after clear");
                assertEquals(generations[slot] + (wasLive[slot] ? 1 : 0), SlotMeta.generation(slotMap.meta(slot)),
                        "slot " + slot + ": a live slot steps once, a free one not at all");
            }
            for (long h : live) {
                assertFalse(table.contains(h), "every old handle is stale");
            }
            TableAudit.check(table);
        }
    }

    @Test
    void stats_reportNoHoles_countRetiredSlots_andDenseBytes() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        // 2 generations per slot: every slot retires on its second removal.
        try (PackedTable table = PackedTable.builder(schema).handleLayout(HandleLayout.of(16, 1)).build()) {
            long[] handles = new long[1000];
            table.addAll(handles);
            table.removeAll(handles, 0, 400);
            TableStats stats = table.stats();
            assertEquals(600, stats.live());
            assertEquals(0, stats.holes(), "a PackedTable has no holes");
            assertEquals(0, stats.retired());
            assertEquals(2, stats.blocks(), "1000 rows took 2 blocks of 512; blocks are kept after removals");
            assertEquals(2L * Schema.BLOCK_BYTES, stats.nativeBytes());
            long[] again = new long[400];
            table.addAll(again);                 // reuses the 400 freed slots, generation 1
            table.removeAll(again);              // ... which are now at the last generation: retired
            stats = table.stats();
            assertEquals(0, stats.holes());
            assertEquals(400, stats.retired());
            for (long h : again) {
                assertFalse(table.contains(h));
            }
            long fresh = table.add();
            assertEquals(1001, table.handleLayout().slot(fresh), "retired slots are never handed out again");
            assertEquals(0, table.stats().holes());
        }
    }

    @Test
    void capacity_isWhatFitsWithoutAnotherBlock() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        try (PackedTable table = PackedTable.builder(schema).maxCapacity(700).build()) {
            assertEquals(0, table.capacity());
            table.add();
            assertEquals(512, table.capacity());
            table.addAll(new long[600]);
            assertEquals(700, table.capacity(), "two blocks hold 1024 rows, but maxCapacity caps the slots");
        }
    }

    // ---- handles and errors: the same as a BulkTable ---------------------------------------

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void rejections_haveTheSameReasonsAndMessagesAsABulkTable(RecordLayout layout) {
        Schema schema = TestSchemas.mixed(layout);
        try (Table bulk = BulkTable.of(schema); Table packed = PackedTable.of(schema)) {
            for (Table t : List.of(bulk, packed)) {
                long[] handles = new long[12];
                t.addAll(handles);
                t.remove(handles[3]);
                t.remove(handles[7]);
                t.add();                          // reuses slot 4 (FIFO), generation 1
                t.clear();
                t.addAll(new long[5]);
            }
            HandleLayout hl = bulk.handleLayout();
            int bulkTag = hl.tag(bulk.add());
            int packedTag = hl.tag(packed.add());
            int[][] generationAndIndex = {
                {0, 0}, {1, 0}, {0, 4}, {1, 4}, {3, 4}, {0, 1}, {2, 1}, {5, 9}, {0, 8}, {1, 8}, {0, 13},
                {0, 500}, {hl.maxGeneration(), 2}};
            for (int[] gi : generationAndIndex) {
                long b = hl.pack(bulkTag, gi[0], gi[1]);
                long p = hl.pack(packedTag, gi[0], gi[1]);
                InvalidHandleException eb = assertThrows(InvalidHandleException.class,
                        () -> bulk.get(b, schema.longField("l")));
                InvalidHandleException ep = assertThrows(InvalidHandleException.class,
                        () -> packed.get(p, schema.longField("l")));
                assertEquals(eb.reason(), ep.reason(), eb.getMessage());
                assertEquals(eb.getMessage(), ep.getMessage());
            }
            InvalidHandleException nb = assertThrows(InvalidHandleException.class, () -> bulk.remove(Handles.NULL));
            InvalidHandleException np = assertThrows(InvalidHandleException.class, () -> packed.remove(Handles.NULL));
            assertEquals(nb.getMessage(), np.getMessage());
            InvalidHandleException fb = assertThrows(InvalidHandleException.class,
                    () -> bulk.remove(hl.pack(packedTag, 0, 1)));
            assertEquals(InvalidHandleException.Reason.FOREIGN, fb.reason());
            assertTrue(fb.getMessage().contains("'mixed'"), fb::getMessage);
        }
    }

    @Test
    void builder_rejectsNullAndNonPositiveOptions() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        assertThrows(IllegalArgumentException.class, () -> PackedTable.builder(null));
        assertThrows(IllegalArgumentException.class, () -> PackedTable.of(null));
        PackedTable.Builder b = PackedTable.builder(schema);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.handleLayout(null)).getMessage()
                .contains("DEFAULT"));
        assertThrows(IllegalArgumentException.class, () -> b.maxCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxCapacity(-5));
    }

    // ---- defragment ------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void defragment_afterAnOrderThrewPartWay_treatsTheTableAsUnsorted(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        FloatField t = schema.floatField("t");
        try (PackedTable table = PackedTable.of(schema)) {
            long[] handles = new long[300];
            table.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                table.set(handles[i], t, (i * 7919) % 300);
            }
            RecordOrder byT = (a, b) -> Float.compare(table.get(a, t), table.get(b, t));
            RecordOrder byTDescending = (a, b) -> Float.compare(table.get(b, t), table.get(a, t));
            table.defragment(Long.MAX_VALUE, byT);
            assertEquals(0, table.defragment(Long.MAX_VALUE, byT), "sorted: nothing to do");
            int[] calls = {0};
            RecordOrder throwing = (a, b) -> {
                if (++calls[0] > 500) {
                    throw new IllegalStateException("order failed part-way");
                }
                return byTDescending.compare(a, b);
            };
            assertThrows(IllegalStateException.class, () -> table.defragment(Long.MAX_VALUE, throwing));
            assertFalse(isSorted(table, t), "the failed pass moved rows");
            long swaps = table.defragment(Long.MAX_VALUE, byT);
            assertTrue(swaps > 0, "rows moved by the failed pass must be sorted again");
            assertTrue(isSorted(table, t));
            for (long h : handles) {
                assertTrue(table.contains(h));
            }
        }
    }

    private static boolean isSorted(PackedTable table, FloatField t) {
        float[] previous = {Float.NEGATIVE_INFINITY};
        boolean[] sorted = {true};
        table.forEach((chunk, slot) -> {
            float value = chunk.get(slot, t);
            sorted[0] &= value >= previous[0];
            previous[0] = value;
        });
        return sorted[0];
    }


    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void defragment_afterShuffling_repeatedBudgetedCalls_reachTheOrder_keepingEveryHandleValid(RecordLayout layout) {
        try (Sample sample = new Sample(layout, 1500, 6, SEED + 1)) {
            SplittableRandom random = new SplittableRandom(SEED + 2);
            // Shuffle the rows by removing and re-adding (swap-and-pop scatters them).
            for (int k = 0; k < 3000; k++) {
                int i = random.nextInt(sample.handles.size());
                long old = sample.handles.get(i);
                int key = sample.table.get(old, sample.key);
                sample.table.remove(old);
                long h = sample.table.add();
                sample.table.set(h, sample.id, i);
                sample.table.set(h, sample.key, key);
                sample.table.set(h, sample.schema.doubleField("payload"), i * 0.5);
                sample.handles.set(i, h);
            }
            List<Long> before = sample.rowOrder();
            Map<Long, Integer> keyOf = new HashMap<>();
            for (long h : before) {
                keyOf.put(h, sample.table.get(h, sample.key));
            }
            List<Long> expected = new ArrayList<>(before);
            expected.sort((a, b) -> Integer.compare(keyOf.get(a), keyOf.get(b))); // stable, like the table
            long inversions = inversions(before, keyOf);
            assertTrue(inversions > 100_000, "the shuffle must leave work to do: " + inversions);

            RecordOrder order = sample.byKey();
            int calls = 0;
            long total = 0;
            long swaps;
            do {
                swaps = sample.table.defragment(20_000, order);
                assertTrue(swaps <= 20_000, "the budget is respected: " + swaps);
                total += swaps;
                calls++;
                sample.assertEveryHandleReadsItsOwnRecord();
            } while (swaps > 0);
            assertTrue(calls > 5, "the budget must split the work over several calls: " + calls);
            assertEquals(inversions, total, "insertion sort makes exactly one swap per inversion");
            assertEquals(expected, sample.rowOrder(), "rows are in key order, ties in their previous order");
            assertEquals(0, sample.table.defragment(20_000, order));
        }
    }

    @Test
    void defragment_onAnUnchangedTable_doesNothing_notEvenComparing() {
        try (Sample sample = new Sample(RecordLayout.SOA, 800, 3, SEED + 3)) {
            RecordOrder byKey = sample.byKey();
            int[] comparisons = {0};
            RecordOrder counting = (a, b) -> {
                comparisons[0]++;
                return byKey.compare(a, b);
            };
            assertTrue(sample.table.defragment(Long.MAX_VALUE, counting) > 0);
            List<Long> sorted = sample.rowOrder();
            comparisons[0] = 0;
            assertEquals(0, sample.table.defragment(Long.MAX_VALUE, counting));
            assertEquals(0, comparisons[0], "a call on an unchanged table must not even compare");
            assertEquals(sorted, sample.rowOrder());
            // A write through set is not tracked ...
            long first = sorted.getFirst();
            sample.table.set(first, sample.key, 99);
            assertEquals(0, sample.table.defragment(Long.MAX_VALUE, counting));
            assertEquals(0, comparisons[0]);
            // ... until the caller says so.
            sample.table.markFragmented();
            assertEquals(799, sample.table.defragment(Long.MAX_VALUE, counting), "the first row sinks to the end");
            assertTrue(comparisons[0] > 0);
            assertEquals(first, sample.rowOrder().getLast());
            // An add fragments the table again: the new row (key 0) sinks to the block of zeros.
            comparisons[0] = 0;
            long h = sample.table.add();
            assertTrue(sample.table.defragment(Long.MAX_VALUE, counting) > 0);
            assertEquals(0, sample.table.get(sample.rowOrder().getFirst(), sample.key));
            assertTrue(sample.table.contains(h));
        }
    }

    @Test
    void defragment_withAnotherOrder_runs_andAnUnfinishedPassInvalidatesTheCompleteOne() {
        try (Sample sample = new Sample(RecordLayout.AOS, 300, 5, SEED + 4)) {
            RecordOrder byKey = sample.byKey();
            RecordOrder byIdDescending = (a, b) -> Integer.compare(sample.table.get(b, sample.id),
                    sample.table.get(a, sample.id));
            int[] comparisons = {0};
            RecordOrder counting = (a, b) -> {
                comparisons[0]++;
                return byKey.compare(a, b);
            };
            sample.table.defragment(Long.MAX_VALUE, counting);
            comparisons[0] = 0;
            assertEquals(0, sample.table.defragment(Long.MAX_VALUE, counting));
            assertEquals(0, comparisons[0]);
            // Part of a pass by another order moves rows ...
            assertEquals(50, sample.table.defragment(50, byIdDescending));
            // ... so the earlier complete pass no longer holds: the key order is checked again.
            sample.table.defragment(Long.MAX_VALUE, counting);
            assertTrue(comparisons[0] >= 299, "a full pass compares every neighbour: " + comparisons[0]);
            List<Long> rows = sample.rowOrder();
            for (int r = 1; r < rows.size(); r++) {
                assertTrue(sample.table.get(rows.get(r - 1), sample.key) <= sample.table.get(rows.get(r), sample.key));
            }
            sample.assertEveryHandleReadsItsOwnRecord();
        }
    }

    @Test
    void defragment_ofReversedRows_makesNTimesNMinusOneHalvesSwaps_theWorstCase() {
        try (Sample sample = new Sample(RecordLayout.SOA, 200, 1, SEED)) {
            RecordOrder byIdDescending = (a, b) -> Integer.compare(sample.table.get(b, sample.id),
                    sample.table.get(a, sample.id));
            assertEquals(200L * 199 / 2, sample.table.defragment(Long.MAX_VALUE, byIdDescending));
            List<Long> rows = sample.rowOrder();
            for (int r = 0; r < rows.size(); r++) {
                assertEquals(199 - r, sample.table.get(rows.get(r), sample.id));
            }
        }
    }

    @Test
    void defragment_withBudgetZero_movesNothing_butCompletesAPassOverSortedRows() {
        try (Sample sample = new Sample(RecordLayout.SOA, 100, 4, SEED + 5)) {
            RecordOrder byKey = sample.byKey();
            List<Long> before = sample.rowOrder();
            assertEquals(0, sample.table.defragment(0, byKey));
            assertEquals(before, sample.rowOrder());
            assertTrue(((PackedTableImpl) sample.table).isFragmented(), "an unfinished pass completes nothing");
            sample.table.defragment(Long.MAX_VALUE, byKey);
            sample.table.markFragmented();
            assertEquals(0, sample.table.defragment(0, byKey));
            assertFalse(((PackedTableImpl) sample.table).isFragmented(), "a pass over sorted rows needs no swap");
        }
    }

    @Test
    void defragment_badArguments_throwIllegalArgumentAndChangeNothing() {
        try (Sample sample = new Sample(RecordLayout.SOA, 100, 4, SEED + 6)) {
            TableSnapshot before = TableSnapshot.of(sample.table);
            IllegalArgumentException nullOrder = assertThrows(IllegalArgumentException.class,
                    () -> sample.table.defragment(10, null));
            assertTrue(nullOrder.getMessage().contains("'sample'"), nullOrder::getMessage);
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> sample.table.defragment(-1, sample.byKey()));
            assertTrue(negative.getMessage().contains("maxSwaps=-1"), negative::getMessage);
            assertEquals(before, TableSnapshot.of(sample.table));
            assertTrue(((PackedTableImpl) sample.table).isFragmented());
        }
    }

    @Test
    void defragment_duringAnIteration_throwsConcurrentModification_andChangesNothing() {
        try (Sample sample = new Sample(RecordLayout.SOA, 100, 4, SEED + 7)) {
            TableSnapshot before = TableSnapshot.of(sample.table);
            try (ChunkIteration ignored = sample.table.iterate()) {
                assertThrows(ConcurrentModificationException.class,
                        () -> sample.table.defragment(Long.MAX_VALUE, sample.byKey()));
            }
            assertEquals(before, TableSnapshot.of(sample.table));
            assertTrue(sample.table.defragment(Long.MAX_VALUE, sample.byKey()) > 0, "works once the iteration ends");
        }
    }

    @Test
    void defragment_whoseOrderChangesTheStructure_failsFast_andKeepsEveryHandleValid() {
        try (Sample sample = new Sample(RecordLayout.SOA, 100, 4, SEED + 8)) {
            RecordOrder byKey = sample.byKey();
            int[] calls = {0};
            RecordOrder adding = (a, b) -> {
                if (++calls[0] == 30) {
                    sample.table.add();
                }
                return byKey.compare(a, b);
            };
            assertThrows(ConcurrentModificationException.class, () -> sample.table.defragment(Long.MAX_VALUE, adding));
            assertEquals(100, sample.table.size());
            sample.assertEveryHandleReadsItsOwnRecord();
            long h = sample.table.add();          // the guard is released
            assertTrue(sample.table.contains(h));
        }
    }

    @Test
    void defragment_onAClosedTable_throwsIllegalState() {
        Sample sample = new Sample(RecordLayout.SOA, 10, 2, SEED);
        RecordOrder byKey = sample.byKey();
        sample.close();
        assertThrows(IllegalStateException.class, () -> sample.table.defragment(10, byKey));
        assertThrows(IllegalStateException.class, sample.table::markFragmented);
    }

    /** Pairs of rows out of key order: the swaps insertion sort needs. */
    private static long inversions(List<Long> rows, Map<Long, Integer> keyOf) {
        long[] countBelow = new long[64];
        long inversions = 0;
        for (int r = rows.size() - 1; r >= 0; r--) {
            int k = keyOf.get(rows.get(r));
            for (int smaller = 0; smaller < k; smaller++) {
                inversions += countBelow[smaller];
            }
            countBelow[k]++;
        }
        return inversions;
    }
}
