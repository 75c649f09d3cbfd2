package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CheckpointFallback;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.format.FileFormat;
import dev.bulkdata.storage.internal.format.MappedStore;

import dev.bulkdata.storage.schema.StorageFileException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mapped tables: a seeded model run against a twin table in memory with close and reopen at
 * random points, checkpoint and close semantics, the file lock (this process and a child JVM),
 * and bad files. The crash test is {@link MappedCrashTest}.
 */
class MappedTableTest {
    @TempDir
    Path dir;

    private static final int TAG = 3990;

    private static Schema schema(String name, RecordLayout layout) {
        return Schema.builder(name).layout(layout).add(FieldType.INT, "id").add(FieldType.LONG, "v")
                .add(FieldType.BYTE, "flag").build();
    }

    /** A builder with a fixed tag (each test its own: a small layout under a much used tag has no generations left). */
    private static TableBuilder<?, ?, ? extends MappedTable> builder(TableKind kind, Schema schema, HandleLayout layout, int tag) {
        TableBuilder<?, ?, ? extends MappedTable> b = kind == TableKind.BULK ? BulkTable.builder(schema) : PackedTable.builder(schema);
        return b.handleLayout(layout).tag(tag);
    }

    /** Everything observable, with handles stripped of their tag (the twin has another). */
    private static Map<String, Object> state(Table t) {
        TableSnapshot s = TableSnapshot.of(t);
        long mask = HandleBits.payload(t.handleLayout(), -1L);
        Map<String, Object> m = new TreeMap<>();
        Map<Long, List<Long>> records = new TreeMap<>();
        s.records().forEach((h, v) -> records.put(h & mask, v));
        m.put("records", records);
        m.put("order", s.order().stream().map(h -> h & mask).toList());
        m.put("free", s.freeList());
        TableStats st = s.stats();
        m.put("stats", List.of(st.live(), st.holes(), st.retired(), st.capacity(), st.blocks(), st.nativeBytes()));
        return m;
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void modelRun_closedAndReopenedAtRandomPoints_staysEqualToATwinInMemory(TableKind kind) throws IOException {
        long seed = Seeds.seed("MappedTableTest", 0x3A99_ED00L);
        try {
            for (RecordLayout layout : RecordLayout.values()) {
                run(kind, layout, seed);
            }
        } catch (AssertionError | RuntimeException | IOException e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private void run(TableKind kind, RecordLayout layout, long seed) throws IOException {
        Schema schema = schema("model_" + kind + layout, layout);
        HandleLayout handles = HandleLayout.of(12, 2); // 4 generations: slots retire
        Path file = dir.resolve("model_" + kind + layout + ".bulk");
        Table twin = kind.build(schema, handles, Integer.MAX_VALUE);
        int tag = 3900 + 2 * kind.ordinal() + layout.ordinal();
        MappedTable mapped = builder(kind, schema, handles, tag).mapped(file);
        SplittableRandom random = new SplittableRandom(seed);
        List<Long> live = new ArrayList<>();
        long mask = HandleBits.payload(handles, -1L);
        IntField id = schema.intField("id");
        LongField v = schema.longField("v");
        try {
            for (int step = 0; step < 6_000; step++) {
                int op = random.nextInt(100);
                if (op < 45 || live.isEmpty()) {
                    long h;
                    try {
                        h = twin.add();
                    } catch (CapacityExceededException full) {
                        assertThrows(CapacityExceededException.class, mapped::add);
                        continue;
                    }
                    long hm = mapped.add();
                    assertEquals(h & mask, hm & mask, "add returns the same handle");
                    int value = random.nextInt();
                    twin.set(h, id, value);
                    mapped.set(hm, id, value);
                    twin.set(h, v, (long) value << 20);
                    mapped.set(hm, v, (long) value << 20);
                    live.add(h & mask);
                } else if (op < 80) {
                    long h = live.remove(random.nextInt(live.size()));
                    twin.remove(h | tagBits(twin));
                    mapped.remove(h | tagBits(mapped));
                } else if (op < 97) {
                    long h = live.get(random.nextInt(live.size()));
                    int value = random.nextInt();
                    twin.set(h | tagBits(twin), id, value);
                    mapped.set(h | tagBits(mapped), id, value);
                } else if (op < 98) {
                    long h = twin.add();
                    long hm = mapped.add();
                    assertEquals(twin.cancelAdd(h), mapped.cancelAdd(hm));
                } else if (op < 99 && random.nextInt(10) == 0) {
                    twin.clear();
                    mapped.clear();
                    live.clear();
                } else {
                    if (random.nextBoolean()) {
                        mapped.checkpoint();
                    }
                    mapped.close();
                    mapped = builder(kind, schema, handles, tag).mapped(file);
                    assertEquals(state(twin), state(mapped), "after reopen at step " + step);
                }
            }
            assertEquals(state(twin), state(mapped));
        } finally {
            twin.close();
            mapped.close();
        }
    }

    private static long tagBits(Table t) {
        long h = t.add();
        t.cancelAdd(h);
        return h & ~HandleBits.payload(t.handleLayout(), -1L);
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void closeCheckpoints_andReopenKeepsEveryHandle(TableKind kind) throws IOException {
        Schema schema = schema("close_" + kind, RecordLayout.SOA);
        Path file = dir.resolve("close.bulk");
        long[] handles = new long[5_000];
        try (MappedTable t = builder(kind, schema, HandleLayout.DEFAULT, 3910 + kind.ordinal()).mapped(file)) {
            t.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                t.set(handles[i], schema.intField("id"), i);
            }
            t.checkpoint();
            t.set(handles[7], schema.intField("id"), -7); // after the checkpoint; close checkpoints
        }
        try (MappedTable t = builder(kind, schema, HandleLayout.DEFAULT, 3910 + kind.ordinal()).mapped(file)) {
            assertEquals(handles.length, t.size());
            for (int i = 0; i < handles.length; i++) {
                assertEquals(i == 7 ? -7 : i, t.get(handles[i], schema.intField("id")));
            }
            assertTrue(t.stats().nativeBytes() > 0);
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aMappedTable_savesAsASnapshot_andLoadsEqual(TableKind kind) throws IOException {
        Schema schema = schema("saved_" + kind, RecordLayout.AOS);
        Path file = dir.resolve("saved.map");
        Path snapshot = dir.resolve("saved.bulk");
        TableSnapshot before;
        try (MappedTable t = builder(kind, schema, HandleLayout.DEFAULT, 3920 + kind.ordinal()).mapped(file)) {
            long[] hs = new long[3_000];
            t.addAll(hs);
            for (int i = 0; i < hs.length; i += 7) {
                t.set(hs[i], schema.longField("v"), i);
                t.remove(hs[(i + 3) % hs.length]);
            }
            before = TableSnapshot.of(t);
            Snapshots.save(t, snapshot);
        }
        try (Table loaded = Snapshots.load(snapshot, schema)) {
            assertEquals(before, TableSnapshot.of(loaded));
        }
    }

    /**
     * A checkpoint writes only the metadata pages that differ from what its area holds (the
     * checkpoint two back): none after field writes alone, a few after one removal, and the
     * file reopens equal all the same.
     */
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void checkpoint_writesOnlyTheMetadataPagesThatChanged(TableKind kind) throws IOException {
        Schema schema = schema("incremental_" + kind, RecordLayout.SOA);
        Path file = dir.resolve("incremental.bulk");
        long[] hs = new long[50_000];
        Map<String, Object> before;
        try (MappedTable t = builder(kind, schema, HandleLayout.DEFAULT, 3930 + kind.ordinal()).mapped(file)) {
            MappedStore store = ((AbstractTable) t).mapped;
            t.addAll(hs);
            t.checkpoint();
            long whole = store.written().metadataBytes();
            assertTrue(whole >= 4L * hs.length, "a new area takes the whole metadata: " + whole);
            t.checkpoint();             // the other area is new too (it held only the empty table)
            t.checkpoint();             // the areas no longer move: the counters at the end change once more
            t.checkpoint();
            assertEquals(0, store.written().metadataBytes(), "nothing changed since the checkpoint two back");
            for (int i = 0; i < hs.length; i += 3) {
                t.set(hs[i], schema.intField("id"), i); // field writes: blocks only
            }
            t.checkpoint();
            assertEquals(0, store.written().metadataBytes(), "field writes change no metadata");
            t.remove(hs[hs.length / 2]);
            t.checkpoint();
            assertTrue(store.written().metadataBytes() > 0 && store.written().metadataBytes() <= 8L * FileFormat.PAGE,
                    "one removal rewrites a few pages, not " + store.written().metadataBytes() + " of " + whole + " bytes");
            t.checkpoint();             // the area two back lacks the removal too
            assertTrue(store.written().metadataBytes() > 0 && store.written().metadataBytes() <= 8L * FileFormat.PAGE,
                    "written " + store.written().metadataBytes());
            t.checkpoint();
            assertEquals(0, store.written().metadataBytes());
            t.remove(hs[7]);
            long added = t.add();
            t.set(added, schema.longField("v"), 99L);
            before = state(t);
        }
        try (MappedTable t = builder(kind, schema, HandleLayout.DEFAULT, 3930 + kind.ordinal()).mapped(file)) {
            assertEquals(before, state(t));
        }
    }

    @Test
    void onlyAMappedTable_hasACheckpoint_andAClosedOneThrows() throws IOException {
        Schema schema = schema("memory", RecordLayout.SOA);
        try (BulkTable t = BulkTable.of(schema); PackedTable p = PackedTable.of(schema)) {
            assertFalse(t instanceof MappedTable, "an in-memory table's type has no checkpoint");
            assertFalse(p instanceof MappedTable);
        }
        MappedBulkTable t = BulkTable.builder(schema).mapped(dir.resolve("closed.bulk"));
        t.close();
        assertThrows(IllegalStateException.class, t::checkpoint);
    }

    @Test
    void theFileGrowsByRegions_andBlocksAreStridedAt16KiB() throws IOException {
        Schema schema = Schema.builder("grow").add(FieldType.INT, "a", "b", "c").build(); // 12-byte records, 12 KiB blocks
        Path file = dir.resolve("grow.bulk");
        try (MappedBulkTable t = BulkTable.builder(schema).mapped(file)) {
            long[] hs = new long[1024 * 200 - 1]; // 200 blocks (slot 0 is the free list's header): regions of 64 and 128 blocks, then 256
            t.addAll(hs);
            t.set(hs[hs.length - 1], schema.intField("c"), 42);
            assertEquals(200, t.stats().blocks());
            assertEquals(200L * schema.blockBytes(), t.stats().nativeBytes());
        }
        long size = Files.size(file);
        assertTrue(size >= 16384 + (64 + 128 + 256) * 16384L, "file size " + size);
        try (MappedBulkTable t = BulkTable.builder(schema).mapped(file)) {
            assertEquals(1024 * 200 - 1, t.size());
        }
    }

    // -----------------------------------------------------------------------------------------
    // One owner

    @Test
    void aSecondOpenInThisProcess_failsNamingTheFile_andTheFirstStaysUsable() throws IOException {
        Schema schema = schema("owner", RecordLayout.SOA);
        Path file = dir.resolve("owner.bulk");
        try (MappedBulkTable first = BulkTable.builder(schema).mapped(file)) {
            long h = first.add();
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> BulkTable.builder(schema).mapped(file));
            assertEquals(Reason.LOCKED, e.reason());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            first.set(h, schema.intField("id"), 5);
            first.checkpoint();
        }
        try (MappedBulkTable again = BulkTable.builder(schema).mapped(file)) {
            assertEquals(1, again.size());
        }
    }

    @Test
    void anOpenInAnotherProcess_failsNamingTheFile() throws Exception {
        Path file = dir.resolve("other.bulk");
        Path log = dir.resolve("holder.log");
        Process holder = ChildJvm.start(Holder.class, "-Xmx64m", log, file.toString());
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!Files.readString(log).contains("HOLDING")) {
                assertTrue(holder.isAlive(), "holder ended: " + Files.readString(log));
                assertTrue(System.nanoTime() < deadline, "holder did not open the file");
                Thread.sleep(20);
            }
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> BulkTable.builder(Holder.SCHEMA).tag(Holder.TAG).mapped(file));
            assertEquals(Reason.LOCKED, e.reason());
            assertTrue(e.getMessage().contains("another process") && e.getMessage().contains(file.toString()),
                    e.getMessage());
        } finally {
            holder.destroyForcibly().waitFor();
        }
        try (MappedBulkTable t = BulkTable.builder(Holder.SCHEMA).tag(Holder.TAG).mapped(file)) {
            assertEquals(3, t.size()); // the holder's checkpoint; its lock went with the process
        }
    }

    /** Opens a mapped table, checkpoints three records and holds the file until killed. */
    public static final class Holder {
        static final Schema SCHEMA = Schema.builder("holder").add(FieldType.INT, "x").build();
        static final int TAG = 3995;

        public static void main(String[] args) throws Exception {
            MappedBulkTable t = BulkTable.builder(SCHEMA).tag(TAG).mapped(Path.of(args[0]));
            t.addAll(new long[3]);
            t.checkpoint();
            System.out.println("HOLDING");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }

    @Test
    void aTableDroppedWithoutClose_isUnmappedAndUnlockedByItsCleaner_withoutACheckpoint() throws Exception {
        Schema schema = schema("dropped", RecordLayout.SOA);
        Path file = dir.resolve("dropped.bulk");
        dropMappedTable(schema, file);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            System.gc();
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                var lock = c.tryLock();
                if (lock != null) {
                    lock.release();
                    break;
                }
            } catch (java.nio.channels.OverlappingFileLockException stillHeld) {
                // the dropped table's channel still holds it in this JVM
            }
            assertTrue(System.nanoTime() < deadline, "the dropped table's cleaner did not release the file");
            Thread.sleep(20);
        }
        try (MappedBulkTable t = BulkTable.builder(schema).tag(3997).mapped(file)) {
            assertEquals(5, t.size()); // the checkpoint, not the adds made after it
        }
    }

    private static void dropMappedTable(Schema schema, Path file) throws IOException {
        MappedBulkTable t = BulkTable.builder(schema).tag(3997).mapped(file);
        t.addAll(new long[5]);
        t.checkpoint();
        t.addAll(new long[3]);
    }

    // -----------------------------------------------------------------------------------------
    // Bad files: one exception, nothing left mapped or locked

    private Path validFile(String name) throws IOException {
        Path file = dir.resolve(name + ".bulk");
        Schema schema = schema(name, RecordLayout.SOA);
        try (MappedBulkTable t = BulkTable.builder(schema).tag(TAG).mapped(file)) {
            long[] hs = new long[2_000];
            t.addAll(hs);
            for (int i = 0; i < hs.length; i += 3) {
                t.remove(hs[i]);
            }
            t.checkpoint(); // two checkpoints: both header slots are used
        }
        return file;
    }

    private void assertFails(Path file, Reason reason, String name) {
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema(name, RecordLayout.SOA)).tag(TAG).mapped(file));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertUnlocked(file);
    }

    /** Nothing of a failed open holds the file: it can be locked and deleted, and no table holds the tag. */
    private static void assertUnlocked(Path file) {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            var lock = c.tryLock();
            assertTrue(lock != null, "the file is still locked");
            lock.release();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertNull(dev.bulkdata.storage.internal.tags.TagRegistry.nameOf(TAG), "the tag is still held");
    }

    private static void patch(Path file, long at, byte[] bytes) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(bytes), at);
        }
    }

    private static byte[] read(Path file, long at, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            c.read(b, at);
        }
        return b.array();
    }

    @Test
    void wrongMagic_truncated_andBothHeadersDamaged_failClearly() throws IOException {
        Path file = validFile("bad1");
        patch(file, 0, new byte[] {'X'});
        patch(file, 4096, new byte[] {'X'});
        assertFails(file, Reason.NOT_A_SNAPSHOT, "bad1");

        Path small = dir.resolve("small.bulk");
        Files.write(small, new byte[] {(byte) 0x89, 'B', 'U'});
        assertFails(small, Reason.TRUNCATED, "bad1");

        Path cut = validFile("bad2");
        try (FileChannel c = FileChannel.open(cut, StandardOpenOption.WRITE)) {
            c.truncate(20_000); // inside the first region: the metadata areas are past it
        }
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema("bad2", RecordLayout.SOA)).tag(TAG).mapped(cut));
        assertEquals(Reason.TRUNCATED, e.reason(), e.getMessage());
        assertUnlocked(cut);
    }

    @Test
    void aDamagedNewestCheckpoint_fallsBackToTheOlder_andBothDamaged_isAChecksumError() throws IOException {
        Path file = validFile("crc");
        ByteBuffer a = ByteBuffer.wrap(read(file, 0, 64)).order(ByteOrder.nativeOrder());
        ByteBuffer b = ByteBuffer.wrap(read(file, 4096, 64)).order(ByteOrder.nativeOrder());
        boolean bNewer = b.getLong(56) > a.getLong(56);
        long newest = bNewer ? 4096 : 0;
        // Flip a bit of the newest header: the older checkpoint (same structure here) opens.
        byte[] h = read(file, newest + 30, 1);
        patch(file, newest + 30, new byte[] {(byte) (h[0] ^ 1)});
        try (MappedBulkTable t = BulkTable.builder(schema("crc", RecordLayout.SOA)).tag(TAG)
                .checkpointFallback(CheckpointFallback.AFTER_CRASH_OR_DAMAGE).mapped(file)) {
            assertEquals(2_000 - 667, t.size());
        }
        // That open's close wrote a new checkpoint over the damaged slot; damage both now.
        for (long at : new long[] {0, 4096}) {
            byte[] x = read(file, at + 22, 1);
            patch(file, at + 22, new byte[] {(byte) (x[0] ^ 4)});
        }
        assertFails(file, Reason.CHECKSUM, "crc");
    }

    @Test
    void damagedMetadata_isAChecksumError_whenTheOtherSlotIsGone() throws IOException {
        Path file = validFile("meta");
        ByteBuffer a = ByteBuffer.wrap(read(file, 0, 64)).order(ByteOrder.nativeOrder());
        ByteBuffer b = ByteBuffer.wrap(read(file, 4096, 64)).order(ByteOrder.nativeOrder());
        boolean bNewer = b.getLong(56) > a.getLong(56);
        long metaOffset = (bNewer ? b : a).getLong(32);
        patch(file, bNewer ? 0 : 4096, new byte[64]); // the older slot: zeros
        byte[] x = read(file, metaOffset + 100, 1);
        patch(file, metaOffset + 100, new byte[] {(byte) (x[0] ^ 16)});
        assertFails(file, Reason.CHECKSUM, "meta");
    }

    /**
     * A bit flipped in every byte of both header slots and of the newest metadata, one at a
     * time: a flip in the newest checkpoint reopens the older one, a flip in the older slot the
     * newest (each passing its audit); with the older slot erased, every flip fails with one
     * {@link StorageFileException} naming the file, and leaves the file unlocked. Never another
     * exception, never a crash.
     */
    @Test
    void everyFlippedBit_ofTheHeadersAndMetadata_fallsBackToTheOtherCheckpoint_orFailsClearly() throws IOException {
        Schema schema = schema("flip", RecordLayout.SOA);
        Path file = dir.resolve("flip.bulk");
        try (MappedPackedTable t = PackedTable.builder(schema).tag(3996).mapped(file)) {
            long[] hs = new long[40];
            t.addAll(hs);
            t.remove(hs[3]);
            t.checkpoint();                       // the older checkpoint: 39 records
            t.remove(hs[5]);
        }                                         // the newest (close): 38 records
        ByteBuffer a = ByteBuffer.wrap(read(file, 0, 64)).order(ByteOrder.nativeOrder());
        ByteBuffer b = ByteBuffer.wrap(read(file, 4096, 64)).order(ByteOrder.nativeOrder());
        long newestAt = b.getLong(56) > a.getLong(56) ? 4096 : 0;
        long olderAt = 4096 - newestAt;
        ByteBuffer newest = newestAt == 0 ? a : b;
        long metaOffset = newest.getLong(32);
        long metaEnd = metaOffset + newest.getLong(24);
        byte[] pristine = Files.readAllBytes(file);
        long[][] ranges = {{newestAt, newestAt + 64}, {metaOffset, metaEnd}, {olderAt, olderAt + 64}};
        for (long[] range : ranges) {
            int expected = range[0] == olderAt ? 38 : 39;
            for (long at = range[0]; at < range[1]; at++) {
                patch(file, at, new byte[] {(byte) (pristine[(int) at] ^ (1 << (at % 8)))});
                try (MappedPackedTable t = PackedTable.builder(schema).tag(3996)
                        .checkpointFallback(CheckpointFallback.AFTER_CRASH_OR_DAMAGE).mapped(file)) {
                    TableAudit.check(t);
                    assertEquals(expected, t.size(), "byte " + at + " flipped");
                }
                Files.write(file, pristine); // that open's close wrote a checkpoint
            }
        }
        patch(file, olderAt, new byte[64]);
        byte[] newestOnly = Files.readAllBytes(file);
        for (long[] range : new long[][] {ranges[0], ranges[1]}) {
            for (long at = range[0]; at < range[1]; at++) {
                patch(file, at, new byte[] {(byte) (newestOnly[(int) at] ^ (1 << (at % 8)))});
                StorageFileException e = assertThrows(StorageFileException.class,
                        () -> PackedTable.builder(schema).tag(3996).mapped(file), "byte " + at + " flipped");
                assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
                patch(file, at, new byte[] {newestOnly[(int) at]});
            }
        }
        assertUnlockedFile(file);
    }

    private static void assertUnlockedFile(Path file) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertTrue(c.tryLock() != null, "the file is still locked");
        }
    }

    @Test
    void otherSchema_options_kind_andSnapshotFiles_areRefused() throws IOException {
        Path file = validFile("opts");
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema("other", RecordLayout.SOA)).tag(TAG).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertUnlocked(file);
        e = assertThrows(StorageFileException.class, () -> BulkTable.builder(schema("opts", RecordLayout.SOA)).tag(TAG)
                .handleLayout(HandleLayout.of(20, 10)).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("handle layout"), e.getMessage());
        e = assertThrows(StorageFileException.class, () -> BulkTable.builder(schema("opts", RecordLayout.SOA))
                .tag(TAG + 1).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        e = assertThrows(StorageFileException.class, () -> BulkTable.builder(schema("opts", RecordLayout.SOA)).tag(TAG)
                .reuseOrder(ReuseOrder.LIFO).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        e = assertThrows(StorageFileException.class,
                () -> PackedTable.builder(schema("opts", RecordLayout.SOA)).tag(TAG).mapped(file));
        assertEquals(Reason.KIND_MISMATCH, e.reason());
        e = assertThrows(StorageFileException.class, () -> Snapshots.load(file));
        assertEquals(Reason.KIND_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("mapped"), e.getMessage());
        assertUnlocked(file);

        Path snapshot = dir.resolve("snapshot.bulk");
        try (BulkTable t = BulkTable.of(schema("opts", RecordLayout.SOA))) {
            t.add();
            Snapshots.save(t, snapshot);
        }
        e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema("opts", RecordLayout.SOA)).mapped(snapshot));
        assertEquals(Reason.KIND_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("Snapshots.load"), e.getMessage());
    }

    @Test
    void theTagRule_ofSnapshots_holdsForMappedFiles() throws IOException {
        Path file = validFile("tags");
        try (BulkTable holder = BulkTable.builder(Schema.builder("holder").add(FieldType.INT, "x").build())
                .tag(TAG).build()) {
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> BulkTable.builder(schema("tags", RecordLayout.SOA)).tag(TAG).mapped(file));
            assertEquals(Reason.TAG_CONFLICT, e.reason());
            assertTrue(holder.size() == 0);
        }
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertTrue(c.tryLock() != null, "a refused open left the file locked");
        }
    }

    /** Reopening with another capacity limit, or none, is refused naming the file; the limit holds after reopening. */
    @Test
    void reopeningWithAnotherCapacityLimit_isRefused() throws IOException {
        Schema s = schema("mapped_cap", RecordLayout.SOA);
        Path file = dir.resolve("cap.bulk");
        int tag = 4055;
        try (MappedBulkTable t = BulkTable.builder(s).tag(tag).maxCapacity(50).mapped(file)) {
            t.addAll(new long[50]);
        }
        for (int other : new int[] {0, 51}) {
            BulkTable.Builder b = BulkTable.builder(s).tag(tag);
            if (other > 0) {
                b.maxCapacity(other);
            }
            StorageFileException e = assertThrows(StorageFileException.class, () -> b.mapped(file));
            assertEquals(Reason.SCHEMA_MISMATCH, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        try (MappedBulkTable t = BulkTable.builder(s).tag(tag).maxCapacity(50).mapped(file)) {
            assertEquals(50, t.size());
            assertThrows(CapacityExceededException.class, t::add, "the limit holds after reopening");
        }
    }

    /**
     * A capped table without a layout of its own is created with the layout its cap chooses
     * ({@link HandleLayout#forCapacity}); the same builder reopens it, its handles valid, and a
     * builder that sets another layout (the default one too) is refused.
     */
    @Test
    void aCappedTable_savesTheLayoutItsCapChooses() throws IOException {
        Schema s = schema("mapped_capped_layout", RecordLayout.SOA);
        Path file = dir.resolve("capped-layout.bulk");
        long h;
        try (MappedBulkTable t = BulkTable.builder(s).maxCapacity(5000).mapped(file)) {
            assertEquals(HandleLayout.forCapacity(5000), t.handleLayout());
            h = t.add();
            t.reset();
            h = t.add();
        }
        try (MappedBulkTable t = BulkTable.builder(s).maxCapacity(5000).mapped(file)) {
            assertEquals(HandleLayout.forCapacity(5000), t.handleLayout());
            assertTrue(t.contains(h));
        }
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(s).maxCapacity(5000).handleLayout(HandleLayout.DEFAULT).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("handle layout") && e.getMessage().contains("HandleLayout.forCapacity"),
                e.getMessage());
    }

    /** The file is created if absent, and reopens as the empty table it holds. */
    @Test
    void theFileIsCreatedIfAbsent_andReopensEmpty() throws IOException {
        Schema s = schema("mapped_new", RecordLayout.SOA);
        Path file = dir.resolve("absent.bulk");
        assertTrue(Files.notExists(file));
        int tag = 4056;
        try (MappedPackedTable t = PackedTable.builder(s).tag(tag).mapped(file)) {
            assertTrue(Files.exists(file));
            assertEquals(0, t.size());
        }
        try (MappedPackedTable t = PackedTable.builder(s).tag(tag).mapped(file)) {
            assertEquals(0, t.size());
            assertEquals(tag, Handles.tag(t.add()));
        }
    }
}
