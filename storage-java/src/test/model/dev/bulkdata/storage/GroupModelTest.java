package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model test of {@link Group}: random entity adds and removes (slots reused, so stale
 * components meet new entities in their slot), component adds and removes in every member,
 * {@code removeDead}, {@code defragment}, {@code clear}, and both passes, against
 * {@code HashMap}s from live entity to its component values. After every few steps the group's
 * invariant is checked through the public API: rows {@code 0..size()-1} of every member belong
 * to the same entities in the same order, no entity has rows outside the group in every
 * member, and {@link Group#contains} answers what the model says. Each pass adds a value of
 * member B to a field of member A; the result is compared with the model's sums. The members'
 * blocks hold different numbers of rows (2048, 512, 8192), so runs break inside blocks.
 */
class GroupModelTest {
    private static final int OPS = 40_000;
    private static final Schema ENTITIES = Schema.builder("entity").add(FieldType.INT, "kind").build();
    /** 8 bytes a row: 2048 rows a block. */
    private static final Schema A = Schema.builder("a").add(FieldType.FLOAT, "x").add(FieldType.INT, "tag").build();
    /** 24 bytes a row: 512 rows a block. */
    private static final Schema B = Schema.builder("b").add(FieldType.LONG, "w", "u", "v").build();
    /** 2 bytes a row. */
    private static final Schema C = Schema.builder("c").add(FieldType.SHORT, "s").build();
    private static final FloatField X = A.floatField("x");
    private static final LongField W = B.longField("w");
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    @ParameterizedTest
    @ValueSource(strings = {"bulk-2", "packed-2", "bulk-3", "packed-3-gen3"})
    void randomOperations_matchHashMapModel(String config) {
        long seed = Seeds.seed("GroupModelTest " + config, SparseSetTest.SEED ^ config.hashCode());
        Table entities = config.startsWith("packed")
                ? (config.endsWith("gen3") ? PackedTable.builder(ENTITIES).handleLayout(HandleLayout.of(32, 3)).build()
                        : PackedTable.of(ENTITIES))
                : BulkTable.of(ENTITIES);
        try (entities;
             ComponentTable a = ComponentTable.of(entities, A);
             ComponentTable b = ComponentTable.of(entities, B);
             ComponentTable c = ComponentTable.of(entities, C)) {
            Run run = new Run(seed, entities, a, b, config.contains("-3") ? c : null);
            try {
                run.run();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(config + ", step " + run.step + ", " + Seeds.replay(seed) + ": " + e, e);
            }
        }
    }

    private static final class Run {
        final SplittableRandom rng;
        final Table entities;
        final ComponentTable a;
        final ComponentTable b;
        /** The third member, or null for a group of two. */
        final ComponentTable c;
        final ComponentTable[] members;
        final Group group;
        final List<Long> live = new ArrayList<>();
        final Map<Long, Float> xs = new HashMap<>();
        final Map<Long, Long> ws = new HashMap<>();
        final Set<Long> cs = new HashSet<>();
        int step;
        int passes;

        Run(long seed, Table entities, ComponentTable a, ComponentTable b, ComponentTable c) {
            this.rng = new SplittableRandom(seed);
            this.entities = entities;
            this.a = a;
            this.b = b;
            this.c = c;
            this.members = c == null ? new ComponentTable[] {a, b} : new ComponentTable[] {a, b, c};
            // Some components exist before the group is made: of() must gather them.
            for (int i = 0; i < 300; i++) {
                addEntity();
                long e = live.get(live.size() - 1);
                if (rng.nextInt(2) == 0) {
                    addA(e);
                }
                if (rng.nextInt(2) == 0) {
                    addB(e);
                }
                if (c != null && rng.nextInt(2) == 0) {
                    addC(e);
                }
            }
            removeEntity(); // a stale component in the gathered rows
            this.group = Group.of(members);
        }

        boolean inAll(long e) {
            return xs.containsKey(e) && ws.containsKey(e) && (c == null || cs.contains(e));
        }

        void run() {
            checkInvariant();
            for (step = 0; step < OPS; step++) {
                int target = step < OPS / 2 ? 3000 : 1500;
                int op = rng.nextInt(100);
                if (op < 14) {
                    if (live.size() < target || live.isEmpty()) {
                        addEntity();
                    } else {
                        removeEntity();
                    }
                } else if (op < 22) {
                    if (!live.isEmpty()) {
                        removeEntity();
                    }
                } else if (op < 36) {
                    randomLive().filter(e -> !xs.containsKey(e)).ifPresent(this::addA);
                } else if (op < 50) {
                    randomLive().filter(e -> !ws.containsKey(e)).ifPresent(this::addB);
                } else if (op < 58) {
                    randomLive().filter(xs::containsKey).ifPresent(e -> {
                        a.remove(e);
                        xs.remove(e);
                    });
                } else if (op < 66) {
                    randomLive().filter(ws::containsKey).ifPresent(e -> {
                        b.remove(e);
                        ws.remove(e);
                    });
                } else if (op < 74) {
                    if (c != null) {
                        randomLive().ifPresent(e -> {
                            if (cs.contains(e)) {
                                c.remove(e);
                                cs.remove(e);
                            } else {
                                addC(e);
                            }
                        });
                    }
                } else if (op < 78) {
                    members[rng.nextInt(members.length)].removeDead();
                } else if (op < 82) {
                    members[rng.nextInt(members.length)].defragment(rng.nextInt(60));
                } else if (op < 86) {
                    rejectedChanges();
                } else if (op < 91) {
                    passByRuns();
                } else if (op < 96) {
                    passByEntities();
                } else if (op < 97 && rng.nextInt(20) == 0) {
                    ComponentTable m = members[rng.nextInt(members.length)];
                    m.clear();
                    (m == a ? xs.keySet() : m == b ? ws.keySet() : cs).clear();
                } else {
                    checkJoin();
                }
                if (step % 7 == 0) {
                    checkInvariant();
                }
            }
            passByRuns();
            checkInvariant();
            assertTrue(passes > 1000, "too few passes: " + passes);
        }

        java.util.Optional<Long> randomLive() {
            return live.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(live.get(rng.nextInt(live.size())));
        }

        void addEntity() {
            live.add(entities.add());
        }

        void removeEntity() {
            int i = rng.nextInt(live.size());
            long e = live.get(i);
            live.set(i, live.get(live.size() - 1));
            live.remove(live.size() - 1);
            entities.remove(e);
            xs.remove(e);
            ws.remove(e);
            cs.remove(e);
        }

        void addA(long e) {
            float x = rng.nextInt(1000) / 8f;
            int row = a.add(e);
            a.setAt(row, X, x);        // the row add returns is the component's, after any regrouping
            xs.put(e, x);
            assertTrue(group == null || inAll(e) == group.contains(e));
        }

        void addB(long e) {
            long w = rng.nextInt(64) - 32;
            int row = b.add(e);
            b.setAt(row, W, w);
            ws.put(e, w);
            assertTrue(group == null || inAll(e) == group.contains(e));
        }

        void addC(long e) {
            c.add(e);
            cs.add(e);
            assertTrue(group == null || inAll(e) == group.contains(e));
        }

        /** Rejected changes leave everything as it was. */
        void rejectedChanges() {
            java.util.Optional<Long> some = randomLive().filter(xs::containsKey);
            if (some.isPresent()) {
                long e = some.get();
                int size = group.size();
                assertThrows(IllegalArgumentException.class, () -> a.add(e));
                assertEquals(size, group.size());
            }
            // A structural change of a member during a pass is refused, in every member.
            int before = group.size();
            try {
                group.forEach((entity, row) -> {
                    for (ComponentTable m : members) {
                        assertThrows(java.util.ConcurrentModificationException.class, m::removeDead);
                    }
                    assertTrue(ws.containsKey(entity), "group entity without b");
                    assertThrows(java.util.ConcurrentModificationException.class, () -> b.remove(entity));
                    assertThrows(IllegalStateException.class, () -> group.forEachRun(r -> { }));
                    throw new Stop();
                });
            } catch (Stop expected) {
                // the pass ended from its visitor
            }
            assertTrue(group.size() <= before);      // only the sweep may have shrunk it
            group.forEach((entity, row) -> { });  // the group runs again after a pass that threw
        }

        /** x += w / 2 through runs and columns. */
        void passByRuns() {
            passes++;
            int visits = group.forEachRun(r -> {
                MemorySegment x = r.chunk(0).writableColumn(X);
                MemorySegment w = r.chunk(1).column(W);
                long xs0 = r.slot(0);
                long ws0 = r.slot(1);
                for (int i = 0, n = r.count(); i < n; i++) {
                    x.setAtIndex(F, xs0 + i, x.getAtIndex(F, xs0 + i) + w.getAtIndex(L, ws0 + i) * 0.5f);
                }
            });
            int expected = 0;
            for (long e : live) {
                if (inAll(e)) {
                    xs.put(e, xs.get(e) + ws.get(e) * 0.5f);
                    expected++;
                }
            }
            assertEquals(expected, visits, "entities in the pass");
            assertEquals(expected, group.size(), "group size after the sweep");
            checkValues();
        }

        /** x += w / 2 through forEach, sometimes removing an entity from inside the pass. */
        void passByEntities() {
            passes++;
            Set<Long> visited = new HashSet<>();
            long doomed = live.isEmpty() || rng.nextInt(3) > 0 ? 0 : live.get(rng.nextInt(live.size()));
            int visits = group.forEach((entity, row) -> {
                assertTrue(entities.contains(entity), "a removed entity visited");
                assertTrue(visited.add(entity), "visited twice");
                assertEquals(row, a.rowOf(entity));
                a.setAt(row, X, a.getAt(row, X) + b.getAt(row, W) * 0.5f);
                if (doomed != 0 && entities.contains(doomed)) {
                    entities.remove(doomed);
                }
            });
            if (doomed != 0) {
                live.remove(Long.valueOf(doomed));
                xs.remove(doomed);
                ws.remove(doomed);
                cs.remove(doomed);
            }
            assertEquals(visited.size(), visits);
            for (long e : visited) {
                if (entities.contains(e)) {
                    xs.put(e, xs.get(e) + ws.get(e) * 0.5f);
                }
            }
            for (long e : live) {
                assertEquals(inAll(e), visited.contains(e), "visited iff in every member");
            }
            checkValues();
        }

        void checkJoin() {
            Join join = Join.of(members);
            int[] count = {0};
            join.forEach((entity, rows) -> {
                count[0]++;
                for (int i = 0; i < rows.length; i++) {
                    assertEquals(rows[0], rows[i], "a joined entity in different group rows");
                }
                assertTrue(rows[0] < group.size());
            });
            assertEquals(live.stream().filter(this::inAll).count(), count[0]);
        }

        void checkValues() {
            for (long e : live) {
                Float x = xs.get(e);
                assertEquals(x != null, a.contains(e));
                if (x != null) {
                    assertEquals(Float.floatToIntBits(x), Float.floatToIntBits(a.get(e, X)), "x of " + e);
                }
                Long w = ws.get(e);
                assertEquals(w != null, b.contains(e));
                if (w != null) {
                    assertEquals((long) w, b.get(e, W));
                }
            }
        }

        void checkInvariant() {
            int size = group.size();
            Set<Long> outside = new HashSet<>();
            for (int m = 0; m < members.length; m++) {
                ComponentTable t = members[m];
                assertTrue(size <= t.size());
                for (int r = 0; r < size; r++) {
                    assertEquals(a.entityAt(r), t.entityAt(r), "group row " + r + " of member " + m);
                }
                Set<Long> tail = new HashSet<>();
                for (int r = size; r < t.size(); r++) {
                    tail.add(t.entityAt(r));
                }
                if (m == 0) {
                    outside.addAll(tail);
                } else {
                    outside.retainAll(tail);
                }
            }
            assertTrue(outside.isEmpty(), "entities with rows in every member outside the group: " + outside);
            for (long e : live) {
                assertEquals(inAll(e), group.contains(e), "contains " + e);
            }
            assertFalse(group.contains(0L));
        }
    }

    /** Ends a pass from its visitor. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }
}
