package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.format.FileFormat;

import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.Snapshots.LoadOption;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots: exact round trips (the model test, {@link BulkTableModelTest}, saves and reloads
 * at random points of its runs besides), the tag and identity rule, and bad files: each gives
 * one {@link StorageFileException} naming the file and the reason, and leaves no table, tag or
 * file behind.
 */
class SnapshotTest {
    @TempDir
    Path dir;

    /** A table with holes, retired slots (small layout), a cancelled fresh add and varied values. */
    private static Table filled(TableKind kind, RecordLayout layout, String name, long seed) {
        Schema schema = Schema.builder(name).layout(layout).add(FieldType.LONG, "id").add(FieldType.FLOAT, "x")
                .add(FieldType.BYTE, "flag").build();
        Table t = kind.build(schema, HandleLayout.of(12, 2), Integer.MAX_VALUE);
        SplittableRandom random = new SplittableRandom(seed);
        List<Long> live = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            if (live.isEmpty() || random.nextInt(3) > 0) {
                try {
                    long h = t.add();
                    t.set(h, schema.longField("id"), random.nextLong());
                    t.set(h, schema.floatField("x"), random.nextFloat());
                    t.set(h, schema.byteField("flag"), (byte) random.nextInt());
                    live.add(h);
                } catch (CapacityExceededException full) {
                    break;
                }
            } else {
                t.remove(live.remove(random.nextInt(live.size())));
            }
        }
        assertTrue(t.stats().retired() > 0, "the layout's 4 generations retire slots");
        t.cancelAdd(t.add()); // slot `limit` or the head of the free list keeps an advanced generation
        return t;
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void roundTrip_isExact_andTheNextAddsReturnTheSameHandles(TableKind kind) throws IOException {
        for (RecordLayout layout : RecordLayout.values()) {
            Table original = filled(kind, layout, "exact_" + kind + layout, 7);
            TableSnapshot before = TableSnapshot.of(original);
            Path file = dir.resolve("exact.bulk");
            Snapshots.save(original, file);
            long[] next = new long[50];
            original.addAll(next);
            original.close();

            try (Table loaded = Snapshots.load(file, original.schema())) {
                assertEquals(before, TableSnapshot.of(loaded));
                assertEquals(original.handleLayout(), loaded.handleLayout());
                assertTrue(kind == TableKind.BULK ? loaded instanceof BulkTable : loaded instanceof PackedTable);
                long[] again = new long[50];
                loaded.addAll(again);
                assertEquals(java.util.Arrays.toString(next), java.util.Arrays.toString(again));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void afterClearAndRemovals_theSweepRoundTrips_andReusedRecordsReadZero(TableKind kind) throws IOException {
        for (RecordLayout layout : RecordLayout.values()) {
            Table original = filled(kind, layout, "cleared_" + kind + layout, 11);
            Schema schema = original.schema();
            original.clear();              // every slot free, in the sweep; records keep their bytes
            long[] some = new long[700];
            original.addAll(some);         // part of the sweep reused
            for (long h : some) {
                original.set(h, schema.longField("id"), 42);
            }
            original.removeAll(some, 0, 300); // holes linked after the sweep, rows past the end stale
            TableSnapshot before = TableSnapshot.of(original);
            Path file = dir.resolve("cleared.bulk");
            Snapshots.save(original, file);
            long[] next = new long[2_000];
            original.addAll(next);
            original.close();
            try (Table loaded = Snapshots.load(file, schema)) {
                assertEquals(before, TableSnapshot.of(loaded));
                long[] again = new long[2_000];
                loaded.addAll(again);
                assertEquals(java.util.Arrays.toString(next), java.util.Arrays.toString(again),
                        "the loaded table reuses the sweep and the list in the same order");
                for (long h : again) {
                    assertEquals(0L, loaded.get(h, schema.longField("id")), "a reused record reads zero");
                    assertEquals(0f, loaded.get(h, schema.floatField("x")));
                }
                TableAudit.check(loaded);
            }
        }
    }

    /**
     * A load reads its blocks in batches of 16, allocated at once: many blocks (not a multiple
     * of 16), blocks whose size is not a multiple of 64 (each still 64-byte aligned), records so
     * large that a block holds fewer than 64 (live words shorter than 64 bits), and pages of
     * meta words with live and free slots, all live, or none.
     */
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void manyBlocks_oddBlockSizes_andMixedPages_roundTripExactly(TableKind kind) throws IOException {
        Schema large = Schema.builder("large_" + kind).add(FieldType.LONG, "id")
                .add(FieldType.INT, java.util.stream.IntStream.range(0, 255).mapToObj(i -> "f" + i).toArray(String[]::new))
                .build();
        Schema small = Schema.builder("small_" + kind).add(FieldType.LONG, "id").add(FieldType.INT, "x").build();
        for (Schema schema : List.of(large, small)) {
            int records = schema == large ? 9_000 : 20_000;
            Table original = kind.build(schema, HandleLayout.DEFAULT, Integer.MAX_VALUE);
            long[] handles = new long[records];
            original.addAll(handles);
            SplittableRandom random = new SplittableRandom(23);
            for (int i = 0; i < records; i++) {
                original.set(handles[i], schema.longField("id"), random.nextLong());
            }
            // Pages of the index (4096 slots; record i is in slot i + 1): slots [0, 4096) mixed,
            // [4096, 8192) all live, from 8192 none (up to 12288).
            List<Long> removed = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                int slot = i + 1;
                if ((slot < 4_096 && random.nextInt(3) == 0) || (slot >= 8_192 && slot < 12_288)) {
                    removed.add(handles[i]);
                }
            }
            original.removeAll(removed.stream().mapToLong(Long::longValue).toArray());
            TableSnapshot before = TableSnapshot.of(original);
            Path file = dir.resolve("many.bulk");
            Snapshots.save(original, file);
            original.close();
            try (Table loaded = Snapshots.load(file, schema)) {
                assertEquals(before, TableSnapshot.of(loaded), schema.toString());
                AbstractTable table = (AbstractTable) loaded;
                assertTrue(table.blockCount() > 16, table.blockCount() + " blocks");
                for (int b = 0; b < table.blockCount(); b++) {
                    assertEquals(0, table.segments[b].address() % Schema.BLOCK_ALIGNMENT, "block " + b);
                    assertEquals(schema.blockBytes(), table.segments[b].byteSize(), "block " + b);
                }
            }
        }
    }

    @Test
    void emptyAndNeverUsedTables_roundTrip() throws IOException {
        for (TableKind kind : TableKind.values()) {
            Table empty = kind.of(Schema.builder("empty_" + kind).add(FieldType.INT, "a").build());
            byte[] bytes = SnapshotBytes.save(empty);
            empty.close();
            try (Table loaded = SnapshotBytes.load(bytes, null)) {
                assertEquals(0, loaded.size());
                assertEquals(empty.schema().toString(), loaded.schema().toString());
                long h = loaded.add();
                assertTrue(loaded.contains(h));
            }
        }
    }

    @Test
    void loadWithKind_refusesTheOtherKind() throws IOException {
        Table packed = PackedTable.of(Schema.builder("kinds").add(FieldType.INT, "a").build());
        Path file = dir.resolve("kinds.bulk");
        Snapshots.save(packed, file);
        packed.close();
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> Snapshots.load(file, BulkTable.class, null));
        assertEquals(Reason.KIND_MISMATCH, e.reason());
        try (PackedTable loaded = Snapshots.load(file, PackedTable.class, null)) {
            assertEquals(0, loaded.size());
        }
    }

    // ---------------------------------------------------------------------------------------
    // Tags and identity

    @Test
    void fixedTag_isTheHandlesTag_andOnlyFromTheFixedRange() {
        Schema schema = Schema.builder("fixed").add(FieldType.INT, "a").build();
        try (BulkTable t = BulkTable.builder(schema).tag(HandleLayout.MAX_TAG - 1).build()) {
            assertEquals(HandleLayout.MAX_TAG - 1, Handles.tag(t.add()));
            IllegalStateException held = assertThrows(IllegalStateException.class,
                    () -> PackedTable.builder(schema).tag(HandleLayout.MAX_TAG - 1).build());
            assertTrue(held.getMessage().contains("holds it"), held.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> BulkTable.builder(schema).tag(HandleLayout.MIN_FIXED_TAG - 1));
        assertThrows(IllegalArgumentException.class, () -> PackedTable.builder(schema).tag(HandleLayout.MAX_TAG + 1));
        for (int i = 0; i < 50; i++) {
            try (BulkTable automatic = BulkTable.of(schema)) {
                assertTrue(Handles.tag(automatic.add()) < HandleLayout.MIN_FIXED_TAG);
            }
        }
    }

    @Test
    void loadingWhileTheTagIsHeld_failsClearly_unlessUnderANewTag() throws IOException {
        Schema schema = Schema.builder("held").add(FieldType.INT, "a").build();
        IntField a = schema.intField("a");
        int tag = HandleLayout.MIN_FIXED_TAG + 10;
        try (BulkTable original = BulkTable.builder(schema).tag(tag).build()) {
            long h = original.add();
            original.set(h, a, 42);
            Path file = dir.resolve("held.bulk");
            Snapshots.save(original, file);
            StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, schema));
            assertEquals(Reason.TAG_CONFLICT, e.reason());
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("NEW_TAG"), e.getMessage());
            try (Table copy = Snapshots.load(file, schema, LoadOption.NEW_TAG)) {
                assertNotEquals(tag, Handles.tag(firstHandle(copy)));
                long moved = firstHandle(copy);
                assertEquals(42, copy.get(moved, a));
                assertFalse(copy.contains(h), "the copy must not take the original's handles");
                assertFalse(original.contains(moved));
            }
        }
    }

    private static long firstHandle(Table t) {
        long[] first = {0};
        t.forEach((chunk, slot) -> {
            if (first[0] == 0) {
                first[0] = chunk.handle(slot);
            }
        });
        return first[0];
    }

    @Test
    void sameTable_reloadsUnderItsTag_afterItsOwnLaterLife() throws IOException {
        Schema schema = Schema.builder("lineage").add(FieldType.INT, "a").build();
        int tag = HandleLayout.MIN_FIXED_TAG + 11;
        BulkTable t = BulkTable.builder(schema).tag(tag).build();
        long h = t.add();
        Path file = dir.resolve("lineage.bulk");
        Snapshots.save(t, file);
        t.close();
        for (int i = 0; i < 3; i++) {
            Table again = Snapshots.load(file, schema);
            assertTrue(again.contains(h));
            again.add();
            again.close();
        }
    }

    /**
     * The adversarial sequence: table A under tag T is saved and closed; another table B gets T,
     * hands out handles and closes; loading A under T would let B's handles match A's restored
     * slots, so it is refused; under a new tag, none of B's handles is accepted.
     */
    @Test
    void anotherTableUsedTheTag_loadingUnderItIsRefused_andItsHandlesNeverMatch() throws IOException {
        Schema schema = Schema.builder("adversary").add(FieldType.INT, "a").build();
        int tag = HandleLayout.MIN_FIXED_TAG + 12;
        BulkTable a = BulkTable.builder(schema).tag(tag).build();
        long[] aHandles = new long[100];
        a.addAll(aHandles);
        Path file = dir.resolve("a.bulk");
        Snapshots.save(a, file);
        a.close();

        BulkTable b = BulkTable.builder(schema).tag(tag).build();
        long[] bHandles = new long[300];
        b.addAll(bHandles);
        assertTrue(b.contains(bHandles[0]) && !b.contains(aHandles[0]), "B starts above A's generations");
        b.close();

        StorageFileException refused = assertThrows(StorageFileException.class, () -> Snapshots.load(file, schema));
        assertEquals(Reason.TAG_CONFLICT, refused.reason());
        assertTrue(refused.getMessage().contains("handed out handles"), refused.getMessage());
        try (Table loaded = Snapshots.load(file, schema, LoadOption.NEW_TAG)) {
            for (long h : bHandles) {
                assertFalse(loaded.contains(h), "a closed table's handle is accepted by a loaded table");
            }
            assertEquals(100, loaded.size());
        }
        // A new table under T still starts above everything A and B handed out.
        try (BulkTable c = BulkTable.builder(schema).tag(tag).build()) {
            long[] cHandles = new long[300];
            c.addAll(cHandles);
            for (long h : bHandles) {
                assertFalse(c.contains(h));
            }
            for (long h : aHandles) {
                assertFalse(c.contains(h));
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Bad files

    private Path goodFile(TableKind kind, String name) throws IOException {
        Table t = filled(kind, RecordLayout.SOA, name, 3);
        Path file = dir.resolve(name + ".bulk");
        Snapshots.save(t, file);
        t.close();
        return file;
    }

    private void assertFails(Path file, Reason reason, Schema expected) {
        StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, expected));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertEquals(file.toString(), e.source());
    }

    private static void assertNoTableNamed(String name) {
        for (int t = 1; t <= HandleLayout.MAX_TAG; t++) {
            assertNotEquals(name, TagRegistry.nameOf(t), "a failed load left table '" + name + "' open");
        }
    }

    private static byte[] changed(Path file, java.util.function.Consumer<ByteBuffer> change) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        change.accept(ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()));
        return bytes;
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void everyTruncation_isTruncated(TableKind kind) throws IOException {
        Path good = goodFile(kind, "cut_" + kind);
        byte[] bytes = Files.readAllBytes(good);
        Path cut = dir.resolve("cut.bulk");
        for (int length = 0; length < bytes.length; length += length < 200 ? 1 : 997) {
            Files.write(cut, java.util.Arrays.copyOf(bytes, length));
            assertFails(cut, Reason.TRUNCATED, null);
            byte[] prefix = java.util.Arrays.copyOf(bytes, length);
            StorageFileException e = assertThrows(StorageFileException.class, () -> SnapshotBytes.load(prefix, null));
            assertEquals(Reason.TRUNCATED, e.reason(), e.getMessage());
        }
        assertNoTableNamed("cut_" + kind);
        try (Table ok = Snapshots.load(good)) {
            assertTrue(ok.size() > 0);
        }
    }

    @Test
    void wrongMagic_newerVersion_unknownFlags_otherByteOrder() throws IOException {
        Path good = goodFile(TableKind.BULK, "header_cases");
        Path bad = dir.resolve("bad.bulk");
        Files.write(bad, changed(good, b -> b.put(0, (byte) 'X')));
        assertFails(bad, Reason.NOT_A_SNAPSHOT, null);
        Files.write(bad, "hello, I am a text file".getBytes());
        assertFails(bad, Reason.NOT_A_SNAPSHOT, null);
        Files.write(bad, changed(good, b -> b.putInt(FileFormat.AT_FORMAT_VERSION, FileFormat.FORMAT_VERSION + 1)));
        assertFails(bad, Reason.NEWER_VERSION, null);
        Files.write(bad, changed(good, b -> b.putInt(FileFormat.AT_FLAGS, 4)));
        assertFails(bad, Reason.NEWER_VERSION, null);
        byte other = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (byte) 'B' : (byte) 'L';
        Files.write(bad, changed(good, b -> b.put(FileFormat.AT_ORDER, other)));
        assertFails(bad, Reason.BYTE_ORDER, null);
        Files.write(bad, changed(good, b -> b.put(FileFormat.AT_ORDER, (byte) '?')));
        assertFails(bad, Reason.MALFORMED, null);
        assertNoTableNamed("header_cases");
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aFlippedBit_inAnySection_isAChecksumMismatch(TableKind kind) throws IOException {
        Path good = goodFile(kind, "flip_" + kind);
        byte[] bytes = Files.readAllBytes(good);
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        long blocksOffset = header.getLong(FileFormat.AT_BLOCKS_OFFSET);
        int[] offsets = {FileFormat.AT_META_CRC, FileFormat.HEADER_BYTES + 3, FileFormat.HEADER_BYTES + 100,
                (int) blocksOffset + 5, (int) blocksOffset + 5000, bytes.length - 2, bytes.length - 7};
        Path bad = dir.resolve("flip.bulk");
        for (int at : offsets) {
            byte[] copy = bytes.clone();
            copy[at] ^= 0x10;
            Files.write(bad, copy);
            assertFails(bad, Reason.CHECKSUM, null);
        }
        assertNoTableNamed("flip_" + kind);
    }

    @Test
    void lengthFields_neverAllocateWhatTheBytesDoNotBack() throws IOException {
        Path good = goodFile(TableKind.BULK, "lengths");
        // A huge metadata length, the header resealed: from a file it does not fit the size; from
        // a stream, the reader only grows its buffer as bytes arrive.
        byte[] huge = changed(good, b -> {
            long meta = (long) Integer.MAX_VALUE - 100;
            b.putLong(FileFormat.AT_META_LENGTH, meta);
            long offset = FileFormat.alignUp(FileFormat.HEADER_BYTES + meta);
            b.putLong(FileFormat.AT_BLOCKS_OFFSET, offset);
            b.putLong(FileFormat.AT_FILE_LENGTH, offset + 4);
            b.putInt(FileFormat.AT_BLOCK_COUNT, 0);
        });
        resealHeader(huge);
        Path bad = dir.resolve("huge.bulk");
        Files.write(bad, huge);
        assertFails(bad, Reason.TRUNCATED, null);
        StorageFileException e = assertThrows(StorageFileException.class, () -> SnapshotBytes.load(huge, null));
        assertEquals(Reason.TRUNCATED, e.reason());
        // A huge block count: refused by the lengths or the metadata, never allocated.
        byte[] blocks = changed(good, b -> {
            b.putInt(FileFormat.AT_BLOCK_COUNT, Integer.MAX_VALUE);
            b.putLong(FileFormat.AT_FILE_LENGTH, b.getLong(FileFormat.AT_BLOCKS_OFFSET)
                    + (long) Integer.MAX_VALUE * (FileFormat.BLOCK_STRIDE + 4) + 4);
        });
        resealHeader(blocks);
        Files.write(bad, blocks);
        assertFails(bad, Reason.TRUNCATED, null);
        StorageFileException streamed = assertThrows(StorageFileException.class, () -> SnapshotBytes.load(blocks, null));
        assertTrue(streamed.reason() == Reason.MALFORMED || streamed.reason() == Reason.TRUNCATED, streamed.getMessage());
        assertNoTableNamed("lengths");
    }

    private static void resealHeader(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        b.putInt(FileFormat.AT_HEADER_CRC, 0);
        b.putInt(FileFormat.AT_HEADER_CRC, FileFormat.crc32c(bytes, 0, FileFormat.HEADER_BYTES));
    }

    @Test
    void inconsistentContent_behindValidChecksums_isMalformed() throws IOException {
        Path good = goodFile(TableKind.BULK, "inconsistent");
        int meta = FileFormat.HEADER_BYTES;
        Path bad = dir.resolve("inconsistent.bulk");
        // size (at metadata offset 28) one more than the live slots
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.putInt(meta + 28, b.getInt(meta + 28) + 1))));
        assertFails(bad, Reason.MALFORMED, null);
        // free-list length one less
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.putInt(meta + 36, b.getInt(meta + 36) - 1))));
        assertFails(bad, Reason.MALFORMED, null);
        assertNoTableNamed("inconsistent");
    }

    @Test
    void sweepOrder_savesItsCode_andACursorOutOfRangeOrASweep_isMalformed() throws IOException {
        Path good = goodFile(TableKind.BULK, "sweep_cases");     // BulkTable's default order, SWEEP
        int meta = FileFormat.HEADER_BYTES;
        ByteBuffer saved = ByteBuffer.wrap(Files.readAllBytes(good)).order(ByteOrder.nativeOrder());
        assertEquals(2, saved.get(meta + 12), "reuse order code");
        int limit = saved.getInt(meta + 24);
        int cursor = saved.getInt(meta + 48);
        assertTrue(cursor >= 1 && cursor <= limit, "cursor " + cursor + " in [1, " + limit + "]");
        assertEquals(0, saved.getInt(meta + 52), "sweep end");
        Path bad = dir.resolve("sweep_cases_bad.bulk");
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.putInt(meta + 52, 2))));
        assertFails(bad, Reason.MALFORMED, null);
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.putInt(meta + 48, limit + 1))));
        assertFails(bad, Reason.MALFORMED, null);
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.putInt(meta + 48, 0))));
        assertFails(bad, Reason.MALFORMED, null);
        Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.put(meta + 12, (byte) 3))));
        assertFails(bad, Reason.MALFORMED, null);
        try (Table loaded = Snapshots.load(good)) {
            assertEquals(ReuseOrder.SWEEP, ((BulkTable) loaded).reuseOrder());
        }
        assertNoTableNamed("sweep_cases");
    }

    @Test
    void aPackedTableFile_withAReuseOrderOtherThanFifo_isMalformed() throws IOException {
        Path good = goodFile(TableKind.PACKED, "packed_reuse");
        int meta = FileFormat.HEADER_BYTES;
        assertEquals(0, Files.readAllBytes(good)[meta + 12], "a PackedTable writes FIFO's code");
        Path bad = dir.resolve("packed_reuse_bad.packed");
        for (byte code : new byte[] {1, 2}) {
            Files.write(bad, SnapshotBytes.reseal(changed(good, b -> b.put(meta + 12, code))));
            StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(bad));
            assertEquals(Reason.MALFORMED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("FIFO order"), e.getMessage());
        }
        try (Table loaded = Snapshots.load(good)) {
            assertTrue(loaded instanceof PackedTable);
        }
        assertNoTableNamed("packed_reuse");
    }

    @Test
    void schemaMismatch_namesTheDifference() throws IOException {
        Path good = goodFile(TableKind.BULK, "schema_cases");
        Schema other = Schema.builder("schema_cases").add(FieldType.LONG, "id").add(FieldType.INT, "x")
                .add(FieldType.BYTE, "flag").build();
        StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(good, other));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("x:FLOAT") && e.getMessage().contains("x:INT"), e.getMessage());
        Schema renamed = Schema.builder("other_name").add(FieldType.LONG, "id").build();
        assertEquals(Reason.SCHEMA_MISMATCH,
                assertThrows(StorageFileException.class, () -> Snapshots.load(good, renamed)).reason());
        Schema aos = Schema.builder("schema_cases").layout(RecordLayout.AOS).add(FieldType.LONG, "id")
                .add(FieldType.FLOAT, "x").add(FieldType.BYTE, "flag").build();
        e = assertThrows(StorageFileException.class, () -> Snapshots.load(good, aos, Snapshots.LoadOption.EXACT_SCHEMA));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("layout is SOA, not AOS"), e.getMessage());
        try (Table loaded = Snapshots.load(good, aos)) {       // another layout loads unless EXACT_SCHEMA
            assertEquals(aos, loaded.schema());
        }
        assertNoTableNamed("schema_cases");
    }

    @Test
    void savingAClosedTable_throws_andAFailedSaveLeavesTheOldFile() throws IOException {
        Table t = BulkTable.of(Schema.builder("closed_save").add(FieldType.INT, "a").build());
        Path file = dir.resolve("closed.bulk");
        Snapshots.save(t, file);
        byte[] before = Files.readAllBytes(file);
        t.close();
        assertThrows(IllegalStateException.class, () -> Snapshots.save(t, file));
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(Files.readAllBytes(file)));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

    // ---------------------------------------------------------------------------------------
    // What a load keeps and does not keep; the save's guard and file

    /** Fixed tags of the tests below, used by no other test. */
    private static final int KEPT_TAG = 4052;

    private static Schema intAndLong(String name) {
        return Schema.builder(name).add(FieldType.INT, "a").add(FieldType.LONG, "b").build();
    }

    /**
     * Reuse order, handle layout, capacity limit, tag and schema come back; the loaded table is
     * an ordinary in-memory table, not a {@link MappedTable}.
     */
    @Test
    void load_keepsReuseOrderLayoutCapacityLimitTagAndSchema() throws IOException {
        Schema s = intAndLong("exact_opts");
        HandleLayout layout = HandleLayout.of(20, 8);
        int tag = KEPT_TAG;
        Path file = dir.resolve("exact-options.bulk");
        long[] next = new long[10];
        TableSnapshot before;
        TableStats stats;
        try (BulkTable t = BulkTable.builder(s).reuseOrder(ReuseOrder.LIFO).handleLayout(layout).maxCapacity(100)
                .tag(tag).build()) {
            long[] hs = new long[100];
            t.addAll(hs);
            for (int i = 0; i < 100; i += 10) {
                t.remove(hs[i]);
            }
            before = TableSnapshot.of(t);
            stats = t.stats();
            Snapshots.save(t, file);
            t.addAll(next);                                           // fills the 10 holes, LIFO
            assertThrows(CapacityExceededException.class, t::add);
        }
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, null)) {
            assertEquals(ReuseOrder.LIFO, loaded.reuseOrder());
            assertEquals(layout, loaded.handleLayout());
            assertEquals(s.toString(), loaded.schema().toString());
            assertEquals(stats, loaded.stats());
            long[] again = new long[10];
            loaded.addAll(again);
            assertEquals(java.util.Arrays.toString(next), java.util.Arrays.toString(again), "same handles, LIFO");
            assertEquals(tag, Handles.tag(again[0]));
            assertThrows(CapacityExceededException.class, loaded::add, "the capacity limit of 100 is kept");
            assertFalse(loaded instanceof MappedTable, "a loaded table lives in memory");
        }
        try (Table loaded = Snapshots.load(file, s)) {
            assertSame(s, loaded.schema(), "the expected schema itself is used");
            assertEquals(before, TableSnapshot.of(loaded));
        }
    }

    /** Not kept: the add that cancelAdd could undo exactly is a plain remove after a load. */
    @Test
    void load_doesNotKeepTheUndoableAdd_cancelAddIsThenAPlainRemove() throws IOException {
        Schema s = intAndLong("cancel_kept");
        Path file = dir.resolve("cancel.bulk");
        long last;
        try (BulkTable t = BulkTable.builder(s).tag(KEPT_TAG + 1).build()) {
            t.addAll(new long[5]);
            last = t.add();
            Snapshots.save(t, file);
            TableStats beforeAdd = new TableStats("cancel_kept", 5, 0, 0, t.stats().capacity(), t.stats().blocks(),
                    t.stats().nativeBytes());
            assertTrue(t.cancelAdd(last), "in the original the add is undone exactly");
            assertEquals(beforeAdd, t.stats());
        }
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, s)) {
            assertTrue(loaded.contains(last));
            assertFalse(loaded.cancelAdd(last), "after a load it is a remove");
            assertFalse(loaded.contains(last));
            assertEquals(5, loaded.size());
            assertEquals(1, loaded.stats().holes(), "the slot is a hole, as after remove");
        }
    }

    /** Not kept: a PackedTable's last defragment order; the loaded table starts fragmented. */
    @Test
    void load_ofAPackedTable_startsFragmented() throws IOException {
        Schema s = intAndLong("packed_order");
        IntField a = s.intField("a");
        Path file = dir.resolve("packed.bulk");
        AtomicReference<Table> current = new AtomicReference<>();
        AtomicLong comparisons = new AtomicLong();
        RecordOrder byA = (x, y) -> {
            comparisons.incrementAndGet();
            return Integer.compare(current.get().get(x, a), current.get().get(y, a));
        };
        try (PackedTable t = PackedTable.builder(s).tag(KEPT_TAG + 2).build()) {
            current.set(t);
            long[] hs = new long[300];
            t.addAll(hs);
            for (int i = 0; i < hs.length; i++) {
                t.set(hs[i], a, (i * 7919) % 300);
            }
            t.markFragmented();
            while (t.defragment(Long.MAX_VALUE, byA) > 0) {
                // until a pass completes
            }
            comparisons.set(0);
            assertEquals(0, t.defragment(Long.MAX_VALUE, byA));
            assertEquals(0, comparisons.get(), "after a completed pass the same order returns at once");
            Snapshots.save(t, file);
        }
        try (PackedTable loaded = Snapshots.load(file, PackedTable.class, s)) {
            current.set(loaded);
            comparisons.set(0);
            assertEquals(0, loaded.defragment(Long.MAX_VALUE, byA), "the rows are in order");
            assertTrue(comparisons.get() > 0, "the loaded table is fragmented: defragment makes a pass");
        }
    }

    /**
     * A save holds the table's iteration guard: adds, removes and clears meanwhile throw
     * ConcurrentModificationException; the table is writable again after the save.
     */
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void save_holdsTheIterationGuard(TableKind kind) throws IOException {
        Schema s = intAndLong("save_guard_" + kind);
        try (Table t = kind.of(s)) {
            long h = t.add();
            int[] refused = {0};
            WritableByteChannel sneaky = SnapshotBytes.discardingChannel(() -> {
                assertThrows(ConcurrentModificationException.class, t::add);
                assertThrows(ConcurrentModificationException.class, () -> t.remove(h));
                assertThrows(ConcurrentModificationException.class, t::clear);
                refused[0]++;
            });
            Snapshots.save(t, sneaky);
            assertTrue(refused[0] > 0);
            assertEquals(1, t.size());
            t.remove(h);                                             // after the save: allowed again
            assertEquals(0, t.size());
        }
    }

    /** save(table, path) replaces what the path held and leaves no temporary file. */
    @Test
    void save_toAPath_replacesTheFile_andLeavesNoTemporaryFile() throws IOException {
        Path file = dir.resolve("replace.bulk");
        Files.writeString(file, "an older file");
        try (BulkTable t = BulkTable.of(intAndLong("replace"))) {
            t.addAll(new long[3]);
            Snapshots.save(t, file);
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList());
        }
        try (Table loaded = Snapshots.load(file, LoadOption.NEW_TAG)) {
            assertEquals(3, loaded.size());
        }
    }
}
