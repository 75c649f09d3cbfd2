package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CheckpointFallback;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.format.FileFormat;
import dev.bulkdata.storage.internal.format.MappedStore;

import dev.bulkdata.storage.schema.OpenedCheckpoint.State;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The integrity of mapped files: which checkpoint a file opens at (an interrupted checkpoint
 * against a damaged one, {@link CheckpointFallback}, {@link MappedTable#openedCheckpoint()}, the
 * {@code dev.bulkdata.MappedOpen} event), block checksums ({@link TableBuilder#blockChecksums},
 * {@link MappedTable#verify()}) under a seeded model run, and the tag rule of reopening. The model
 * run's seed is {@code -Dbulkdata.seed} (a fixed default), printed with every failure.
 */
class MappedIntegrityTest {
    static final long SEED = Long.getLong("bulkdata.seed", 0x0C4EC5_0001L);

    @TempDir
    Path dir;

    private static Schema schema(String name, RecordLayout layout) {
        return Schema.builder(name).layout(layout).add(FieldType.INT, "id").add(FieldType.LONG, "v")
                .add(FieldType.BYTE, "flag").build();
    }

    private static TableBuilder<?, ?, ? extends MappedTable> builder(TableKind kind, Schema schema, int tag) {
        return (kind == TableKind.BULK ? BulkTable.builder(schema) : PackedTable.builder(schema)).tag(tag);
    }

    private static void patch(Path file, long at, byte[] bytes) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(bytes), at);
        }
    }

    private static byte read(Path file, long at) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1);
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            c.read(b, at);
        }
        return b.get(0);
    }

    private static void flip(Path file, long at, int bit) throws IOException {
        patch(file, at, new byte[] {(byte) (read(file, at) ^ (1 << bit))});
    }

    /** The two header slots: [0] the newest's offset, [1] the older's, [2] the newest's metadata offset, [3] its length, [4] the newest's sequence. */
    private static long[] headers(Path file) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(8192).order(ByteOrder.nativeOrder());
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            c.read(h, 0);
        }
        long newest = h.getLong(4096 + 56) > h.getLong(56) ? 4096 : 0;
        return new long[] {newest, 4096 - newest, h.getLong((int) newest + 32), h.getLong((int) newest + 24),
                h.getLong((int) newest + 56)};
    }

    /** A file of 30 records at checkpoint n - 1 and 29 at its newest checkpoint n, written by close(). */
    private Path twoCheckpoints(String name, int tag) throws IOException {
        Path file = dir.resolve(name + ".bulk");
        try (MappedBulkTable t = BulkTable.builder(schema(name, RecordLayout.SOA)).tag(tag).mapped(file)) {
            long[] hs = new long[30];
            t.addAll(hs);
            t.checkpoint();
            t.remove(hs[7]);
        }
        return file;
    }

    private static MappedBulkTable open(Path file, String name, int tag, CheckpointFallback fallback) throws IOException {
        return BulkTable.builder(schema(name, RecordLayout.SOA)).tag(tag).checkpointFallback(fallback).mapped(file);
    }

    private static void assertUnlocked(Path file, int tag) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertTrue(c.tryLock() != null, "a refused open left the file locked");
        }
        assertNull(dev.bulkdata.storage.internal.tags.TagRegistry.nameOf(tag), "a refused open kept the tag");
    }

    // -------------------------------------------------------------------------------------------
    // Which checkpoint opens

    @Test
    void openedCheckpoint_saysCreated_closed_andNotClosed() throws IOException {
        Path file = dir.resolve("states.bulk");
        try (MappedBulkTable t = open(file, "states", 4041, CheckpointFallback.NEVER)) {
            assertEquals(new OpenedCheckpoint(1, State.CREATED, "the file was created with checkpoint 1"),
                    t.openedCheckpoint());
            t.add();
            t.checkpoint();                                   // 2
        }                                                     // 3, by close()
        MappedBulkTable t = open(file, "states", 4041, CheckpointFallback.NEVER);
        assertEquals(3, t.openedCheckpoint().sequence());
        assertEquals(State.CLOSED, t.openedCheckpoint().state());
        assertFalse(t.openedCheckpoint().isFallback());
        t.add();
        t.checkpoint();                                       // 4
        t.add();
        Path crashed = dir.resolve("states-crashed.bulk");
        Files.write(crashed, Files.readAllBytes(file));       // the file as a crash now leaves it
        t.close();
        assertEquals(3, t.openedCheckpoint().sequence(), "answers after close");
        try (MappedBulkTable c = open(crashed, "states", 4041, CheckpointFallback.NEVER)) {
            assertEquals(4, c.openedCheckpoint().sequence());
            assertEquals(State.NOT_CLOSED, c.openedCheckpoint().state(), c.openedCheckpoint().detail());
            assertEquals(2, c.size());
        }
        try (BulkTable inMemory = BulkTable.of(schema("states", RecordLayout.SOA))) {
            assertFalse(inMemory instanceof MappedTable, "a table in memory has no checkpoint to report");
        }
    }

    @Test
    void aFileOpenedWhileInUse_afterClose_isNotClosedAnyMore() throws IOException {
        Path file = twoCheckpoints("reuse", 4042);
        try (MappedBulkTable t = open(file, "reuse", 4042, CheckpointFallback.NEVER)) {
            assertEquals(State.CLOSED, t.openedCheckpoint().state());
            t.add();
            Path crashed = dir.resolve("reuse-crashed.bulk");
            Files.write(crashed, Files.readAllBytes(file));   // a crash after the open: no checkpoint since
            t.close();
            try (MappedBulkTable c = BulkTable.builder(schema("reuse", RecordLayout.SOA)).tag(4042).mapped(crashed)) {
                assertEquals(State.NOT_CLOSED, c.openedCheckpoint().state(),
                        "the open recorded that the table is in use: " + c.openedCheckpoint().detail());
                assertEquals(29, c.size());
            }
        }
    }

    @Test
    void aDamagedNewestHeader_ofACompletedCheckpoint_isAnError_unlessFallbackAfterDamageIsAllowed()
            throws IOException {
        Path file = twoCheckpoints("header", 4044);
        long[] h = headers(file);
        byte[] pristine = Files.readAllBytes(file);
        for (long at = h[0]; at < h[0] + 64; at++) {
            flip(file, at, (int) (at % 8));
            for (CheckpointFallback f : new CheckpointFallback[] {CheckpointFallback.NEVER,
                    CheckpointFallback.AFTER_CRASH}) {
                StorageFileException e = assertThrows(StorageFileException.class, () -> open(file, "header", 4044, f),
                        "byte " + at);
                assertTrue(e.getMessage().contains("checkpoint " + h[4]), e.getMessage());
                assertTrue(e.reason() == Reason.CHECKSUM || e.reason() == Reason.NEWER_VERSION
                        || e.reason() == Reason.KIND_MISMATCH || e.reason() == Reason.NOT_A_SNAPSHOT
                        || e.reason() == Reason.BYTE_ORDER || e.reason() == Reason.MALFORMED, e.getMessage());
                assertUnlocked(file, 4044);
            }
            try (MappedBulkTable t = open(file, "header", 4044, CheckpointFallback.AFTER_CRASH_OR_DAMAGE)) {
                assertEquals(30, t.size(), "byte " + at + ": the checkpoint before");
                assertEquals(h[4] - 1, t.openedCheckpoint().sequence());
                assertEquals(State.DAMAGED, t.openedCheckpoint().state());
                assertTrue(t.openedCheckpoint().isFallback());
                assertTrue(t.openedCheckpoint().detail().contains("checkpoint " + h[4]),
                        t.openedCheckpoint().detail());
            }
            Files.write(file, pristine);
        }
    }

    @Test
    void damagedNewestMetadata_isAnError_unlessFallbackAfterDamageIsAllowed() throws IOException {
        Path file = twoCheckpoints("meta", 4045);
        long[] h = headers(file);
        byte[] pristine = Files.readAllBytes(file);
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 40; i++) {
            long at = h[2] + random.nextLong(h[3]);
            flip(file, at, random.nextInt(8));
            StorageFileException e = assertThrows(StorageFileException.class,
                    () -> open(file, "meta", 4045, CheckpointFallback.AFTER_CRASH), "byte " + at);
            assertEquals(Reason.CHECKSUM, e.reason());
            assertTrue(e.getMessage().contains("checkpoint " + h[4] + "'s metadata"), e.getMessage());
            assertTrue(e.getMessage().contains("AFTER_CRASH_OR_DAMAGE"), e.getMessage());
            assertUnlocked(file, 4045);
            try (MappedBulkTable t = open(file, "meta", 4045, CheckpointFallback.AFTER_CRASH_OR_DAMAGE)) {
                assertEquals(30, t.size());
                assertEquals(new OpenedCheckpoint(h[4] - 1, State.DAMAGED, t.openedCheckpoint().detail()),
                        t.openedCheckpoint());
            }
            Files.write(file, pristine);
        }
    }

    /**
     * A crash while {@code checkpoint()} writes its header leaves the slot torn, with the older
     * commit record beside it: the file opens at the checkpoint before, which is the last
     * completed one, unless fallbacks are forbidden.
     */
    @Test
    void aTornHeader_ofAnInterruptedCheckpoint_opensTheOneBefore_unlessNeverFallBack() throws IOException {
        Path file = dir.resolve("torn.bulk");
        MappedBulkTable t = open(file, "torn", 4046, CheckpointFallback.NEVER);
        t.addAll(new long[12]);
        t.checkpoint();
        t.add();
        Path crashed = dir.resolve("torn-crashed.bulk");
        Files.write(crashed, Files.readAllBytes(file));
        t.close();
        long[] h = headers(crashed);
        // The next checkpoint would write the older slot: tear it as a crash mid-write would.
        byte[] torn = new byte[40];
        new SplittableRandom(SEED).nextBytes(torn);
        patch(crashed, h[1] + 24, torn);
        byte[] pristine = Files.readAllBytes(crashed);
        for (CheckpointFallback f : new CheckpointFallback[] {CheckpointFallback.AFTER_CRASH,
                CheckpointFallback.AFTER_CRASH_OR_DAMAGE}) {
            try (MappedBulkTable c = open(crashed, "torn", 4046, f)) {
                assertEquals(12, c.size());
                assertEquals(h[4], c.openedCheckpoint().sequence());
                assertEquals(State.INTERRUPTED, c.openedCheckpoint().state(), c.openedCheckpoint().detail());
                assertTrue(c.openedCheckpoint().isFallback());
            }
            Files.write(crashed, pristine);
        }
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> open(crashed, "torn", 4046, CheckpointFallback.NEVER));
        assertEquals(Reason.CHECKSUM, e.reason());
        assertTrue(e.getMessage().contains("NEVER"), e.getMessage());
        assertUnlocked(crashed, 4046);
    }

    @Test
    void aDamagedOlderHeader_afterACleanClose_opensTheNewest_withoutAFallback() throws IOException {
        Path file = twoCheckpoints("older", 4047);
        long[] h = headers(file);
        flip(file, h[1] + 30, 3);
        try (MappedBulkTable t = open(file, "older", 4047, CheckpointFallback.NEVER)) {
            assertEquals(29, t.size());
            assertEquals(State.CLOSED, t.openedCheckpoint().state());
            assertTrue(t.openedCheckpoint().detail().contains("damaged"), t.openedCheckpoint().detail());
        }
    }

    /**
     * REGRESSION (issue 40, point 7): a file whose two header slots both claim the same
     * checkpoint, each header with a valid CRC32C, used to open the records of whichever slot
     * came first while {@code openedCheckpoint()} reported the newest and {@code NOT_CLOSED}.
     * Slot A holds the even checkpoints and B the odd ones, so one of the two headers is damage:
     * the open refuses ({@code CHECKSUM}, naming both slots) and leaves the file as it was, and
     * with {@code AFTER_CRASH_OR_DAMAGE} opens the slot whose number fits it, as {@code DAMAGED}.
     */
    @Test
    void twoHeaderSlotsClaimingTheSameCheckpoint_isDamage_regression() throws IOException {
        for (boolean rewriteOlder : new boolean[] {true, false}) {
            Path file = twoCheckpoints("twins" + rewriteOlder, 4049);
            long[] h = headers(file);
            // Rewrite one slot's sequence to the other's and seal it again with a valid CRC32C.
            long victim = rewriteOlder ? h[1] : h[0];
            long claimed = rewriteOlder ? h[4] : h[4] - 1;
            long genuine = claimed;                             // the slot whose parity fits that number
            int records = rewriteOlder ? 29 : 30;
            ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
                c.read(header, victim);
            }
            header.putLong(56, claimed).putInt(20, 0);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(header.array(), 0, 64);
            header.putInt(20, (int) crc.getValue());
            patch(file, victim, header.array());
            byte[] crafted = Files.readAllBytes(file);
            for (CheckpointFallback f : new CheckpointFallback[] {CheckpointFallback.NEVER,
                    CheckpointFallback.AFTER_CRASH}) {
                StorageFileException e = assertThrows(StorageFileException.class, () -> open(file, "twins" + rewriteOlder,
                        4049, f));
                assertEquals(Reason.CHECKSUM, e.reason(), e.getMessage());
                assertTrue(e.getMessage().contains("both claim checkpoint " + claimed), e.getMessage());
                assertTrue(e.getMessage().contains("AFTER_CRASH_OR_DAMAGE"), e.getMessage());
                assertUnlocked(file, 4049);
                assertTrue(java.util.Arrays.equals(crafted, Files.readAllBytes(file)), "the refused open wrote");
            }
            try (MappedBulkTable t = open(file, "twins" + rewriteOlder, 4049, CheckpointFallback.AFTER_CRASH_OR_DAMAGE)) {
                assertEquals(records, t.size(), "the records of the slot whose number fits it");
                assertEquals(genuine, t.openedCheckpoint().sequence());
                assertEquals(State.DAMAGED, t.openedCheckpoint().state(), t.openedCheckpoint().detail());
                assertTrue(t.openedCheckpoint().detail().contains("both claim checkpoint " + claimed),
                        t.openedCheckpoint().detail());
            }
        }
    }

    /** A file whose pages hold no commit records (as before they were written) opens as before. */
    @Test
    void aFileWithoutCommitRecords_opensItsNewest_andFallsBackPastAnyBadHeader() throws IOException {
        Path file = twoCheckpoints("legacy", 4048);
        patch(file, FileFormat.COMMIT_AT[0], new byte[FileFormat.COMMIT_BYTES]);
        patch(file, FileFormat.COMMIT_AT[1], new byte[FileFormat.COMMIT_BYTES]);
        byte[] pristine = Files.readAllBytes(file);
        try (MappedBulkTable t = open(file, "legacy", 4048, CheckpointFallback.NEVER)) {
            assertEquals(29, t.size());
            assertEquals(State.NOT_CLOSED, t.openedCheckpoint().state());
        }
        Files.write(file, pristine);
        long[] h = headers(file);
        flip(file, h[0] + 30, 1);
        try (MappedBulkTable t = open(file, "legacy", 4048, CheckpointFallback.AFTER_CRASH)) {
            assertEquals(30, t.size());
            assertEquals(State.INTERRUPTED, t.openedCheckpoint().state());
        }
    }

    @Test
    void theOpenIsAFlightRecorderEvent_sayingWhichCheckpointAndWhy() throws IOException {
        Path file = twoCheckpoints("jfr", 4049);
        long[] h = headers(file);
        flip(file, h[2] + 10, 2);
        try (Recording recording = new Recording()) {
            recording.enable("dev.bulkdata.MappedOpen");
            recording.start();
            try (MappedBulkTable t = open(file, "jfr", 4049, CheckpointFallback.AFTER_CRASH_OR_DAMAGE)) {
                assertEquals(State.DAMAGED, t.openedCheckpoint().state());
            }
            Path created = dir.resolve("jfr-created.bulk");
            BulkTable.builder(schema("jfr2", RecordLayout.SOA)).tag(4050).blockChecksums(true).mapped(created).close();
            recording.stop();
            Path dump = dir.resolve("mapped.jfr");
            recording.dump(dump);
            List<RecordedEvent> events = RecordingFile.readAllEvents(dump).stream()
                    .filter(e -> e.getEventType().getName().equals("dev.bulkdata.MappedOpen")).toList();
            assertEquals(2, events.size(), events.toString());
            RecordedEvent damaged = events.get(0);
            assertEquals(4049, damaged.getInt("tag"));
            assertEquals("jfr", damaged.getString("table"));
            assertEquals("BulkTable", damaged.getString("kind"));
            assertEquals(file.toString(), damaged.getString("file"));
            assertEquals(h[4] - 1, damaged.getLong("sequence"));
            assertEquals("DAMAGED", damaged.getString("state"));
            assertTrue(damaged.getBoolean("fallback"));
            assertFalse(damaged.getBoolean("checksums"));
            assertTrue(damaged.getString("detail").contains("metadata"), damaged.getString("detail"));
            RecordedEvent made = events.get(1);
            assertEquals("CREATED", made.getString("state"));
            assertEquals(1, made.getLong("sequence"));
            assertFalse(made.getBoolean("fallback"));
            assertTrue(made.getBoolean("checksums"));
        }
    }

    // -------------------------------------------------------------------------------------------
    // Block checksums

    /**
     * A seeded model run with checksums: adds, removals, sets by handle and through chunks,
     * writable columns, cancelled adds, clears, a PackedTable's defragment, snapshots saved from
     * the mapped table, checkpoints, clean reopens (which check every block) and crash images
     * (which check none until the next checkpoint). After every checkpoint {@link MappedTable#verify()}
     * checks every block and passes; a byte flipped in a record is then reported naming its
     * block, by {@code verify()} and by the next clean open.
     */
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void modelRun_withChecksums_everyCheckpointVerifies_andAFlippedRecordByteIsNamed(TableKind kind)
            throws IOException {
        for (RecordLayout layout : RecordLayout.values()) {
            try {
                run(kind, layout, SEED);
            } catch (AssertionError | RuntimeException | IOException e) {
                throw new AssertionError("seed " + SEED + " (-Dbulkdata.seed=" + SEED + "), " + kind + " " + layout
                        + ": " + e.getMessage(), e);
            }
        }
    }

    private void run(TableKind kind, RecordLayout layout, long seed) throws IOException {
        String name = "sums_" + kind + layout;
        Schema schema = schema(name, layout);
        int tag = 4060 + 2 * kind.ordinal() + layout.ordinal();
        Path file = dir.resolve(name + ".bulk");
        SplittableRandom random = new SplittableRandom(seed);
        IntField id = schema.intField("id");
        LongField v = schema.longField("v");
        MappedTable t = builder(kind, schema, tag).blockChecksums(true).mapped(file);
        List<Long> live = new ArrayList<>();
        try {
            for (int step = 0; step < 3_000; step++) {
                int op = random.nextInt(100);
                if (op < 40 || live.isEmpty()) {
                    int n = 1 + random.nextInt(random.nextInt(10) == 0 ? 700 : 5);
                    for (int i = 0; i < n; i++) {
                        long h = t.add();
                        t.set(h, id, random.nextInt());
                        live.add(h);
                    }
                } else if (op < 65) {
                    int n = 1 + random.nextInt(Math.min(live.size(), random.nextInt(10) == 0 ? 500 : 4));
                    for (int i = 0; i < n; i++) {
                        t.remove(live.remove(random.nextInt(live.size())));
                    }
                } else if (op < 80) {
                    t.set(live.get(random.nextInt(live.size())), v, random.nextLong());
                } else if (op < 84 && t.stats().blocks() > 0) {
                    long value = random.nextLong();
                    int pick = random.nextInt(t.stats().blocks());
                    t.forEachChunk(chunk -> {
                        int slot = chunk.index() == pick ? chunk.nextLive(0) : -1;
                        if (slot >= 0 && slot < chunk.slotCount()) {
                            if (layout == RecordLayout.SOA) {
                                chunk.writableColumn(v).setAtIndex(ValueLayout.JAVA_LONG, slot, value);
                            } else {
                                chunk.set(slot, v, value);
                            }
                        }
                    });
                } else if (op < 86) {
                    t.cancelAdd(t.add());
                } else if (op < 87 && random.nextInt(8) == 0) {
                    t.clear();
                    live.clear();
                } else if (op < 89 && t instanceof PackedTable p) {
                    p.defragment(1 + random.nextInt(50), (a, b) -> Long.compare(p.get(b, v), p.get(a, v)));
                } else if (op < 90 && kind == TableKind.BULK) {
                    Snapshots.save(t, dir.resolve("copy.bulk"));  // writes free-list links into the blocks
                } else if (op < 96) {
                    t.checkpoint();
                    assertEquals(t.stats().blocks(), t.verify(), "step " + step + ": every block is checked");
                    if (t.stats().blocks() > 0 && random.nextInt(3) == 0) {
                        assertFlippedByteIsNamed(t, file, random, step);
                    }
                } else if (op < 98) {
                    t.close();
                    t = builder(kind, schema, tag).blockChecksums(true).mapped(file);
                    assertEquals(State.CLOSED, t.openedCheckpoint().state());
                    assertEquals(t.stats().blocks(), t.verify(), "step " + step + ": after a clean open");
                } else {
                    // A crash image: the file as it is now, opened while the table stays open.
                    t.checkpoint();
                    if (!live.isEmpty()) {
                        t.set(live.get(0), v, random.nextLong());
                    }
                    Path crashed = dir.resolve(name + "-crashed.bulk");
                    Files.write(crashed, Files.readAllBytes(file));
                    int blocks = t.stats().blocks();
                    t.close();
                    try (MappedTable c = builder(kind, schema, tag).blockChecksums(true).mapped(crashed)) {
                        assertEquals(State.NOT_CLOSED, c.openedCheckpoint().state());
                        assertEquals(0, c.verify(), "no block is known after a crash");
                        c.checkpoint();
                        assertEquals(blocks, c.verify());
                    }
                    try (MappedTable c = builder(kind, schema, tag).blockChecksums(true).mapped(crashed)) {
                        assertEquals(State.CLOSED, c.openedCheckpoint().state());
                    }
                    t = builder(kind, schema, tag).blockChecksums(true).mapped(file);
                }
            }
        } finally {
            t.close();
        }
        try (MappedTable reopened = builder(kind, schema, tag).blockChecksums(true).mapped(file)) {
            assertEquals(reopened.stats().blocks(), reopened.verify());
        }
    }

    /** Flips a byte of a record in the file: verify() names the block; put back, it passes again. */
    private static void assertFlippedByteIsNamed(MappedTable t, Path file, SplittableRandom random, int step)
            throws IOException {
        int block = random.nextInt(t.stats().blocks());
        MemorySegment segment = ((AbstractTable) t).segments[block];
        long at = random.nextLong(segment.byteSize());
        byte was = segment.get(ValueLayout.JAVA_BYTE, at);
        long fileAt = ((AbstractTable) t).mapped.file.blockOffset(block) + at;
        patch(file, fileAt, new byte[] {(byte) (was ^ 0x20)});  // through the file: the mapping shows it
        assertEquals((byte) (was ^ 0x20), segment.get(ValueLayout.JAVA_BYTE, at), "the mapping is shared");
        StorageFileException e = assertThrows(StorageFileException.class, t::verify, "step " + step);
        assertEquals(Reason.CHECKSUM, e.reason());
        assertTrue(e.getMessage().contains("block " + block + " "), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        patch(file, fileAt, new byte[] {was});
        assertEquals(t.stats().blocks(), t.verify());
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void aByteFlippedInARecord_ofACleanlyClosedFile_failsTheOpen_namingTheBlock(TableKind kind) throws IOException {
        Schema schema = schema("flipped_" + kind, RecordLayout.SOA);
        Path file = dir.resolve("flipped_" + kind + ".bulk");
        long block1At;
        try (MappedTable t = builder(kind, schema, 4070).blockChecksums(true).mapped(file)) {
            long[] hs = new long[3 * schema.slotsPerBlock() - (kind == TableKind.BULK ? 1 : 0)]; // 3 blocks
            t.addAll(hs);
            for (long h : hs) {
                t.set(h, schema.longField("v"), h);
            }
            block1At = ((AbstractTable) t).mapped.file.blockOffset(1);
        }
        byte[] pristine = Files.readAllBytes(file);
        flip(file, block1At + 100, 0);
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> builder(kind, schema, 4070).blockChecksums(true).mapped(file));
        assertEquals(Reason.CHECKSUM, e.reason());
        assertTrue(e.getMessage().contains("block 1 "), e.getMessage());
        assertTrue(e.getMessage().contains("file offset " + block1At), e.getMessage());
        assertUnlocked(file, 4070);
        assertTrue(java.util.Arrays.equals(pristine, flipBack(file, block1At + 100)), "the refused open changed the file");
        try (MappedTable t = builder(kind, schema, 4070).blockChecksums(true).mapped(file)) {
            assertEquals(3 * schema.slotsPerBlock() - (kind == TableKind.BULK ? 1 : 0), t.size());
            assertEquals(3, t.stats().blocks());
            assertEquals(3, t.verify());
        }
    }

    private static byte[] flipBack(Path file, long at) throws IOException {
        flip(file, at, 0);
        return Files.readAllBytes(file);
    }

    @Test
    void checksums_areAnOptionOfTheFile_andVerifyNeedsThem() throws IOException {
        Path file = dir.resolve("option.bulk");
        Schema schema = schema("option", RecordLayout.SOA);
        BulkTable.builder(schema).tag(4071).blockChecksums(true).mapped(file).close();
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema).tag(4071).mapped(file));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("checksums"), e.getMessage());
        Path plain = dir.resolve("plain.bulk");
        try (MappedBulkTable t = BulkTable.builder(schema).tag(4071).mapped(plain)) {
            assertThrows(IllegalStateException.class, t::verify);
        }
        e = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema).tag(4071).blockChecksums(true).mapped(plain));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        try (BulkTable inMemory = BulkTable.of(schema)) {
            assertFalse(inMemory instanceof MappedTable, "a table in memory has no blocks to verify");
        }
        MappedBulkTable closed = BulkTable.builder(schema).tag(4071).blockChecksums(true).mapped(file);
        closed.close();
        assertThrows(IllegalStateException.class, closed::verify);
    }

    /** Only the blocks changed since the last checkpoint are summed at the next one. */
    @Test
    void aCheckpoint_sumsOnlyTheBlocksChangedSinceTheLastOne() throws IOException {
        Schema schema = schema("changed", RecordLayout.SOA);
        try (MappedBulkTable t = BulkTable.builder(schema).tag(4072).blockChecksums(true)
                .mapped(dir.resolve("changed.bulk"))) {
            long[] hs = new long[10 * schema.slotsPerBlock() - 1];      // slot 0 is no record's: 10 blocks
            t.addAll(hs);
            t.checkpoint();
            MappedStore store = ((AbstractTable) t).mapped;
            assertEquals(10, store.written().blocksChecksummed());
            t.checkpoint();
            assertEquals(0, store.written().blocksChecksummed());
            t.set(hs[3 * schema.slotsPerBlock() + 5], schema.intField("id"), 7);
            t.markVersion();                                 // the user's marks change nothing
            t.set(hs[8 * schema.slotsPerBlock()], schema.longField("v"), 7L);
            t.checkpoint();
            assertEquals(2, store.written().blocksChecksummed());
            assertEquals(10, t.verify());
        }
    }

    /** The documented limit: a writable view kept across a checkpoint writes unseen by the versions. */
    @Test
    void aWritableViewKeptAcrossACheckpoint_isReportedAsDamage_andTakingItAgainIsNot() throws IOException {
        Schema schema = schema("kept", RecordLayout.SOA);
        LongField v = schema.longField("v");
        try (MappedBulkTable t = BulkTable.builder(schema).tag(4073).blockChecksums(true).mapped(dir.resolve("kept.bulk"))) {
            long h = t.add();
            MemorySegment[] kept = new MemorySegment[1];
            t.forEachChunk(chunk -> kept[0] = chunk.writableColumn(v));
            t.checkpoint();
            kept[0].setAtIndex(ValueLayout.JAVA_LONG, 1, 42L);
            assertEquals(42L, t.get(h, v));
            StorageFileException e = assertThrows(StorageFileException.class, t::verify);
            assertTrue(e.getMessage().contains("block 0 "), e.getMessage());
            t.forEachChunk(chunk -> chunk.writableColumn(v).setAtIndex(ValueLayout.JAVA_LONG, 1, 43L));
            assertEquals(0, t.verify(), "changed since the checkpoint: skipped");
            t.checkpoint();
            assertEquals(1, t.verify());
        }
    }

    // -------------------------------------------------------------------------------------------
    // Tags

    @Test
    void reopening_aFixedTagFile_needsThatTag_andAnAutomaticTagFile_needsNone() throws IOException {
        Schema schema = schema("tagged", RecordLayout.SOA);
        Path fixed = dir.resolve("fixed.bulk");
        long handle;
        try (MappedBulkTable t = BulkTable.builder(schema).tag(4080).mapped(fixed)) {
            handle = t.add();
        }
        StorageFileException none = assertThrows(StorageFileException.class, () -> BulkTable.builder(schema).mapped(fixed));
        assertEquals(Reason.SCHEMA_MISMATCH, none.reason());
        assertTrue(none.getMessage().contains("fixed tag 4080") && none.getMessage().contains("tag(4080)"),
                none.getMessage());
        StorageFileException other = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema).tag(4081).mapped(fixed));
        assertEquals(Reason.SCHEMA_MISMATCH, other.reason());
        assertTrue(other.getMessage().contains("4080") && other.getMessage().contains("4081"), other.getMessage());
        assertUnlocked(fixed, 4080);
        try (MappedBulkTable t = BulkTable.builder(schema).tag(4080).mapped(fixed)) {
            assertTrue(t.contains(handle), "the same tag: every handle is valid");
        }

        Path automatic = dir.resolve("automatic.bulk");
        long autoHandle;
        try (MappedBulkTable t = BulkTable.builder(schema).mapped(automatic)) {
            autoHandle = t.add();
        }
        int autoTag = Handles.tag(autoHandle);
        assertTrue(autoTag < HandleLayout.MIN_FIXED_TAG);
        StorageFileException fixedOnAuto = assertThrows(StorageFileException.class,
                () -> BulkTable.builder(schema).tag(4082).mapped(automatic));
        assertEquals(Reason.SCHEMA_MISMATCH, fixedOnAuto.reason());
        assertTrue(fixedOnAuto.getMessage().contains("automatic tag " + autoTag), fixedOnAuto.getMessage());
        try (MappedBulkTable t = BulkTable.builder(schema).mapped(automatic)) {
            assertTrue(t.contains(autoHandle), "no tag: the automatic tag it had, every handle valid");
        }
    }
}
