package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A SWEEP {@code addAll} that takes free slots a free-bits word at a time leaves the table exactly as {@code add} one by
 * one: slots, generations, live bits, change versions, stats, zeroed reused records, and an init failing mid-batch.
 */
class AddWordsTest {
    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void addAll_takingFreeWords_matchesAddsOneByOne(RecordLayout layout) {
        long seed = Seeds.seed("AddWordsTest", layout.ordinal());
        Schema schema = TestSchemas.particles(layout);
        int spb = schema.slotsPerBlock();
        try (BulkTable batch = BulkTable.of(schema); BulkTable single = BulkTable.of(schema)) {
            FloatField x = schema.floatField("px");
            HandleLayout hb = batch.handleLayout();
            HandleLayout hs = single.handleLayout();
            Random r = new Random(seed);
            List<long[]> live = new ArrayList<>(); // {handle in batch, handle in single}
            for (int round = 0; round < 60; round++) {
                int removals = r.nextBoolean() ? r.nextInt(Math.min(live.size(), 40) + 1) : r.nextInt(live.size() + 1);
                for (int k = 0; k < removals; k++) {
                    long[] p = live.remove(r.nextInt(live.size()));
                    batch.remove(p[0]);
                    single.remove(p[1]);
                }
                for (int k = r.nextInt(3) == 0 ? r.nextInt(70) : 0; k > 0; k--) { // moves the cursor into a word
                    live.add(new long[] {batch.add(), single.add()});
                }
                int markB = batch.markVersion();
                int markS = single.markVersion();
                int adds = r.nextInt(r.nextBoolean() ? 130 : 3 * spb);
                long[] a = new long[adds];
                long[] b = new long[adds];
                int failAt = adds > 0 && r.nextInt(4) == 0 ? r.nextInt(adds) : -1;
                boolean init = failAt >= 0 || r.nextBoolean();
                float base = round * 10_000f;
                if (!init) {
                    batch.addAll(a);
                } else if (failAt < 0) {
                    batch.addAll(a, 0, adds, (chunk, s, i) -> chunk.set(s, x, base + i));
                } else {
                    assertThrows(IllegalStateException.class, () -> batch.addAll(a, 0, adds, (chunk, s, i) -> {
                        if (i == failAt) {
                            throw new IllegalStateException("init fails");
                        }
                        chunk.set(s, x, base + i);
                    }));
                }
                // One by one: init's blocks' worth up to the failing one, whose records from failAt on are removed.
                int added = failAt < 0 ? adds : Math.min(adds, (failAt / spb + 1) * spb);
                int kept = failAt < 0 ? adds : failAt;
                for (int i = 0; i < added; i++) {
                    b[i] = single.add();
                    if (init && i < kept) {
                        single.set(b[i], x, base + i);
                    }
                }
                for (int i = kept; i < added; i++) {
                    single.remove(b[i]);
                }
                for (int i = 0; i < added; i++) {
                    assertEquals(hs.slot(b[i]), hb.slot(a[i]), "slot of add " + i);
                    assertEquals(hs.generation(b[i]), hb.generation(a[i]), "generation of add " + i);
                    assertEquals(i < kept, batch.contains(a[i]));
                    if (i < kept) {
                        assertEquals(init ? base + i : 0f, batch.get(a[i], x), "value of add " + i);
                        batch.set(a[i], x, -1f - i); // stale bytes a later reuse must zero
                        single.set(b[i], x, -1f - i);
                        live.add(new long[] {a[i], b[i]});
                    }
                }
                assertSame(batch, single, x, live, markB, markS);
            }
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " (" + layout + "): " + e, e);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void addAll_reachingASlotNotFree_stopsWhereAddsOneByOneStop(RecordLayout layout) {
        long seed = Seeds.seed("AddWordsTest", 2 + layout.ordinal());
        Schema schema = TestSchemas.particles(layout);
        try (BulkTable batch = BulkTable.of(schema); BulkTable single = BulkTable.of(schema)) {
            Random r = new Random(seed);
            long[] a = new long[400];
            long[] b = new long[400];
            batch.addAll(a);
            single.addAll(b);
            List<Integer> freed = new ArrayList<>();
            for (int i = 0; i < a.length; i++) {
                if (r.nextInt(3) != 0) {
                    batch.remove(a[i]);
                    single.remove(b[i]);
                    freed.add(i + 1);
                }
            }
            int bad = freed.get(r.nextInt(freed.size()));
            ((AbstractTable) batch).slots.markLive(bad); // the free bits name a slot its meta word says is live
            ((AbstractTable) single).slots.markLive(bad);
            assertThrows(IllegalStateException.class, () -> batch.addAll(new long[freed.size()]));
            assertThrows(IllegalStateException.class, () -> {
                for (int i = 0; i < freed.size(); i++) {
                    single.add();
                }
            });
            assertEquals(single.size(), batch.size());
            assertEquals(((AbstractTable) single).slots.cursor, ((AbstractTable) batch).slots.cursor);
            assertArrayEquals(((BulkTableImpl) single).chunks[0].live, ((BulkTableImpl) batch).chunks[0].live);
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " (" + layout + "): " + e, e);
        }
    }

    private static void assertSame(BulkTable batch, BulkTable single, FloatField x, List<long[]> live, int markB, int markS) {
        TableStats sb = batch.stats();
        TableStats ss = single.stats();
        assertEquals(List.of(ss.live(), ss.holes(), ss.retired(), ss.capacity(), ss.blocks()),
                List.of(sb.live(), sb.holes(), sb.retired(), sb.capacity(), sb.blocks()));
        AbstractTable tb = (AbstractTable) batch;
        AbstractTable ts = (AbstractTable) single;
        assertEquals(ts.chunkCount(), tb.chunkCount());
        for (int c = 0; c < tb.chunkCount(); c++) {
            BulkChunk cb = (BulkChunk) tb.chunkAt(c);
            BulkChunk cs = (BulkChunk) ts.chunkAt(c);
            assertEquals(cs.liveCount, cb.liveCount, "live count of chunk " + c);
            assertArrayEquals(cs.live, cb.live, "live bits of chunk " + c);
            assertEquals(ts.versions.structureChangedSince(c, markS), tb.versions.structureChangedSince(c, markB));
            assertEquals(ts.versions.anyChangedSince(c, markS), tb.versions.anyChangedSince(c, markB));
            assertEquals(ts.versions.fieldChangedSince(c, x.index(), markS), tb.versions.fieldChangedSince(c, x.index(), markB));
        }
        for (long[] p : live) {
            assertEquals(single.get(p[1], x), batch.get(p[0], x));
        }
    }
}
