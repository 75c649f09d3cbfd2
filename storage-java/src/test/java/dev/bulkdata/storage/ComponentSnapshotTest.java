package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.Snapshots.LoadOption;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Component table snapshots: saved and loaded with their entity table, exact (size, row order,
 * owners, every field's bits), under the entity table's own tag or a new one; then the loaded
 * pair runs the same random operations as the original and stays equal to it. Files that do not
 * fit the entity table fail with {@code ENTITY_MISMATCH}.
 */
class ComponentSnapshotTest {
    @TempDir
    Path dir;

    private static final Schema ENTITY = Schema.builder("snapEntities").add(FieldType.INT, "kind").build();

    /** Every field type (the mixed test schema), 8 rows per block. */
    private static Schema component(RecordLayout layout) {
        return TestSchemas.mixed(layout);
    }

    /** A pair of tables and the handles the entity table ever issued. */
    private record Pair(Table entities, ComponentTable components, List<Long> issued) {
    }

    /** Applies one step of a seeded sequence to a pair. */
    private static void step(Pair p, SplittableRandom random) {
        List<Field> fields = p.components.schema().fields();
        int op = random.nextInt(12);
        long some = p.issued.isEmpty() ? Handles.NULL : p.issued.get(random.nextInt(p.issued.size()));
        if (op < 3 || p.issued.isEmpty()) {
            p.issued.add(p.entities.add());
        } else if (op < 4) {
            if (p.entities.contains(some)) {
                p.entities.remove(some);                               // its component goes stale
            }
        } else if (op < 7) {
            if (p.entities.contains(some) && !p.components.contains(some)) {
                p.components.add(some);
            }
        } else if (op < 8) {
            if (p.components.contains(some)) {
                p.components.remove(some);
            }
        } else if (op < 11) {
            if (p.components.contains(some)) {
                Field f = fields.get(random.nextInt(fields.size()));
                Values.set(p.components, some, f, Values.normalize(f.type(), random.nextLong()));
            }
        } else if (random.nextBoolean()) {
            p.components.removeDead();
        } else {
            p.components.defragment(random.nextInt(20));
        }
        random.nextLong(); // keeps both runs' streams aligned whichever branch ran
    }

    /** Every row: its owner (as the original names it) and every field's bits. */
    private static List<String> rows(ComponentTable c, LongUnaryOperator unmap) {
        List<String> out = new ArrayList<>();
        for (int row = 0; row < c.size(); row++) {
            StringBuilder sb = new StringBuilder(Long.toHexString(unmap.applyAsLong(c.entityAt(row))));
            for (Field f : c.schema().fields()) {
                sb.append(' ').append(Values.getAt(c, row, f));
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static byte[] save(ComponentTable c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Snapshots.save(c, Channels.newChannel(out));
        return out.toByteArray();
    }

    private static ComponentTable load(byte[] bytes, Table entities, Schema expected) throws IOException {
        return Snapshots.loadComponents(Channels.newChannel(new ByteArrayInputStream(bytes)), "bytes", entities,
                expected);
    }

    private static long unmoved(Table original, Table loaded, long h) {
        AbstractTable t = (AbstractTable) loaded;
        return t.handles.pack(((AbstractTable) original).slots.tag(), t.handles.generation(h) - t.generationShift,
                t.handles.slot(h));
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void savedWithItsEntityTable_loadsExact_underItsOwnTag_andCarriesOn(TableKind kind) throws IOException {
        for (RecordLayout layout : RecordLayout.values()) {
            long seed = Seeds.seed("ComponentSnapshotTest", 0xC0A5_0001L);
            String why = Seeds.replay(seed) + " " + kind + " " + layout;
            SplittableRandom random = new SplittableRandom(seed);
            Table entities = kind.of(ENTITY);
            Schema schema = component(layout);
            Pair p = new Pair(entities, ComponentTable.of(entities, schema), new ArrayList<>());
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 400; i++) {
                    step(p, random);
                }
                List<String> before = rows(p.components, h -> h);
                List<Boolean> has = p.issued.stream().map(p.components::contains).toList();
                Path entityFile = dir.resolve("entities.bulk");
                Path componentFile = dir.resolve("components.bulk");
                Snapshots.save(p.entities, entityFile);
                Snapshots.save(p.components, componentFile);
                p.components.close();
                p.entities.close();

                Table loadedEntities = Snapshots.load(entityFile, ENTITY);
                ComponentTable loaded = Snapshots.loadComponents(componentFile, loadedEntities, schema);
                assertEquals(before, rows(loaded, h -> h), why);
                assertEquals(has, p.issued.stream().map(loaded::contains).toList(), why);
                TableAudit.check(loaded);
                p = new Pair(loadedEntities, loaded, p.issued);
            }
            p.components.close();
            p.entities.close();
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void loadedUnderANewTag_matchesTheOriginal_stepByStep(TableKind kind) throws IOException {
        long seed = Seeds.seed("ComponentSnapshotTest", 0xC0A5_0002L);
        String why = Seeds.replay(seed) + " " + kind;
        SplittableRandom random = new SplittableRandom(seed);
        Schema schema = component(RecordLayout.SOA);
        try (Table entities = kind.of(ENTITY); ComponentTable components = ComponentTable.of(entities, schema)) {
            Pair original = new Pair(entities, components, new ArrayList<>());
            for (int i = 0; i < 600; i++) {
                step(original, random);
            }
            byte[] entityBytes = SnapshotBytes.save(entities);
            byte[] componentBytes = save(components);
            try (Table entities2 = SnapshotBytes.load(entityBytes, ENTITY, LoadOption.NEW_TAG);
                 ComponentTable components2 = load(componentBytes, entities2, null)) {
                LongUnaryOperator unmap = h -> unmoved(entities, entities2, h);
                Pair copy = new Pair(entities2, components2, new ArrayList<>());
                for (long h : original.issued) {
                    copy.issued.add(HandleFieldTest.moved(entities2, h));
                    assertEquals(components.contains(h), components2.contains(HandleFieldTest.moved(entities2, h)), why);
                }
                assertEquals(rows(components, h -> h), rows(components2, unmap), why);
                // The same operations on both: the copy's handles are the original's, moved.
                long seed2 = random.nextLong();
                SplittableRandom a = new SplittableRandom(seed2);
                SplittableRandom b = new SplittableRandom(seed2);
                for (int i = 0; i < 600; i++) {
                    step(original, a);
                    step(copy, b);
                    assertEquals(rows(components, h -> h), rows(components2, unmap), why + " step " + i);
                }
                TableAudit.check(components2);
            }
        }
    }

    @Test
    void aFileThatDoesNotFitTheEntityTable_failsClearly_andLeavesNothingOpen() throws IOException {
        Schema schema = Schema.builder("snapPositions").add(FieldType.FLOAT, "x").build();
        Path entityFile = dir.resolve("e.bulk");
        Path componentFile = dir.resolve("c.bulk");
        Path laterFile = dir.resolve("later.bulk");
        try (Table entities = BulkTable.of(ENTITY); ComponentTable c = ComponentTable.of(entities, schema)) {
            long a = entities.add();
            c.add(a);
            c.set(a, schema.floatField("x"), 5f);
            Snapshots.save(entities, entityFile);
            Snapshots.save(c, componentFile);
            long b = entities.add();                              // after the entity snapshot
            c.add(b);
            Snapshots.save(c, laterFile);
            c.remove(b);
            entities.remove(a);
            Snapshots.save(c, dir.resolve("removed.bulk"));

            try (Table other = BulkTable.of(ENTITY)) {             // another entity table
                StorageFileException e = assertThrows(StorageFileException.class,
                        () -> Snapshots.loadComponents(componentFile, other, schema));
                assertEquals(Reason.ENTITY_MISMATCH, e.reason());
                assertTrue(e.getMessage().contains(componentFile.toString()), e.getMessage());
            }
            StorageFileException kind = assertThrows(StorageFileException.class, () -> Snapshots.load(componentFile));
            assertEquals(Reason.KIND_MISMATCH, kind.reason());
            assertTrue(kind.getMessage().contains("loadComponents"), kind.getMessage());
            kind = assertThrows(StorageFileException.class, () -> Snapshots.loadComponents(entityFile, entities, null));
            assertEquals(Reason.KIND_MISMATCH, kind.reason());
            StorageFileException schemaMismatch = assertThrows(StorageFileException.class, () -> Snapshots.loadComponents(
                    componentFile, entities, Schema.builder("snapPositions").add(FieldType.INT, "x").build()));
            assertEquals(Reason.SCHEMA_MISMATCH, schemaMismatch.reason());
        }
        try (Table entities = Snapshots.load(entityFile, ENTITY)) {
            StorageFileException later = assertThrows(StorageFileException.class,
                    () -> Snapshots.loadComponents(laterFile, entities, schema));
            assertEquals(Reason.ENTITY_MISMATCH, later.reason());
            assertTrue(later.getMessage().contains("saved after the entity table's snapshot"), later.getMessage());
            // Saved after its entity was removed (stale there); the older entity snapshot has it live.
            try (ComponentTable c = Snapshots.loadComponents(dir.resolve("removed.bulk"), entities, schema)) {
                assertEquals(1, c.size());
            }
            byte[] bytes = Files.readAllBytes(componentFile);
            for (int length = 0; length < bytes.length; length += length < 300 ? 7 : 1999) {
                Files.write(laterFile, java.util.Arrays.copyOf(bytes, length));
                StorageFileException cut = assertThrows(StorageFileException.class,
                        () -> Snapshots.loadComponents(laterFile, entities, schema));
                assertTrue(cut.reason() == Reason.TRUNCATED || cut.reason() == Reason.NOT_A_SNAPSHOT, cut.getMessage());
            }
            try (ComponentTable c = Snapshots.loadComponents(componentFile, entities, schema)) {
                long a = c.entityAt(0);
                assertTrue(c.contains(a));
                assertEquals(5f, c.get(a, schema.floatField("x")));
            }
        }
        for (int t = 1; t <= HandleLayout.MAX_TAG; t++) {
            assertNotEquals("snapPositions", TagRegistry.nameOf(t), "a failed load left a component table open");
        }
    }

    @Test
    void savingRefusesStructuralChangesMeanwhile_andAClosedTableIsRefused() throws IOException {
        Schema schema = Schema.builder("snapGuard").add(FieldType.INT, "v").build();
        Table entities = BulkTable.of(ENTITY);
        ComponentTable c = ComponentTable.of(entities, schema);
        long e = entities.add();
        java.nio.channels.WritableByteChannel sneaky = SnapshotBytes.discardingChannel(
                () -> assertThrows(java.util.ConcurrentModificationException.class, () -> c.add(e)));
        Snapshots.save(c, sneaky);
        assertFalse(c.contains(e));
        c.add(e);                                                   // after the save: allowed again
        c.close();
        assertThrows(IllegalStateException.class, () -> Snapshots.save(c, dir.resolve("closed.bulk")));
        entities.close();
    }

    @Test
    void aNullOrClosedComponentTable_isRefusedByEveryMethod_evenWhenThereIsNothingToDo() throws IOException {
        // No handle field, so danglingReferences has nothing to count; the loaded table moved nothing, so remap has
        // nothing to rewrite: both still refuse a closed or null component table, as save does.
        Schema schema = Schema.builder("snapPlain").add(FieldType.FLOAT, "x").build();
        try (Table entities = BulkTable.of(ENTITY)) {
            ComponentTable c = ComponentTable.of(entities, schema);
            c.add(entities.add());
            assertEquals(0, Snapshots.danglingReferences(c, entities));
            assertEquals(0, Snapshots.remap(c, entities));
            c.close();
            assertThrows(IllegalStateException.class, () -> Snapshots.danglingReferences(c, entities));
            assertThrows(IllegalStateException.class, () -> Snapshots.remap(c, entities));
            assertThrows(IllegalStateException.class, () -> Snapshots.save(c, dir.resolve("closed.bulk")));
            assertFalse(Files.exists(dir.resolve("closed.bulk")));
            ComponentTable none = null;
            assertThrows(IllegalArgumentException.class, () -> Snapshots.danglingReferences(none, entities));
            assertThrows(IllegalArgumentException.class, () -> Snapshots.remap(none, entities));
            assertThrows(IllegalArgumentException.class, () -> Snapshots.save(none, dir.resolve("null.bulk")));
        }
    }
}
