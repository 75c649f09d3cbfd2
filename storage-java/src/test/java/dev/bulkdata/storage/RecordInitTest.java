package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Table#addAll(long[], int, int, RecordInit)}: the records it adds hold what {@code init}
 * wrote, in {@code handlesOut}'s order, over many blocks and into tables with holes, against a
 * model of random batches and removals; what a failing {@code init} leaves; what {@code init}
 * may and may not do.
 */
class RecordInitTest {
    private static Table table(boolean packed, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        return packed ? PackedTable.of(schema) : BulkTable.of(schema);
    }

    @ParameterizedTest
    @CsvSource({"false, SOA", "false, AOS", "true, SOA", "true, AOS"})
    void randomBatchesAndRemovals_matchTheModel(boolean packed, RecordLayout layout) {
        long seed = Seeds.seed("RecordInitTest", (packed ? 2 : 0) + layout.ordinal());
        try (Table t = table(packed, layout)) {
            FloatField x = t.schema().floatField("px");
            FloatField v = t.schema().floatField("vz");
            Random r = new Random(seed);
            Map<Long, Float> model = new HashMap<>();
            List<Long> live = new ArrayList<>();
            int slots = t.schema().slotsPerBlock();
            for (int round = 0; round < 40; round++) {
                int count = r.nextInt(3 * slots + 2);
                long[] out = new long[count + 4];
                int from = r.nextInt(3);
                float base = round * 10_000f;
                t.addAll(out, from, from + count, (chunk, slot, i) -> {
                    assertEquals(0f, chunk.get(slot, x), "a new record's fields are zero");
                    assertEquals(out[i], chunk.handle(slot), "handlesOut holds the record's handle already");
                    chunk.set(slot, x, base + i);
                    chunk.set(slot, v, -(base + i));
                });
                for (int i = from; i < from + count; i++) {
                    assertTrue(model.put(out[i], base + i) == null, "a handle handed out twice");
                    live.add(out[i]);
                }
                int removals = live.isEmpty() ? 0 : r.nextInt(live.size() / 2 + 1);
                for (int k = 0; k < removals; k++) {
                    long h = live.remove(r.nextInt(live.size()));
                    t.remove(h);
                    model.remove(h);
                }
                assertEquals(model.size(), t.size());
                for (Map.Entry<Long, Float> e : model.entrySet()) {
                    assertEquals(e.getValue(), t.get(e.getKey(), x));
                    assertEquals(-e.getValue(), t.get(e.getKey(), v));
                }
            }
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " (packed=" + packed + ", " + layout + "): " + e, e);
        }
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void aFailingInit_keepsTheRecordsBeforeIt_andTakesBackTheRest(boolean packed) {
        try (Table t = table(packed, RecordLayout.SOA)) {
            FloatField x = t.schema().floatField("px");
            long before = t.add();
            int count = 2 * t.schema().slotsPerBlock() + 5;
            int failAt = t.schema().slotsPerBlock() + 3;
            long[] out = new long[count];
            IllegalStateException thrown = new IllegalStateException("init failed");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.addAll(out, 0, count,
                    (chunk, slot, i) -> {
                        if (i == failAt) {
                            throw thrown;
                        }
                        chunk.set(slot, x, i);
                    }));
            assertSame(thrown, e);
            assertEquals(1 + failAt, t.size());
            assertTrue(t.contains(before));
            for (int i = 0; i < failAt; i++) {
                assertEquals(i, t.get(out[i], x));
            }
            for (int i = failAt; i < count; i++) {
                assertFalse(t.contains(out[i]), "record " + i + " was to be taken back");
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void insideInit_structuralChangesThrow_andQueuedOnesApplyAfter(boolean packed) {
        try (Table t = table(packed, RecordLayout.SOA)) {
            FloatField x = t.schema().floatField("px");
            long old = t.add();
            long[] out = new long[3];
            Chunk[] kept = new Chunk[1];
            t.addAll(out, 0, 3, (chunk, slot, i) -> {
                assertThrows(ConcurrentModificationException.class, t::add);
                assertThrows(ConcurrentModificationException.class, () -> t.remove(old));
                if (i == 0) {
                    t.removeLater(old);
                    t.addLater(h -> t.set(h, x, 42f));
                }
                kept[0] = chunk;
                chunk.set(slot, x, 7f);
            });
            assertFalse(t.contains(old), "the queued removal applies when the call returns");
            assertEquals(4, t.size());
            float sum = 0;
            for (long h : out) {
                sum += t.get(h, x);
            }
            assertEquals(21f, sum);
            assertThrows(IllegalStateException.class, () -> kept[0].get(0, x), "a chunk is valid only during init");
        }
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void badArguments_changeNothing(boolean packed) {
        try (Table t = table(packed, RecordLayout.SOA)) {
            long[] out = new long[4];
            assertThrows(IllegalArgumentException.class, () -> t.addAll(out, 0, 4, null));
            assertThrows(IndexOutOfBoundsException.class, () -> t.addAll(out, 2, 5, (c, s, i) -> { }));
            assertThrows(IndexOutOfBoundsException.class, () -> t.addAll(out, 3, 2, (c, s, i) -> { }));
            assertEquals(0, t.size());
            t.close();
            assertThrows(IllegalStateException.class, () -> t.addAll(out, 0, 1, (c, s, i) -> { }));
        }
    }
}
