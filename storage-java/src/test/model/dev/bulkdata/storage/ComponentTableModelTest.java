package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model test of {@link ComponentTable}: random entity adds and removes in the entity
 * table (a {@link BulkTable} or {@link PackedTable}, whose slots get reused, so stale components
 * meet new entities in their slot), and component add / remove / get / set / has, against a
 * {@code HashMap} from live entity to its component's field bits. The model also tracks which
 * entity slots still hold a stale component, which predicts {@link ComponentTable#size()},
 * {@link ComponentTable#removeDead()} and the sweep of {@code forEachChunk}.
 */
class ComponentTableModelTest {
    private static final int OPS = 150_000;
    private static final Schema ENTITIES = TestSchemas.particles(RecordLayout.SOA);

    @ParameterizedTest
    @ValueSource(strings = {"bulk-soa", "packed-soa", "bulk-aos-mixed", "packed-narrow", "bulk-gen3"})
    void randomOperations_matchHashMapModel(String config) {
        long seed = SparseSetTest.SEED ^ config.hashCode();
        System.out.printf("[ComponentTableModelTest] %s seed=%d ops=%,d%n", config, seed, OPS);
        // gen3: 8 generations per slot, so entity slots retire with stale components in them
        Function<Schema, Table> kind = config.startsWith("packed") ? PackedTable::of
                : config.endsWith("gen3") ? s -> BulkTable.builder(s).handleLayout(HandleLayout.of(32, 3)).build()
                : BulkTable::of;
        // mixed: 8 rows per block, so rows cross many blocks; narrow: a hidden link column;
        // particles: 512 rows per block
        Schema components = config.endsWith("mixed") ? TestSchemas.mixed(RecordLayout.AOS)
                : config.endsWith("narrow") ? TestSchemas.narrow(RecordLayout.SOA)
                : TestSchemas.particles(RecordLayout.SOA);
        try (Table entities = kind.apply(ENTITIES);
             ComponentTable table = ComponentTable.of(entities, components)) {
            new Run(seed, entities, table).run();
            if (config.endsWith("gen3")) {
                assertTrue(entities.stats().retired() > 0, "no entity slot retired: the config tests nothing more");
            }
        }
    }

    private static final class Run {
        final long seed;
        final SplittableRandom rng;
        final Table entities;
        final ComponentTable table;
        final Field[] fields;
        final List<Long> live = new ArrayList<>();
        final List<Long> dead = new ArrayList<>();
        /** Live entity to its component's field bits. */
        final Map<Long, long[]> model = new HashMap<>();
        /** Entity slots holding the stale component of a removed entity. */
        final Set<Long> staleSlots = new HashSet<>();
        int step;

        Run(long seed, Table entities, ComponentTable table) {
            this.seed = seed;
            this.rng = new SplittableRandom(seed);
            this.entities = entities;
            this.table = table;
            List<Field> all = table.schema().fields();
            this.fields = all.subList(0, Math.min(8, all.size())).toArray(Field[]::new);
        }

        long anyLive() {
            return live.get(rng.nextInt(live.size()));
        }

        void run() {
            try {
                for (step = 0; step < OPS; step++) {
                    step();
                    assertEquals(model.size() + staleSlots.size(), table.size(), "size");
                    if (step % 10_000 == 0) {
                        table.defragment(rng.nextInt(5_000)); // moves rows; nothing the model sees
                        checkAll();
                    }
                }
                checkAll();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed=" + seed + " step=" + step + ": " + e.getMessage(), e);
            }
        }

        void step() {
            int op = rng.nextInt(100);
            if (op < 15 || live.isEmpty()) {
                live.add(entities.add());
            } else if (op < 25) {
                long e = live.remove(rng.nextInt(live.size()));
                entities.remove(e);
                dead.add(e);
                if (model.remove(e) != null) {
                    staleSlots.add(HandleLayout.DEFAULT.slot(e));
                }
                assertFalse(table.contains(e));
            } else if (op < 45) {
                long e = anyLive();
                if (model.containsKey(e)) {
                    assertThrows(IllegalArgumentException.class, () -> table.add(e));
                } else {
                    int row = table.add(e);
                    assertEquals(e, table.entityAt(row));
                    staleSlots.remove(HandleLayout.DEFAULT.slot(e));
                    model.put(e, new long[fields.length]);
                }
            } else if (op < 55) {
                long e = anyLive();
                if (model.remove(e) != null) {
                    table.remove(e);
                } else {
                    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> table.remove(e));
                    assertFalse(x instanceof InvalidHandleException);
                }
                assertFalse(table.contains(e));
            } else if (op < 75) {
                long e = anyLive();
                long[] values = model.get(e);
                Field f = fields[rng.nextInt(fields.length)];
                if (values == null) {
                    assertThrows(IllegalArgumentException.class, () -> Values.get(table, e, f));
                } else {
                    long bits = Values.normalize(f.type(), rng.nextLong());
                    Values.set(table, e, f, bits);
                    values[f.index()] = bits;
                    assertEquals(bits, Values.get(table, e, f));
                }
            } else if (op < 85) {
                long e = anyLive();
                assertEquals(model.containsKey(e), table.contains(e));
                if (model.containsKey(e)) {
                    assertArrayEquals(model.get(e), read(e), "values of " + entities.format(e));
                }
            } else if (op < 97) {
                if (!dead.isEmpty()) {
                    long e = dead.get(rng.nextInt(dead.size()));
                    assertFalse(table.contains(e));
                    InvalidHandleException x = assertThrows(InvalidHandleException.class,
                            () -> Values.get(table, e, fields[0]));
                    assertEquals(InvalidHandleException.Reason.STALE, x.reason());
                    assertThrows(InvalidHandleException.class, () -> table.add(e));
                    assertThrows(InvalidHandleException.class, () -> table.remove(e));
                }
            } else if (op < 99) {
                assertEquals(staleSlots.size(), table.removeDead());
                staleSlots.clear();
            } else if (rng.nextInt(10) == 0) {
                table.clear();
                model.clear();
                staleSlots.clear();
            } else {
                table.forEachChunk(chunk -> { });
                staleSlots.clear();
            }
        }

        long[] read(long e) {
            long[] out = new long[fields.length];
            for (Field f : fields) {
                out[f.index()] = Values.get(table, e, f);
            }
            return out;
        }

        void checkAll() {
            TableAudit.check(table);
            Map<Long, Integer> seen = new HashMap<>();
            table.forEach((e, row) -> {
                assertTrue(model.containsKey(e), "forEach visited " + entities.format(e) + ", which has no component");
                assertEquals(null, seen.put(e, row), "visited twice");
                for (Field f : fields) {
                    assertEquals(model.get(e)[f.index()], Values.getAt(table, row, f));
                }
            });
            assertEquals(model.keySet(), seen.keySet());
            for (Map.Entry<Long, long[]> entry : model.entrySet()) {
                assertTrue(table.contains(entry.getKey()));
                assertArrayEquals(entry.getValue(), read(entry.getKey()));
            }
        }
    }
}
