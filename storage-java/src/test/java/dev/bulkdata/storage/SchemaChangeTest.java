package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loading and reopening under a changed schema: what is refused (a field's type or handle
 * target changed, another table name, any difference with the exact-schema option), that a
 * refusal leaves the file and the process as they were, load defaults declared in the schema
 * builder, and the migration of a mapped file (its temporary file, a failure during it). The
 * random cases are {@code SchemaChangeModelTest}'s.
 */
class SchemaChangeTest {
    @TempDir
    Path dir;

    static final int TAG = 3980;

    static Schema v1(RecordLayout layout) {
        return Schema.builder("particles").layout(layout).add(FieldType.FLOAT, "x", "y").add(FieldType.INT, "id")
                .build();
    }

    /** v1 with {@code health} added (default 100), {@code y} dropped, the rest reordered. */
    static Schema v2(RecordLayout layout) {
        return Schema.builder("particles").layout(layout).add(FieldType.INT, "id").add(FieldType.FLOAT, "x")
                .add(FieldType.FLOAT, "health").loadDefault("health", 100).build();
    }

    static TableBuilder<?, ?, ? extends MappedTable> builder(TableKind kind, Schema schema) {
        return (kind == TableKind.BULK ? BulkTable.builder(schema) : PackedTable.builder(schema)).tag(TAG);
    }

    private static long[] fill(Table t, int n) {
        Schema s = t.schema();
        long[] hs = new long[n];
        for (int i = 0; i < n; i++) {
            hs[i] = t.add();
            t.set(hs[i], s.floatField("x"), i * 0.5f);
            t.set(hs[i], s.floatField("y"), -i);
            t.set(hs[i], s.intField("id"), 1000 + i);
        }
        for (int i = 0; i < n; i += 3) {
            t.remove(hs[i]);
        }
        return hs;
    }

    private static void assertV2(Table t, long[] hs, String what) {
        Schema s = t.schema();
        for (int i = 0; i < hs.length; i++) {
            if (i % 3 == 0) {
                assertFalse(t.contains(hs[i]), what);
                continue;
            }
            assertEquals(i * 0.5f, t.get(hs[i], s.floatField("x")), what);
            assertEquals(1000 + i, t.get(hs[i], s.intField("id")), what);
            assertEquals(100f, t.get(hs[i], s.floatField("health")), what + ": the declared default");
        }
    }

    private void assertNothingLeft(Path file) throws IOException {
        assertNull(TagRegistry.nameOf(TAG), "a refused load or open kept the tag");
        if (Files.exists(file)) {
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                assertTrue(c.tryLock() != null, "a refused open left the file locked");
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.toString().endsWith(".migrating")), "a migration's file was left");
        }
    }

    // -------------------------------------------------------------------------------------------
    // Snapshots

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aSnapshot_ofV1_loadsUnderV2_withTheDefault_andEveryHandle(TableKind kind) throws IOException {
        Path file = dir.resolve("v1.bulk");
        long[] hs;
        try (Table t = builder(kind, v1(RecordLayout.SOA)).build()) {
            hs = fill(t, 5000);
            Snapshots.save(t, file);
        }
        try (Table t = Snapshots.load(file, v2(RecordLayout.AOS))) {
            assertEquals(v2(RecordLayout.AOS).toString(), t.schema().toString());
            assertV2(t, hs, kind.toString());
            // Under a new tag too (the saved one is held): the same records, each handle moved.
            try (Table again = Snapshots.load(file, v2(RecordLayout.SOA), Snapshots.LoadOption.NEW_TAG)) {
                assertEquals(t.size(), again.size());
                HandleLayout layout = again.handleLayout();
                java.util.Map<Long, Long> bySlot = new java.util.HashMap<>();
                for (long saved : hs) {
                    bySlot.put(layout.slot(saved), saved);
                }
                again.forEach((chunk, slot) -> {
                    long saved = bySlot.get(layout.slot(chunk.handle(slot)));
                    assertEquals(t.get(saved, t.schema().intField("id")), chunk.get(slot, again.schema().intField("id")));
                    assertEquals(100f, chunk.get(slot, again.schema().floatField("health")));
                });
                TableAudit.check(again);
            }
            long h = t.add();
            assertEquals(0f, t.get(h, t.schema().floatField("health")), "a new record starts at zero");
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aChangedType_isRefused_namingTheField_andTheFileIsUntouched(TableKind kind) throws IOException {
        Path file = dir.resolve("typed.bulk");
        try (Table t = builder(kind, v1(RecordLayout.SOA)).build()) {
            fill(t, 100);
            Snapshots.save(t, file);
        }
        byte[] before = Files.readAllBytes(file);
        Schema idAsLong = Schema.builder("particles").add(FieldType.FLOAT, "x", "y").add(FieldType.LONG, "id")
                .build();
        StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, idAsLong));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("field 'id' changed its type") && e.getMessage().contains("id:INT")
                && e.getMessage().contains("expected id:LONG"), e.getMessage());
        Schema renamed = Schema.builder("bodies").add(FieldType.FLOAT, "x", "y").add(FieldType.INT, "id").build();
        e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, renamed));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("not 'bodies'"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertNothingLeft(file);
    }

    @Test
    void exactSchema_refusesAnyDifference_andLoadsTheSameSchema() throws IOException {
        Path file = dir.resolve("exact.bulk");
        try (Table t = builder(TableKind.BULK, v1(RecordLayout.SOA)).build()) {
            fill(t, 10);
            Snapshots.save(t, file);
        }
        for (Schema other : new Schema[] {v2(RecordLayout.SOA), v1(RecordLayout.AOS)}) {
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> Snapshots.load(file, other, Snapshots.LoadOption.EXACT_SCHEMA));
            assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
            assertTrue(e.getMessage().contains("the exact schema was asked for"), e.getMessage());
        }
        assertNothingLeft(file);
        Schema same = v1(RecordLayout.SOA);
        try (Table t = Snapshots.load(file, same, Snapshots.LoadOption.EXACT_SCHEMA)) {
            assertEquals(same, t.schema());
        }
    }

    @Test
    void aComponentSnapshot_loadsUnderAChangedSchema_unlessExact() throws IOException {
        Schema owners = Schema.builder("owners").add(FieldType.INT, "n").build();
        Path entityFile = dir.resolve("owners.bulk");
        Path componentFile = dir.resolve("parts.bulk");
        long[] es = new long[300];
        Schema partsV1 = Schema.builder("parts").add(FieldType.SHORT, "a").add(FieldType.DOUBLE, "b").build();
        try (BulkTable entities = BulkTable.builder(owners).tag(TAG).build();
             ComponentTable parts = ComponentTable.of(entities, partsV1)) {
            entities.addAll(es);
            for (int i = 0; i < es.length; i += 2) {
                parts.add(es[i]);
                parts.set(es[i], partsV1.doubleField("b"), i / 4.0);
            }
            Snapshots.save(entities, entityFile);
            Snapshots.save(parts, componentFile);
        }
        Schema partsV2 = Schema.builder("parts").layout(RecordLayout.AOS).add(FieldType.DOUBLE, "b")
                .add(FieldType.BOOLEAN, "on").loadDefault("on", true).build();
        try (Table entities = Snapshots.load(entityFile, owners)) {
            StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.loadComponents(componentFile,
                    entities, partsV2, Snapshots.LoadOption.EXACT_SCHEMA));
            assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
            assertThrows(IllegalArgumentException.class, () -> Snapshots.loadComponents(componentFile, entities,
                    partsV2, Snapshots.LoadOption.NEW_TAG));
            try (ComponentTable parts = Snapshots.loadComponents(componentFile, entities, partsV2)) {
                assertEquals(150, parts.size());
                for (int i = 0; i < es.length; i++) {
                    assertEquals(i % 2 == 0, parts.contains(es[i]));
                    if (i % 2 == 0) {
                        assertEquals(i / 4.0, parts.get(es[i], partsV2.doubleField("b")));
                        assertTrue(parts.get(es[i], partsV2.booleanField("on")));
                    }
                }
            }
        }
    }

    // -------------------------------------------------------------------------------------------
    // Mapped files

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aMappedFile_ofV1_reopensUnderV2_migrated_thenAsItsOwn(TableKind kind) throws IOException {
        Path file = dir.resolve("mapped.bulk");
        long[] hs;
        try (MappedTable t = builder(kind, v1(RecordLayout.SOA)).mapped(file)) {
            hs = fill(t, 5000);
        }
        long sequence;
        try (MappedTable t = builder(kind, v2(RecordLayout.SOA)).mapped(file)) {
            OpenedCheckpoint c = t.openedCheckpoint();
            assertEquals(OpenedCheckpoint.State.CLOSED, c.state());
            assertTrue(c.detail().contains("migrated") && c.detail().contains("added [health], dropped [y]"),
                    c.detail());
            assertV2(t, hs, "migrated");
            sequence = c.sequence();
            t.set(hs[1], t.schema().floatField("health"), 5f);
        }
        assertNothingLeft(file);
        try (MappedTable t = builder(kind, v2(RecordLayout.SOA)).exactSchema(true).mapped(file)) {
            assertEquals(sequence + 1, t.openedCheckpoint().sequence());
            assertFalse(t.openedCheckpoint().detail().contains("migrated"), t.openedCheckpoint().detail());
            assertEquals(5f, t.get(hs[1], t.schema().floatField("health")));
            assertEquals(100f, t.get(hs[2], t.schema().floatField("health")));
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aMappedFile_refusedForAChangedTypeOrExactSchema_staysAsItWas(TableKind kind) throws IOException {
        Path file = dir.resolve("refused.bulk");
        try (MappedTable t = builder(kind, v1(RecordLayout.SOA)).mapped(file)) {
            fill(t, 100);
        }
        byte[] before = Files.readAllBytes(file);
        Schema idAsFloat = Schema.builder("particles").add(FieldType.FLOAT, "x", "y", "id").build();
        StorageFileException e = assertThrows(StorageFileException.class, () -> builder(kind, idAsFloat).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("field 'id' changed its type"), e.getMessage());
        e = assertThrows(StorageFileException.class, () -> builder(kind, v2(RecordLayout.SOA)).exactSchema(true).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("the exact schema was asked for"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file), "a refused open changed the file");
        assertNothingLeft(file);
    }

    /**
     * A migration that fails (here: the tag is held by an open table, found after the new file
     * was started) leaves the file as it was and removes the new file; a new file a crash left
     * behind is replaced by the next migration.
     */
    @Test
    void aFailedMigration_leavesTheFile_andALeftOverFileIsReplaced() throws IOException {
        Path file = dir.resolve("failing.bulk");
        long[] hs;
        try (MappedTable t = builder(TableKind.BULK, v1(RecordLayout.SOA)).mapped(file)) {
            hs = fill(t, 3000);
        }
        byte[] before = Files.readAllBytes(file);
        try (Table holder = BulkTable.builder(v1(RecordLayout.SOA)).tag(TAG).build()) {
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> builder(TableKind.BULK, v2(RecordLayout.SOA)).mapped(file));
            assertEquals(Reason.TAG_CONFLICT, e.reason(), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(file));
        assertNothingLeft(file);
        Path leftOver = dir.resolve("failing.bulk.migrating");
        Files.write(leftOver, new byte[] {1, 2, 3});        // as a crash during a migration leaves it
        try (MappedTable t = builder(TableKind.BULK, v2(RecordLayout.SOA)).mapped(file)) {
            assertV2(t, hs, "migrated past a left-over file");
        }
        assertFalse(Files.exists(leftOver));
    }

    // -------------------------------------------------------------------------------------------
    // Declaring defaults

    @Test
    void loadDefault_checksTheFieldAndTheValue_andLeavesTheBuilderAsItWas() {
        Schema.Builder b = Schema.builder("defaults").add(FieldType.BYTE, "b").add(FieldType.CHAR, "c")
                .add(FieldType.FLOAT, "f").add(FieldType.DOUBLE, "d").add(FieldType.BOOLEAN, "z")
                .add(FieldType.LONG, "l").addHandle("h", "defaults");
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("missing", 1));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("b", 128));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("c", -1));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("f", (1L << 24) + 1));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("f", Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("z", 1));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("h", 0));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("l", 1.5));
        assertThrows(IllegalArgumentException.class, () -> b.loadDefault("f", true));
        Schema s = b.loadDefault("b", -128).loadDefault("c", 65535).loadDefault("f", 0.1)
                .loadDefault("d", 16).loadDefault("z", true).loadDefault("l", Long.MIN_VALUE).build();
        assertEquals(-128, SchemaAccess.loadDefaultBits(s.field("b")));
        assertEquals(65535, SchemaAccess.loadDefaultBits(s.field("c")));
        assertEquals(Float.floatToRawIntBits(0.1f), SchemaAccess.loadDefaultBits(s.field("f")));
        assertEquals(Double.doubleToRawLongBits(16.0), SchemaAccess.loadDefaultBits(s.field("d")));
        assertEquals(1, SchemaAccess.loadDefaultBits(s.field("z")));
        assertEquals(Long.MIN_VALUE, SchemaAccess.loadDefaultBits(s.field("l")));
        assertEquals(0, SchemaAccess.loadDefaultBits(s.field("h")), "refused calls changed nothing");
    }
}
