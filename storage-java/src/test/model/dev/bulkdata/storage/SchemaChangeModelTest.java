package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model test of loading under a changed schema (issue 40, point 6): each round draws a
 * random schema A (field types, handle targets, layout), fills a table of it at random (adds,
 * removes, a clear, values of every field) against a model, and derives a random schema B from
 * A: some of A's fields dropped, new ones added (some with a declared
 * {@link Schema.Builder#loadDefault load default}, also on kept fields, where it must not
 * apply), the order shuffled, the layout drawn again. The table is saved under A and loaded
 * under B ({@link Snapshots#load}, {@link Snapshots#loadComponents}, or a mapped file reopened
 * through a builder of B, which migrates it). Checked: every live record's kept fields equal
 * the model, its added fields their default, every handle (live, removed) as before, the
 * iteration order, the free list in order, the next add's handle, the table's invariants
 * ({@link TableAudit}); a migrated file reopens again without a migration.
 *
 * <p>The seed is {@code -Dbulkdata.seed} or a fixed one; every failure names it and the round,
 * with both schemas.
 */
class SchemaChangeModelTest {
    static final long DEFAULT_SEED = 0x5C4E_3A40L;
    static final String NAME = "evolving";
    static final int TAG = 3990;

    @TempDir
    Path dir;

    /** A field of a drawn schema, and the load default it declares (bits as stored), if any. */
    record Spec(String name, FieldType type, String target, boolean declared, long defaultBits) {
        Spec withoutDefault() {
            return new Spec(name, type, target, false, 0);
        }
    }

    /** A schema as drawn: its fields and layout, and the schema built from them. */
    record Drawn(List<Spec> fields, RecordLayout layout, Schema schema) {
        static Drawn of(String table, List<Spec> fields, RecordLayout layout) {
            Schema.Builder b = Schema.builder(table).layout(layout);
            for (Spec f : fields) {
                if (f.type == FieldType.HANDLE) {
                    b.addHandle(f.name, f.target);
                } else {
                    b.add(f.type, f.name);
                }
            }
            for (Spec f : fields) {
                if (f.declared) {
                    switch (f.type) {
                        case FLOAT -> b.loadDefault(f.name, (double) Float.intBitsToFloat((int) f.defaultBits));
                        case DOUBLE -> b.loadDefault(f.name, Double.longBitsToDouble(f.defaultBits));
                        case BOOLEAN -> b.loadDefault(f.name, f.defaultBits != 0);
                        default -> b.loadDefault(f.name, f.defaultBits);
                    }
                }
            }
            return new Drawn(fields, layout, b.build());
        }

        Spec spec(String name) {
            for (Spec f : fields) {
                if (f.name.equals(name)) {
                    return f;
                }
            }
            return null;
        }
    }

    // -------------------------------------------------------------------------------------------
    // Drawing schemas

    static Spec randomField(SplittableRandom random, String name, boolean withDefault) {
        FieldType type = FieldType.values()[random.nextInt(FieldType.values().length)];
        String target = type == FieldType.HANDLE ? (random.nextBoolean() ? NAME : "others") : null;
        Spec spec = new Spec(name, type, target, false, 0);
        return withDefault ? withDefault(random, spec) : spec;
    }

    /** {@return the field with a random load default declared (none for a handle field)} */
    static Spec withDefault(SplittableRandom random, Spec f) {
        FieldType type = f.type;
        if (type == FieldType.HANDLE) {
            return f;
        }
        String name = f.name;
        String target = f.target;
        long bits = switch (type) {
            case FLOAT -> Float.floatToRawIntBits(random.nextInt(-1000, 1000) / 8f);
            case DOUBLE -> Double.doubleToRawLongBits(random.nextInt(-100_000, 100_000) / 16.0);
            case BOOLEAN -> 1;
            default -> Values.normalize(type, random.nextLong());
        };
        return new Spec(name, type, target, bits != 0 || random.nextBoolean(), bits);
    }

    static Drawn schemaA(SplittableRandom random) {
        int n = 1 + random.nextInt(7);
        List<Spec> fields = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fields.add(randomField(random, "f" + i, random.nextInt(4) == 0));
        }
        return Drawn.of(NAME, fields, random.nextBoolean() ? RecordLayout.SOA : RecordLayout.AOS);
    }

    /** B: some of A's fields dropped, new ones added, the order shuffled, the layout drawn again. */
    static Drawn schemaB(SplittableRandom random, Drawn a) {
        List<Spec> fields = new ArrayList<>();
        for (Spec f : a.fields) {
            if (random.nextInt(4) != 0) {
                // kept; a default declared on a kept field must not apply (the file has the field)
                fields.add(random.nextInt(3) == 0 ? withDefault(random, f.withoutDefault()) : f.withoutDefault());
            }
        }
        int added = random.nextInt(fields.isEmpty() ? 1 : 0, 4);
        for (int i = 0; i < added; i++) {
            fields.add(randomField(random, "g" + i, random.nextBoolean()));
        }
        Collections.shuffle(fields, new java.util.Random(random.nextLong()));
        return Drawn.of(NAME, fields, random.nextBoolean() ? RecordLayout.SOA : RecordLayout.AOS);
    }

    // -------------------------------------------------------------------------------------------
    // The model of one table

    /** What the saved table held: every live handle's values (A's field order), its order, its free list. */
    static final class Model {
        final Map<Long, long[]> live = new LinkedHashMap<>();
        final List<Long> removed = new ArrayList<>();
        long[] order;
        int[] freeSlots;

        void fill(Table t, Drawn a, SplittableRandom random) {
            int adds = random.nextInt(4) == 0 ? random.nextInt(2000, 5000) : random.nextInt(0, 700);
            List<Long> handles = new ArrayList<>();
            for (int i = 0; i < adds; i++) {
                handles.add(t.add());
            }
            if (random.nextInt(5) == 0 && !handles.isEmpty()) {
                t.clear();
                removed.addAll(handles.subList(0, Math.min(16, handles.size())));
                handles.clear();
                for (int i = random.nextInt(300); i > 0; i--) {
                    handles.add(t.add());
                }
            }
            Collections.shuffle(handles, new java.util.Random(random.nextLong()));
            int removes = handles.isEmpty() ? 0 : random.nextInt(handles.size());
            for (int i = 0; i < removes; i++) {
                long h = handles.removeLast();
                t.remove(h);
                if (removed.size() < 64) {
                    removed.add(h);
                }
            }
            for (int i = random.nextInt(200); i > 0; i--) {
                handles.add(t.add());      // reusing free slots
            }
            for (long h : handles) {
                long[] values = new long[a.fields.size()];
                for (int f = 0; f < values.length; f++) {
                    Field field = a.schema.fields().get(f);
                    values[f] = Values.normalize(field.type(), random.nextLong());
                    Values.set(t, h, field, values[f]);
                }
                live.put(h, values);
            }
            order = order(t);
            freeSlots = TableAudit.freeSlots(t);
        }

        static long[] order(Table t) {
            long[] order = new long[t.size()];
            int[] at = {0};
            t.forEach((chunk, slot) -> order[at[0]++] = chunk.handle(slot));
            return order;
        }

        /** The bits a field of B holds in record {@code h}: the saved value if A has it, else B's default. */
        long expected(Drawn a, Drawn b, long h, Field f) {
            Spec inA = a.spec(f.name());
            if (inA != null) {
                return live.get(h)[a.fields.indexOf(inA)];
            }
            Spec spec = b.spec(f.name());
            return spec.declared ? spec.defaultBits : 0;
        }

        void check(Table t, Drawn a, Drawn b, String what) {
            assertSame(b.schema, t.schema(), what + ": the loaded table has the expected schema");
            assertEquals(live.size(), t.size(), what + ": size");
            for (Map.Entry<Long, long[]> e : live.entrySet()) {
                long h = e.getKey();
                assertTrue(t.contains(h), what + ": handle " + Long.toHexString(h) + " from before the save");
                for (Field f : b.schema.fields()) {
                    assertEquals(expected(a, b, h, f), Values.get(t, h, f), what + ": " + Long.toHexString(h)
                            + " field " + f.name());
                }
            }
            for (long h : removed) {
                assertFalse(t.contains(h), what + ": removed handle " + Long.toHexString(h));
            }
            assertArrayEquals(order, order(t), what + ": iteration order");
            assertArrayEquals(freeSlots, TableAudit.freeSlots(t), what + ": free list in reuse order");
            TableAudit.check(t);
        }
    }

    static TableBuilder<?, ?, ? extends MappedTable> builder(boolean bulk, Schema schema, ReuseOrder reuse) {
        return bulk ? BulkTable.builder(schema).reuseOrder(reuse).tag(TAG) : PackedTable.builder(schema).tag(TAG);
    }

    static String describe(long seed, int round, Drawn a, Drawn b) {
        return Seeds.replay(seed) + ", round " + round + ": A " + a.schema + " " + a.fields + ", B " + b.schema
                + " " + b.fields;
    }

    // -------------------------------------------------------------------------------------------

    @Test
    void snapshots_savedUnderA_loadUnderB() throws IOException {
        long seed = Seeds.seed("SchemaChangeModelTest.snapshots", DEFAULT_SEED);
        int loads = 0;
        for (int round = 0; round < 150; round++) {
            SplittableRandom random = new SplittableRandom(seed + round * 0x9E3779B97F4A7C15L);
            Drawn a = schemaA(random);
            Drawn b = schemaB(random, a);
            boolean bulk = random.nextBoolean();
            ReuseOrder reuse = ReuseOrder.values()[random.nextInt(ReuseOrder.values().length)];
            String what = describe(seed, round, a, b) + (bulk ? ", BulkTable " + reuse : ", PackedTable");
            try {
                Model model = new Model();
                byte[] bytes = null;
                Path file = dir.resolve("round" + round + ".bulk");
                long next;
                try (Table t = builder(bulk, a.schema, reuse).build()) {
                    model.fill(t, a, random);
                    if (random.nextBoolean()) {
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        Snapshots.save(t, Channels.newChannel(out));
                        bytes = out.toByteArray();
                    } else {
                        Snapshots.save(t, file);
                    }
                    next = t.add();
                }
                Class<? extends Table> kind = bulk ? BulkTable.class : PackedTable.class;
                try (Table loaded = bytes != null
                        ? Snapshots.load(Channels.newChannel(new ByteArrayInputStream(bytes)), "bytes", kind, b.schema)
                        : Snapshots.load(file, kind, b.schema)) {
                    model.check(loaded, a, b, what);
                    assertEquals(next, loaded.add(), what + ": the next add");
                    for (Field f : b.schema.fields()) {
                        assertEquals(0L, Values.get(loaded, next, f), what + ": a new record starts at zero");
                    }
                }
                loads++;
            } catch (Throwable e) {
                throw new AssertionError(what, e);
            }
        }
        assertEquals(150, loads);
    }

    @Test
    void mappedFiles_writtenUnderA_reopenUnderB_migrated() throws IOException {
        long seed = Seeds.seed("SchemaChangeModelTest.mapped", DEFAULT_SEED + 1);
        int notClosed = 0;
        for (int round = 0; round < 40; round++) {
            SplittableRandom random = new SplittableRandom(seed + round * 0x9E3779B97F4A7C15L);
            Drawn a = schemaA(random);
            Drawn b = schemaB(random, a);
            boolean bulk = random.nextBoolean();
            boolean checksums = random.nextBoolean();
            ReuseOrder reuse = ReuseOrder.values()[random.nextInt(ReuseOrder.values().length)];
            String what = describe(seed, round, a, b) + (bulk ? ", BulkTable " + reuse : ", PackedTable")
                    + (checksums ? ", block checksums" : "");
            try {
                Model model = new Model();
                Path file = dir.resolve("mapped" + round + ".bulk");
                boolean crash = random.nextInt(3) == 0;
                Path crashed = dir.resolve("crashed" + round + ".bulk");
                try (MappedTable t = builder(bulk, a.schema, reuse).blockChecksums(checksums).mapped(file)) {
                    model.fill(t, a, random);
                    if (crash) {
                        t.checkpoint();
                        Files.write(crashed, Files.readAllBytes(file)); // as a crash after the checkpoint leaves it
                        t.add();
                    }
                }
                Path opened = crash ? crashed : file;
                notClosed += crash ? 1 : 0;
                long sequence;
                try (MappedTable t = builder(bulk, b.schema, reuse).blockChecksums(checksums).mapped(opened)) {
                    OpenedCheckpoint c = t.openedCheckpoint();
                    assertEquals(crash ? OpenedCheckpoint.State.NOT_CLOSED : OpenedCheckpoint.State.CLOSED, c.state(),
                            what + ": " + c.detail());
                    assertTrue(c.detail().contains("migrated"), what + ": " + c.detail());
                    model.check(t, a, b, what + ", migrated");
                    sequence = c.sequence();
                }
                try (Stream<Path> files = Files.list(dir)) {
                    assertFalse(files.anyMatch(p -> p.getFileName().toString().endsWith(".migrating")),
                            what + ": the migration's new file was renamed");
                }
                try (MappedTable t = builder(bulk, b.schema, reuse).blockChecksums(checksums).exactSchema(true)
                        .mapped(opened)) {
                    OpenedCheckpoint c = t.openedCheckpoint();
                    assertEquals(OpenedCheckpoint.State.CLOSED, c.state(), what + ": " + c.detail());
                    assertEquals(sequence + 1, c.sequence(), what + ": closed once since the migration");
                    assertFalse(c.detail().contains("migrated"), what + ": " + c.detail());
                    model.check(t, a, b, what + ", reopened after the migration");
                }
            } catch (Throwable e) {
                throw new AssertionError(what, e);
            }
        }
        assertTrue(notClosed > 0, "no round reopened a file that was not closed");
    }

    @Test
    void componentSnapshots_savedUnderA_loadUnderB() throws IOException {
        long seed = Seeds.seed("SchemaChangeModelTest.components", DEFAULT_SEED + 2);
        Schema entitySchema = Schema.builder("owners").add(FieldType.INT, "id").build();
        for (int round = 0; round < 40; round++) {
            SplittableRandom random = new SplittableRandom(seed + round * 0x9E3779B97F4A7C15L);
            Drawn a = schemaA(random);
            Drawn b = schemaB(random, a);
            String what = describe(seed, round, a, b);
            try {
                Path entityFile = dir.resolve("owners" + round + ".bulk");
                Path componentFile = dir.resolve("components" + round + ".bulk");
                Map<Long, long[]> model = new LinkedHashMap<>();
                List<Long> without = new ArrayList<>();
                try (BulkTable entities = BulkTable.builder(entitySchema).tag(TAG - 1).build();
                     ComponentTable components = ComponentTable.of(entities, a.schema)) {
                    int n = random.nextInt(1, 3000);
                    for (int i = 0; i < n; i++) {
                        long e = entities.add();
                        if (random.nextInt(3) == 0) {
                            without.add(e);
                            continue;
                        }
                        components.add(e);
                        long[] values = new long[a.fields.size()];
                        for (int f = 0; f < values.length; f++) {
                            Field field = a.schema.fields().get(f);
                            values[f] = Values.normalize(field.type(), random.nextLong());
                            Values.set(components, e, field, values[f]);
                        }
                        model.put(e, values);
                    }
                    Snapshots.save(entities, entityFile);
                    Snapshots.save(components, componentFile);
                }
                try (Table entities = Snapshots.load(entityFile, entitySchema);
                     ComponentTable loaded = Snapshots.loadComponents(componentFile, entities, b.schema)) {
                    assertSame(b.schema, loaded.schema(), what);
                    assertEquals(model.size(), loaded.size(), what);
                    int row = 0;
                    for (Map.Entry<Long, long[]> e : model.entrySet()) {
                        assertEquals(e.getKey(), loaded.entityAt(row++), what + ": row order");
                        assertTrue(loaded.contains(e.getKey()), what);
                        for (Field f : b.schema.fields()) {
                            Spec inA = a.spec(f.name());
                            Spec spec = b.spec(f.name());
                            long expected = inA != null ? e.getValue()[a.fields.indexOf(inA)]
                                    : spec.declared ? spec.defaultBits : 0;
                            assertEquals(expected, Values.get(loaded, e.getKey(), f), what + ": field " + f.name());
                        }
                    }
                    for (long e : without) {
                        assertFalse(loaded.contains(e), what);
                    }
                    TableAudit.check(loaded);
                }
            } catch (Throwable e) {
                throw new AssertionError(what, e);
            }
        }
    }

    /** The drawn schemas cover what the test claims: drops, adds with and without defaults, moves, layouts. */
    @Test
    void theDrawnChanges_coverEveryKind() {
        long seed = Seeds.fromProperty(DEFAULT_SEED);
        int dropped = 0;
        int addedWithDefault = 0;
        int addedAtZero = 0;
        int keptWithDefault = 0;
        int reordered = 0;
        int relaid = 0;
        for (int round = 0; round < 150; round++) {
            SplittableRandom random = new SplittableRandom(seed + round * 0x9E3779B97F4A7C15L);
            Drawn a = schemaA(random);
            Drawn b = schemaB(random, a);
            List<String> keptInA = new ArrayList<>();
            List<String> keptInB = new ArrayList<>();
            for (Spec f : a.fields) {
                if (b.spec(f.name) == null) {
                    dropped++;
                } else {
                    keptInA.add(f.name);
                }
            }
            for (Spec f : b.fields) {
                Spec inA = a.spec(f.name);
                if (inA == null) {
                    addedWithDefault += f.declared && f.defaultBits != 0 ? 1 : 0;
                    addedAtZero += f.declared && f.defaultBits != 0 ? 0 : 1;
                } else {
                    keptInB.add(f.name);
                    keptWithDefault += f.declared && f.defaultBits != 0 ? 1 : 0;
                }
            }
            reordered += keptInA.equals(keptInB) ? 0 : 1;
            relaid += a.layout == b.layout ? 0 : 1;
        }
        int[] counts = {dropped, addedWithDefault, addedAtZero, keptWithDefault, reordered, relaid};
        assertTrue(Arrays.stream(counts).allMatch(c -> c >= 10), "dropped, added with a default, added at zero,"
                + " kept with a default, reordered, another layout: " + Arrays.toString(counts));
    }
}
