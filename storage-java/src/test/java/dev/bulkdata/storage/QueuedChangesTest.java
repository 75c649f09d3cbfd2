package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Changes queued during a pass ({@link Table#removeLater}, {@link Table#addLater},
 * {@link Chunk#removeLater}, {@link Chunk#addLater}): checked against a model over random
 * passes of every kind (record, chunk, open iteration, nested, parallel on a pool), and the
 * order of the adds checked to be the same whichever threads ran the chunks.
 */
class QueuedChangesTest {
    private static final Schema SCHEMA = TestSchemas.particles(RecordLayout.SOA);
    private static final FloatField T = SCHEMA.floatField("t");
    private static ExecutorService pool;
    /** A default-layout handle's slot and generation, without the tag. */
    private static final long MASK = (1L << (HandleLayout.DEFAULT.slotBits() + HandleLayout.DEFAULT.generationBits())) - 1;

    @BeforeAll
    static void startPool() {
        pool = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "queue-worker");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stopPool() {
        pool.shutdownNow();
    }

    private static Table table(boolean packed) {
        return packed ? PackedTable.of(SCHEMA) : BulkTable.of(SCHEMA);
    }

    /** Every live record's handle and {@code t}, read with no pass open. */
    private static Map<Long, Float> contents(Table table) {
        Map<Long, Float> seen = new TreeMap<>();
        table.forEach((chunk, s) -> seen.put(chunk.handle(s), chunk.get(s, T)));
        return seen;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void randomPassesWithQueuedChanges_matchTheModel_andAddsComeOutInTheDocumentedOrder(boolean packed) {
        long seed = Seeds.seed("QueuedChangesTest", packed ? 0x0E0E_0002L : 0x0E0E_0001L);
        try {
            List<Long> first = run(seed, packed, true);
            List<Long> again = run(seed, packed, false);
            assertEquals(first.size(), again.size());
            for (int i = 0; i < first.size(); i++) {
                // Two tables, two tags: the slot and generation must match.
                assertEquals(first.get(i) & MASK, again.get(i) & MASK, "add " + i + ": the adds' handles depend"
                        + " on which threads ran the chunks");
            }
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " (packed=" + packed + "): " + e, e);
        }
    }

    /**
     * One seeded run: 60 passes, each of a random kind, removing and adding at random through the
     * table and the chunks; returns every added record's handle, in the order added.
     */
    private static List<Long> run(long seed, boolean packed, boolean parallel) {
        Random random = new Random(seed);
        List<Long> added = new ArrayList<>();
        try (Table table = table(packed)) {
            Map<Long, Float> model = new HashMap<>();
            for (int i = 0; i < 3000; i++) {
                long h = table.add();
                table.set(h, T, i);
                model.put(h, (float) i);
            }
            float next = 1_000_000f;
            for (int pass = 0; pass < 60; pass++) {
                int kind = random.nextInt(5);
                double removeRate = random.nextDouble() * 0.3;
                double addRate = random.nextDouble() * 0.2;
                long passSeed = random.nextLong();
                float base = next;
                next += 100_000f;
                // What the pass queues, per visited record, decided from the record's own value so
                // that any thread visiting it decides the same.
                Map<Integer, List<Float>> chunkAdds = new ConcurrentHashMap<>();
                List<Float> tableAdds = new ArrayList<>();
                java.util.Set<Long> removed = ConcurrentHashMap.newKeySet();
                RecordVisitor visit = (chunk, s) -> {
                    long h = chunk.handle(s);
                    float t = chunk.get(s, T);
                    chunk.set(s, T, t + 1f);
                    Random r = new Random(passSeed ^ Float.floatToIntBits(t) * 0x9E3779B97F4A7C15L);
                    if (r.nextDouble() < removeRate) {
                        if (r.nextBoolean()) {
                            chunk.removeLater(s);
                        } else {
                            table.removeLater(h);
                        }
                        if (r.nextInt(4) == 0) {
                            table.removeLater(h); // queued twice: removed once
                        }
                        removed.add(h);
                        assertTrue(table.contains(h), "a record queued for removal stays live during the pass");
                    }
                    if (r.nextDouble() < addRate) {
                        float value = base + Math.abs(t);
                        if (kind == 4 || r.nextBoolean()) {
                            chunkAdds.computeIfAbsent(chunk.index(), c -> new ArrayList<>()).add(value);
                            chunk.addLater(nh -> {
                                table.set(nh, T, value);
                                added.add(nh);
                            });
                        } else {
                            tableAdds.add(value);
                            table.addLater(nh -> {
                                table.set(nh, T, value);
                                added.add(nh);
                            });
                        }
                    }
                };
                int sizeBefore = table.size();
                switch (kind) {
                    case 0 -> table.forEach(visit);
                    case 1 -> table.forEachChunk(chunk -> {
                        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                            visit.visit(chunk, s);
                        }
                    });
                    case 2 -> {
                        try (ChunkIteration it = table.iterate()) {
                            for (Chunk chunk : it) {
                                for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                                    visit.visit(chunk, s);
                                }
                            }
                            assertEquals(sizeBefore, table.size(), "nothing applied while the iteration is open");
                        }
                    }
                    case 3 -> {
                        // A pass inside an open iteration: its end applies nothing, the outer one's does.
                        try (ChunkIteration outer = table.iterate()) {
                            table.forEach(visit);
                            assertEquals(sizeBefore, table.size(), "an inner pass's end applies nothing");
                        }
                    }
                    default -> table.forEachChunk(pool, parallel ? 3 : 1, chunk -> {
                        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                            visit.visit(chunk, s);
                        }
                    });
                }
                // The model: every record visited once (+1), then the removals, then the adds in order.
                model.replaceAll((h, t) -> t + 1f);
                for (long h : removed) {
                    assertFalse(table.contains(h), "queued removal not applied at the pass's end");
                    model.remove(h);
                }
                List<Float> order = new ArrayList<>();
                new TreeMap<>(chunkAdds).values().forEach(order::addAll);
                order.addAll(tableAdds);
                List<Long> mine = added.subList(added.size() - order.size(), added.size());
                for (int i = 0; i < order.size(); i++) {
                    assertEquals(order.get(i), table.get(mine.get(i), T), "add " + i + " of pass " + pass
                            + " out of the documented order");
                    model.put(mine.get(i), order.get(i));
                }
                assertEquals(new TreeMap<>(model), contents(table), "pass " + pass + " (kind " + kind + ")");
                assertEquals(model.size(), table.size());
            }
        }
        return added;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theParticleIdiom_expireAndSpawnInOnePass_keepsTheTableFromGrowing(boolean packed) {
        try (Table table = table(packed)) {
            for (int i = 0; i < 5000; i++) {
                long h = table.add();
                table.set(h, T, i % 10);
            }
            int capacity = table.capacity();
            for (int frame = 0; frame < 50; frame++) {
                table.forEach((chunk, s) -> {
                    float life = chunk.get(s, T) - 1f;
                    chunk.set(s, T, life);
                    if (life < 0f) {
                        chunk.removeLater(s);
                        table.addLater(h -> table.set(h, T, 9f));
                    }
                });
                assertEquals(5000, table.size());
                assertEquals(capacity, table.capacity(), "frame " + frame + ": removals apply first, adds reuse");
            }
        }
    }

    @Test
    void outsideAPass_removeLaterAndAddLaterActAtOnce() {
        try (Table table = table(false)) {
            long h = table.add();
            table.removeLater(h);
            assertFalse(table.contains(h));
            long[] got = new long[1];
            table.addLater(nh -> {
                got[0] = nh;
                table.set(nh, T, 5f);
            });
            assertTrue(table.contains(got[0]));
            assertEquals(5f, table.get(got[0], T));
            assertEquals(0, table.applyQueued());
        }
    }

    @Test
    void aBadHandleThrowsWhenQueued_andTheRestOfThePassStands() {
        try (Table table = table(false)) {
            long stale = table.add();
            table.remove(stale);
            long live = table.add();
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> table.forEach((chunk, s) -> {
                table.removeLater(chunk.handle(s));
                table.removeLater(stale);
            }));
            assertEquals(InvalidHandleException.Reason.STALE, e.reason());
            // The pass threw, but what it queued before is applied at its end.
            assertFalse(table.contains(live));
            assertEquals(0, table.size());
        }
    }

    @Test
    void anInitThatThrows_takesItsRecordBack_andLeavesTheLaterAddsQueued() {
        try (Table table = table(true)) {
            long keep = table.add();
            List<Long> added = new ArrayList<>();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.forEach((chunk, s) -> {
                table.addLater(added::add);
                table.addLater(h -> {
                    throw new IllegalStateException("init failed");
                });
                table.addLater(added::add);
            }));
            assertEquals("init failed", e.getMessage());
            assertEquals(1, added.size());
            assertEquals(2, table.size(), "the failing init's record is taken back");
            assertEquals(1, table.applyQueued(), "the add after the failing one stayed queued");
            assertEquals(3, table.size());
            assertTrue(table.contains(keep));
            assertEquals(0, table.applyQueued());
        }
    }

    @Test
    void applyQueuedDuringAPass_throws_andRemoveStillThrowsWithAPointerToRemoveLater() {
        try (Table table = table(false)) {
            long h = table.add();
            table.forEach((chunk, s) -> {
                assertThrows(ConcurrentModificationException.class, table::applyQueued);
                ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class,
                        () -> table.remove(h));
                assertTrue(e.getMessage().contains("removeLater"), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> table.addLater(null));
                assertThrows(IllegalArgumentException.class, () -> chunk.addLater(null));
                assertThrows(IllegalArgumentException.class, () -> chunk.removeLater(s + 1));
            });
            assertTrue(table.contains(h), "nothing was queued");
        }
    }

    @Test
    void aChunkKeptPastItsPass_queuesNothing() {
        try (Table table = table(false)) {
            table.add();
            Chunk[] kept = new Chunk[1];
            table.forEachChunk(chunk -> kept[0] = chunk);
            assertThrows(IllegalStateException.class, () -> kept[0].removeLater(0));
            assertThrows(IllegalStateException.class, () -> kept[0].addLater(h -> { }));
            assertEquals(1, table.size());
        }
    }

    @Test
    void aComponentTablesChunks_queueNothing_withAMessageThatSaysWhatToDo() {
        try (Table entities = table(false);
             ComponentTable velocity = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA))) {
            long e = entities.add();
            velocity.add(e);
            velocity.forEachChunk(chunk -> {
                IllegalStateException x = assertThrows(IllegalStateException.class, () -> chunk.removeLater(0));
                assertTrue(x.getMessage().contains("entities.removeLater"), x.getMessage());
                assertThrows(IllegalStateException.class, () -> chunk.addLater(h -> { }));
            });
            assertTrue(velocity.contains(e));
        }
    }

    @Test
    void aParallelPassThatThrows_stillAppliesWhatItQueued_andReportsTheFailure() {
        try (Table table = table(false)) {
            long[] handles = new long[10 * SCHEMA.slotsPerBlock()];
            table.addAll(handles);
            java.util.concurrent.atomic.AtomicInteger visited = new java.util.concurrent.atomic.AtomicInteger();
            RuntimeException e = assertThrows(RuntimeException.class, () -> table.forEachChunk(pool, 3, chunk -> {
                chunk.removeLater(chunk.nextLive(0));
                visited.incrementAndGet(); // a pass stops handing out chunks after a failure
                if (chunk.index() == 7) {
                    throw new IllegalArgumentException("chunk 7");
                }
            }));
            assertTrue(String.valueOf(e.getMessage()).contains("chunk 7")
                    || e.getCause() != null && e.getCause().getMessage().contains("chunk 7"), e.toString());
            assertFalse(table.contains(handles[7 * SCHEMA.slotsPerBlock() - 1])); // chunk 7's first slot
            assertEquals(handles.length - visited.get(), table.size());
            assertEquals(0, table.applyQueued());
        }
    }
}
