package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Join} against a naive check (every live entity, asked {@code contains} in every table) on
 * random data at 100 %, 50 % and 1 % overlap, 2-way and 3-way, with stale components of
 * removed entities and entity slots reused by new entities mixed in; and the same for bare
 * sparse sets.
 */
class JoinTest {
    private static final Schema ENTITIES = TestSchemas.particles(RecordLayout.SOA);
    private static final int N = 20_000;

    /**
     * Table 0 holds a random 60 % of the entities; each other table holds a {@code percent}
     * share of table 0's entities plus as many entities outside table 0 as it misses, so the
     * tables have similar sizes but only {@code percent} overlap.
     */
    @ParameterizedTest
    @ValueSource(ints = {100, 50, 1})
    void componentJoin_matchesNaiveCheck(int percent) {
        long seed = SparseSetTest.SEED + percent;
        for (int ways = 2; ways <= 3; ways++) {
            try (Table entities = BulkTable.of(ENTITIES)) {
                SplittableRandom rng = new SplittableRandom(seed);
                ComponentTable[] tables = new ComponentTable[ways];
                try {
                    for (int t = 0; t < ways; t++) {
                        tables[t] = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA));
                    }
                    List<Long> live = new ArrayList<>();
                    for (int i = 0; i < N; i++) {
                        live.add(entities.add());
                    }
                    fill(rng, live, tables, percent);
                    check(seed, entities, live, tables);    // no stale row: the join skips the owner checks
                    // Remove some entities (their components go stale), then add new ones that
                    // reuse slots, some of them with components of their own.
                    for (int i = 0; i < N / 10; i++) {
                        entities.remove(live.remove(rng.nextInt(live.size())));
                    }
                    List<Long> fresh = new ArrayList<>();
                    for (int i = 0; i < N / 20; i++) {
                        fresh.add(entities.add());
                    }
                    fill(rng, fresh, tables, percent);
                    live.addAll(fresh);
                    check(seed, entities, live, tables);
                    tables[0].removeDead();                 // one member without stale rows, the others not yet
                    check(seed, entities, live, tables);
                    for (ComponentTable t : tables) {
                        t.removeDead();
                        assertEquals(((AbstractTable) entities).removals, t.cleanAt, "seed=" + seed);
                    }
                    check(seed, entities, live, tables);
                } finally {
                    for (ComponentTable t : tables) {
                        if (t != null) {
                            t.close();
                        }
                    }
                }
            }
        }
    }

    private static void fill(SplittableRandom rng, List<Long> entities, ComponentTable[] tables, int percent) {
        for (long e : entities) {
            boolean inFirst = rng.nextInt(100) < 60;
            if (inFirst) {
                tables[0].add(e);
            }
            for (int t = 1; t < tables.length; t++) {
                boolean in = inFirst ? rng.nextInt(100) < percent : rng.nextInt(100) < 60 * (100 - percent) / 40;
                if (in) {
                    tables[t].add(e);
                }
            }
        }
    }

    private static void check(long seed, Table entities, List<Long> live, ComponentTable[] tables) {
        Map<Long, Boolean> expected = new HashMap<>();
        for (long e : live) {
            boolean all = true;
            for (ComponentTable t : tables) {
                all &= t.contains(e);
            }
            if (all) {
                expected.put(e, Boolean.TRUE);
            }
        }
        Map<Long, Boolean> seen = new HashMap<>();
        int visits = Join.of(tables).forEach((entity, rows) -> {
            assertNull(seen.put(entity, Boolean.TRUE), "seed=" + seed + ": visited twice: " + entities.format(entity));
            for (int t = 0; t < tables.length; t++) {
                assertEquals(entity, tables[t].entityAt(rows[t]), "seed=" + seed + ": row of table " + t);
            }
        });
        assertEquals(expected.keySet(), seen.keySet(), "seed=" + seed);
        assertEquals(expected.size(), visits);
        checkRuns(seed, tables);
    }

    /**
     * {@link Join#forEachRun} against {@link Join#forEach}: the same matches in the same order, each run's rows in one
     * chunk of every member, and a value written through a run's chunk column lands in the match's row.
     */
    private static void checkRuns(long seed, ComponentTable[] tables) {
        Join join = Join.of(tables);
        List<int[]> expected = new ArrayList<>();
        join.forEach((entity, rows) -> expected.add(rows.clone()));
        int[] next = {0};
        int visits = join.forEachRun(run -> {
            assertTrue(run.count() >= 1, "seed=" + seed);
            for (int m = 0; m < tables.length; m++) {
                Chunk chunk = run.chunk(m);
                MemorySegment column = chunk.writableColumn(tables[m].schema().floatField("t"));
                for (int i = 0; i < run.count(); i++) {
                    int row = expected.get(next[0] + i)[m];
                    assertEquals(row, chunk.index() * tables[m].rows.rowsPerBlock() + run.slot(m, i), "seed=" + seed);
                    column.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, run.slot(m, i), next[0] + i + 0.5f);
                }
                int m0 = m;
                assertThrows(IndexOutOfBoundsException.class, () -> run.slot(m0, run.count()));
            }
            next[0] += run.count();
        });
        assertEquals(expected.size(), visits, "seed=" + seed);
        assertEquals(expected.size(), next[0], "seed=" + seed);
        for (int k = 0; k < expected.size(); k++) {
            for (int m = 0; m < tables.length; m++) {
                assertEquals(k + 0.5f, tables[m].getAt(expected.get(k)[m], tables[m].schema().floatField("t")),
                        "seed=" + seed + ", match " + k);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 50, 1})
    void sparseSetJoin_matchesNaiveCheck(int percent) {
        long seed = SparseSetTest.SEED * 31 + percent;
        SplittableRandom rng = new SplittableRandom(seed);
        SparseSet a = new SparseSet();
        SparseSet b = new SparseSet();
        SparseSet c = new SparseSet();
        for (int key = 0; key < N; key++) {
            if (rng.nextInt(100) < 60) {
                a.insert(key);
                if (rng.nextInt(100) < percent) {
                    b.insert(key);
                    c.insert(key);
                }
            } else if (rng.nextInt(100) < 60 * (100 - percent) / 40) {
                b.insert(key);
            }
        }
        for (SparseSet[] sets : new SparseSet[][] {{a, b}, {b, a}, {a, b, c}, {c, b, a}}) {
            Map<Long, Boolean> seen = new HashMap<>();
            int visits = Join.of(sets).forEach((key, rows) -> {
                assertNull(seen.put(key, Boolean.TRUE));
                for (int s = 0; s < sets.length; s++) {
                    assertEquals(key, sets[s].keyAt(rows[s]));
                }
            });
            int expected = 0;
            for (int key = 0; key < N; key++) {
                boolean all = true;
                for (SparseSet s : sets) {
                    all &= s.contains(key);
                }
                if (all) {
                    expected++;
                    assertTrue(seen.containsKey((long) key), "seed=" + seed + ": missed key " + key);
                }
            }
            assertEquals(expected, visits, "seed=" + seed);
            assertEquals(expected, seen.size());
        }
    }

    @Test
    void removingAnEntityDuringTheJoin_skipsIt_andComponentChangesThrow() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable a = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA));
             ComponentTable b = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.AOS))) {
            long e1 = entities.add();
            long e2 = entities.add();
            for (long e : new long[] {e1, e2}) {
                a.add(e);
                b.add(e);
            }
            List<Long> visited = new ArrayList<>();
            Join.of(a, b).forEach((entity, rows) -> {
                visited.add(entity);
                entities.remove(entity == e1 ? e2 : e1);
                assertThrows(ConcurrentModificationException.class, () -> a.remove(entity));
                assertThrows(ConcurrentModificationException.class, () -> b.add(entities.add()));
            });
            assertEquals(List.of(e1), visited);
            assertEquals(2, a.size());
        }
    }

    @Test
    void removingAnEntityDuringARun_skipsItInLaterRuns_andComponentChangesThrow() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable a = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA));
             ComponentTable b = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.AOS))) {
            int perBlock = a.rows.rowsPerBlock();
            List<Long> all = new ArrayList<>();
            for (int i = 0; i < 3 * perBlock; i++) {
                long e = entities.add();
                all.add(e);
                a.add(e);
                b.add(e);
            }
            long sameRun = all.get(1);
            long laterRun = all.get(2 * perBlock + 5);
            List<Integer> counts = new ArrayList<>();
            int visits = Join.of(a, b).forEachRun(run -> {
                if (counts.isEmpty()) {
                    entities.remove(sameRun);       // already gathered: still in this run
                    entities.remove(laterRun);      // gathered later: skipped
                    assertThrows(ConcurrentModificationException.class, () -> a.remove(all.get(0)));
                    assertThrows(ConcurrentModificationException.class, () -> b.add(entities.add()));
                }
                counts.add(run.count());
            });
            assertEquals(3 * perBlock - 1, visits);
            assertEquals(List.of(perBlock, perBlock, perBlock - 1), counts);
            assertEquals(3 * perBlock, a.size());
        }
    }

    @Test
    void rowByTable_isTheRowOfThatMember_andOnlyInsideAVisit() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable a = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA));
             ComponentTable b = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.AOS));
             ComponentTable c = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA))) {
            for (int i = 0; i < 50; i++) {
                long e = entities.add();
                if (i % 3 != 0) {
                    a.add(e);
                }
                b.add(e);   // b's rows differ from a's: every entity is in b, in another order
            }
            Join join = Join.of(b, a);
            int[] checked = {0};
            join.forEach((entity, rows) -> {
                assertEquals(rows[0], join.row(b));
                assertEquals(rows[1], join.row(a));
                assertEquals(entity, a.entityAt(join.row(a)));
                assertEquals(entity, b.entityAt(join.row(b)));
                assertThrows(IllegalArgumentException.class, () -> join.row(c));
                checked[0]++;
            });
            assertEquals(a.size(), checked[0]);
            assertThrows(IllegalStateException.class, () -> join.row(a));
        }
    }

    @Test
    void badJoins_throw() {
        try (Table people = BulkTable.of(ENTITIES);
             Table others = PackedTable.of(ENTITIES);
             ComponentTable a = ComponentTable.of(people, TestSchemas.particles(RecordLayout.SOA));
             ComponentTable b = ComponentTable.of(others, TestSchemas.particles(RecordLayout.SOA))) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> Join.of(a, b)).getMessage()
                    .contains("one entity table"));
            assertThrows(IllegalArgumentException.class, () -> Join.of(a));
            assertThrows(IllegalArgumentException.class, () -> Join.of(a, null));
            assertThrows(IllegalArgumentException.class, () -> Join.of(new SparseSet()));
            assertThrows(IllegalArgumentException.class, () -> Join.of((SparseSet[]) null));
            Join join = Join.of(a, a);
            assertThrows(IllegalArgumentException.class, () -> join.forEach(null));
            assertThrows(IllegalArgumentException.class, () -> join.forEachRun(null));
            assertThrows(IllegalStateException.class,
                    () -> Join.of(new SparseSet(), new SparseSet()).forEachRun(run -> { }));
            long e = people.add();
            a.add(e);
            assertThrows(IllegalStateException.class, () -> join.forEach((x, rows) -> join.forEach((y, r) -> { })));
            assertEquals(1, join.forEach((x, rows) -> { }));
            assertThrows(IllegalStateException.class, () -> join.forEachRun(run -> join.forEachRun(r -> { })));
            assertEquals(1, join.forEachRun(run -> assertThrows(IndexOutOfBoundsException.class, () -> run.chunk(2))));
            a.close();
            assertThrows(IllegalStateException.class, () -> join.forEach((x, rows) -> { }));
            assertThrows(IllegalStateException.class, () -> join.forEachRun(run -> { }));
        }
    }

    @Test
    void separateJoins_runOnSeveralThreadsAtOnce_andChangesWaitForAllOfThem() throws Exception {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable a = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA));
             ComponentTable b = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA))) {
            for (int i = 0; i < N; i++) {
                long e = entities.add();
                a.add(e);
                if (i % 3 == 0) {
                    b.add(e);
                }
            }
            int expected = (N + 2) / 3;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<Integer>> runs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    Join join = Join.of(a, b);
                    runs.add(pool.submit(() -> {
                        int total = 0;
                        for (int r = 0; r < 20; r++) {
                            total += join.forEach((entity, rows) -> { });
                        }
                        return total;
                    }));
                }
                for (java.util.concurrent.Future<Integer> run : runs) {
                    assertEquals(20 * expected, run.get());
                }
            } finally {
                pool.shutdown();
            }
            a.remove(a.entityAt(0)); // every join has ended: changes are allowed again
            assertEquals(N - 1, a.size());
        }
    }
}
