package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.CheckpointFallback;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.events.TableEvents;
import dev.bulkdata.storage.internal.memory.MappedFile;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.format.FileFormat.Header;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.IntFunction;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

import static dev.bulkdata.storage.internal.format.FileFormat.*;

/**
 * Opens a mapped table's file ({@code docs/format.md}, sections 11 and 12): creates it with a first checkpoint, or
 * picks the checkpoint to reopen from the two header slots and their commit records (telling a crash from damage),
 * checks it and restores the table from it. What a header slot shares with a snapshot's header, and the metadata
 * before the file's own sections, {@link SnapshotReader} and {@link MetadataReader} read.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class MappedOpen {
    private MappedOpen() {
    }

    /**
     * What the builder asks for: the kind, schema and options a reopened file must match.
     *
     * @param exactSchema whether the file must hold {@code schema} exactly; else a file of a schema with added, dropped
     *     or reordered fields is migrated to it ({@link #migrate})
     */
    public record Expected(int kind, Schema schema, ReuseOrder reuse, HandleLayout handles, int maxCapacity, int tag,
                    CheckpointFallback fallback, boolean checksums, boolean exactSchema) {
    }

    /** Creates the table with {@code create} if the file is absent or empty, else restores its last checkpoint. */
    public static StoredTable open(Path path, Expected expected, Supplier<StoredTable> create, Engine engine)
            throws IOException {
        String source = path.toString();
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        boolean opened = false;
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                throw engine.failure(source, Reason.LOCKED, "it is open in another table of this process;"
                        + " a file is mapped by one table at a time", e);
            }
            if (lock == null) {
                throw engine.failure(source, Reason.LOCKED, "another process holds its lock; a file is"
                        + " mapped by one table at a time", null);
            }
            StoredTable table = channel.size() == 0
                    ? create(source, channel, lock, expected, create, engine)
                    : reopen(new SnapshotReader(channel, source, engine), path, channel, lock, expected);
            opened = true;
            return table;
        } finally {
            if (!opened) {
                channel.close(); // releases the lock
            }
        }
    }

    private static StoredTable create(String source, FileChannel channel, FileLock lock, Expected expected,
                                      Supplier<StoredTable> create, Engine engine) throws IOException {
        StoredTable table = create.get();
        try {
            MappedFile file = new MappedFile(source, channel, lock, table.schema().blockBytes(), DATA_START);
            table.arena().mapFrom(file);
            MappedStore store = new MappedStore(table, file, expected.checksums, engine);
            if (store.checksums) {
                store.since = table.markVersion(); // from now on every write stamps its chunk
            }
            store.checkpoint(false);
            store.opened = new OpenedCheckpoint(store.sequence, OpenedCheckpoint.State.CREATED,
                    "the file was created with checkpoint " + store.sequence);
            table.attach(store);
            TableEvents.mappedOpened(table.state().tag(), file.name, store.opened.sequence(), store.opened.state().name(),
                    store.opened.detail(), store.checksums);
            return table;
        } catch (Throwable t) {
            table.close();
            throw t;
        }
    }

    /** A header slot that passed its checks. */
    private record Slot(int at, Header header, long sequence, boolean checksums, int headerCrc) {
    }

    /** A slot's commit record: checkpoint {@code sequence}, whose header CRC is {@code headerCrc}, completed. */
    private record Commit(long sequence, int headerCrc, int state) {
    }

    private static StoredTable reopen(SnapshotReader r, Path path, FileChannel channel, FileLock lock,
                                      Expected expected) throws IOException {
        long fileSize = channel.size();
        ByteBuffer page = ByteBuffer.allocate((int) DATA_START);
        int got = r.readSome(page); // a new channel's position is 0
        StorageFileException[] failures = new StorageFileException[2];
        Slot[] slots = new Slot[2];
        long[] sealed = {-1, -1}; // the sequence of a header whose CRC matches, even if it fails later checks
        for (int s = 0; s < 2; s++) {
            try {
                slots[s] = slot(r, page, s, got, fileSize, sealed);
            } catch (StorageFileException e) {
                failures[s] = e;
            }
        }
        Commit[] commits = {commit(page, got, 0), commit(page, got, 1)};
        int first = slots[1] != null && (slots[0] == null || slots[1].sequence > slots[0].sequence) ? 1 : 0;
        Slot best = slots[first];
        Slot older = slots[1 - first];
        long bestSeq = best == null ? -1 : best.sequence;
        // The slot without a usable header: a newer checkpoint damaged since, or one whose header a crash interrupted.
        String damaged = null;
        String interrupted = null;
        String olderDamaged = null;
        boolean closed = best != null && closedAt(commits, best);
        for (int s = 0; s < 2; s++) {
            if (slots[s] != null || zero(page, got, s * SLOT_B)) {
                continue;
            }
            Reason reason = failures[s].reason();
            if (sealed[s] >= 0 && (reason == Reason.NEWER_VERSION || reason == Reason.BYTE_ORDER
                    || reason == Reason.KIND_MISMATCH)) {
                throw failures[s]; // an intact header of a file this reader cannot open
            }
            Commit c = commits[s];
            if (sealed[s] == bestSeq) {
                // Both claim the newest: one header was overwritten since (parity tells which), its records unknown.
                damaged = "header slots A and B both claim checkpoint " + bestSeq + " with intact headers, and slot "
                        + "AB".charAt(s) + "'s does not fit the file: " + detail(failures[s]);
            } else if (sealed[s] > bestSeq) {
                damaged = "checkpoint " + sealed[s] + " (header slot " + "AB".charAt(s) + ") has an intact header"
                        + " that does not fit the file: " + detail(failures[s]);
            } else if (sealed[s] < 0 && c != null && c.sequence > bestSeq && (c.sequence & 1) == s) {
                damaged = "checkpoint " + c.sequence + " completed (its commit record says so) but its header"
                        + " (slot " + "AB".charAt(s) + ") no longer matches its CRC32C";
            } else if (sealed[s] < 0 && closed) {
                // close() wrote the newest and nothing came after it: the older header was damaged.
                olderDamaged = "; the header of the checkpoint before it (slot " + "AB".charAt(s)
                        + ") is damaged";
            } else if (sealed[s] < 0 && best != null) {
                interrupted = "the header in slot " + "AB".charAt(s) + " does not match its CRC32C and no commit"
                        + " record says a checkpoint after " + bestSeq + " completed: a crash interrupted that"
                        + " checkpoint while it wrote its header (or the header of the checkpoint before "
                        + bestSeq + " was damaged)";
            }
        }
        if (best == null) {
            throw damaged == null ? failures[0]
                    : r.fail(failures[0].reason(), detail(failures[0]) + "; " + damaged + ", and no other checkpoint"
                            + " is intact");
        }
        OpenedCheckpoint.State state;
        String detail;
        if (damaged != null) {
            if (expected.fallback != CheckpointFallback.AFTER_CRASH_OR_DAMAGE) {
                throw r.fail(Reason.CHECKSUM, damaged + ", so the file was damaged after it was written (a crash"
                        + " does not do this); checkpoint " + bestSeq + (damaged.startsWith("header slots")
                        ? " in slot " + "AB".charAt(best.at / SLOT_B) + " is intact" : " before it is intact")
                        + ", and checkpointFallback(AFTER_CRASH_OR_DAMAGE) opens it");
            }
            state = OpenedCheckpoint.State.DAMAGED;
            detail = "opened checkpoint " + bestSeq + " because " + damaged;
        } else if (interrupted != null) {
            if (expected.fallback == CheckpointFallback.NEVER) {
                throw r.fail(Reason.CHECKSUM, interrupted + "; checkpoint " + bestSeq + " before it is intact, but"
                        + " checkpointFallback(NEVER) forbids opening it");
            }
            state = OpenedCheckpoint.State.INTERRUPTED;
            detail = "opened checkpoint " + bestSeq + " because " + interrupted;
        } else {
            state = closed ? OpenedCheckpoint.State.CLOSED : OpenedCheckpoint.State.NOT_CLOSED;
            detail = (closed ? "opened checkpoint " + bestSeq + ", written by close()"
                    : "opened checkpoint " + bestSeq + ", the newest; the table was not closed after it")
                    + (olderDamaged == null ? "" : olderDamaged);
        }
        StoredTable table = restore(r, path, channel, lock, best, fileSize, expected, state, detail, commits);
        if (table != null) {
            return table;
        }
        // Intact header, damaged metadata: never a crash (a checkpoint forces its metadata before its header).
        String what = "checkpoint " + bestSeq + "'s metadata no longer matches the CRC32C in its intact header,"
                + " so the file was damaged after that checkpoint completed (a crash does not do this)";
        if (older == null) {
            throw r.fail(Reason.CHECKSUM, what + "; no other checkpoint is intact");
        }
        if (expected.fallback != CheckpointFallback.AFTER_CRASH_OR_DAMAGE) {
            throw r.fail(Reason.CHECKSUM, what + "; checkpoint " + older.sequence + " before it may be intact, and"
                    + " checkpointFallback(AFTER_CRASH_OR_DAMAGE) opens it");
        }
        table = restore(r, path, channel, lock, older, fileSize, expected, OpenedCheckpoint.State.DAMAGED,
                "opened checkpoint " + older.sequence + " because " + what, commits);
        if (table == null) {
            throw r.fail(Reason.CHECKSUM, what + "; the metadata of checkpoint " + older.sequence
                    + " before it does not match its CRC32C either");
        }
        return table;
    }

    /** {@return the message of a failure, without the file's name and the reason around it} */
    private static String detail(StorageFileException e) {
        String m = e.getMessage();
        String prefix = "storage file " + e.source() + ": ";
        String suffix = " (" + e.reason() + ")";
        return m.substring(m.startsWith(prefix) ? prefix.length() : 0,
                m.endsWith(suffix) ? m.length() - suffix.length() : m.length());
    }

    /** {@return whether the 64 bytes of header slot at {@code at} are all zero (never written)} */
    private static boolean zero(ByteBuffer page, int got, int at) {
        for (int i = at; i < Math.min(got, at + HEADER_BYTES); i++) {
            if (page.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** {@return whether slot {@code best}'s commit record says {@code close()} wrote it} */
    private static boolean closedAt(Commit[] commits, Slot best) {
        Commit c = commits[best.at / SLOT_B];
        return c != null && c.sequence == best.sequence && c.headerCrc == best.headerCrc
                && c.state == COMMIT_CLOSED;
    }

    /** Reads slot {@code s}'s commit record; null if it is absent or does not match its CRC32C. */
    private static Commit commit(ByteBuffer page, int got, int s) {
        int at = COMMIT_AT[s];
        if (got < at + COMMIT_BYTES) {
            return null;
        }
        ByteBuffer c = page.duplicate().order(ByteOrder.nativeOrder());
        if (c.getInt(at) != COMMIT_MAGIC
                || crc32c(page.array(), at, COMMIT_BYTES - 4) != c.getInt(at + COMMIT_BYTES - 4)) {
            return null;
        }
        int state = c.getInt(at + 4);
        return state == COMMIT_OPEN || state == COMMIT_CLOSED
                ? new Commit(c.getLong(at + 8), c.getInt(at + 16), state) : null;
    }

    /** Checks header slot {@code s} and its lengths against the file. */
    private static Slot slot(SnapshotReader r, ByteBuffer page, int s, int got, long fileSize, long[] sealed)
            throws StorageFileException {
        int at = s * SLOT_B;
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
        int present = Math.max(0, Math.min(HEADER_BYTES, got - at));
        h.put(0, page, at, present);
        int headerCrc = 0;
        if (present == HEADER_BYTES) {
            ByteBuffer x = ByteBuffer.wrap(h.array().clone()).order(page.get(AT_ORDER + at) == 'B'
                    ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            int stored = x.getInt(AT_HEADER_CRC);
            x.putInt(AT_HEADER_CRC, 0);
            if (crc32c(x.array(), 0, HEADER_BYTES) == stored) {
                sealed[s] = x.getLong(AT_SEQUENCE);
                headerCrc = stored;
            }
        }
        int formatVersion = r.checkHeader(h, present, true);
        byte kind = h.get(AT_KIND);
        long metaLength = h.getLong(AT_META_LENGTH);
        long metaOffset = h.getLong(AT_METADATA_OFFSET);
        long blockCount = Integer.toUnsignedLong(h.getInt(AT_BLOCK_COUNT));
        if (kind != KIND_BULK && kind != KIND_PACKED) {
            throw r.fail(Reason.MALFORMED, "table kind " + kind + " is neither 1 (BulkTable) nor 2 (PackedTable)");
        }
        if (h.getInt(AT_BLOCK_STRIDE) != MappedFile.STRIDE || blockCount > Integer.MAX_VALUE
                || metaLength < FIXED_METADATA || metaLength > Integer.MAX_VALUE - 16
                || metaOffset < DATA_START || metaOffset % MappedFile.STRIDE != 0) {
            throw r.fail(Reason.MALFORMED, "its header's lengths do not add up (metadata " + metaLength + " bytes at "
                    + metaOffset + ", " + blockCount + " blocks)");
        }
        if (metaOffset + metaLength > fileSize) {
            throw r.fail(Reason.TRUNCATED, "it is " + fileSize + " bytes long, its metadata ends at "
                    + (metaOffset + metaLength));
        }
        long sequence = h.getLong(AT_SEQUENCE);
        if (sequence < 1 || (sequence & 1) != s) {
            // Slot A holds the even checkpoints, B the odd ones: a checkpoint in the other slot is damage.
            throw r.fail(Reason.MALFORMED, "header slot " + "AB".charAt(s) + " claims checkpoint "
                    + Long.toUnsignedString(sequence) + ", but it holds only " + (s == 0 ? "even" : "odd")
                    + " checkpoint numbers from 1");
        }
        boolean checksums = (h.getInt(AT_FLAGS) & FLAG_BLOCK_CRCS) != 0;
        return new Slot(at, new Header(formatVersion, kind, metaLength, metaOffset, (int) blockCount,
                h.getInt(AT_META_CRC)), sequence, checksums, headerCrc);
    }

    /** Restores the checkpoint of header slot {@code slot}; null, making nothing, if its metadata fails its CRC32C. */
    private static StoredTable restore(SnapshotReader r, Path path, FileChannel channel, FileLock lock, Slot slot,
                                         long fileSize, Expected expected, OpenedCheckpoint.State state,
                                         String detail, Commit[] commits) throws IOException {
        Header header = slot.header;
        boolean bulk = header.kind() == KIND_BULK;
        if (header.kind() != expected.kind) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + kindName(header.kind()) + ", not a "
                    + kindName(expected.kind));
        }
        if (slot.checksums && 4L * header.blockCount() > header.metaLength()) {
            throw r.fail(Reason.MALFORMED, "its " + header.blockCount() + " block checksums do not fit its "
                    + header.metaLength() + " bytes of metadata");
        }
        Metadata m;
        int[] list;
        int[] crcs = new int[slot.checksums ? header.blockCount() : 0];
        long[] regionOffsets;
        int[] regionBlocks;
        long[] areas = new long[4];
        // The metadata is mapped, not copied: opening a large table reads its meta words once.
        try (Arena scratch = Arena.ofConfined()) {
            ByteBuffer b = channel.map(FileChannel.MapMode.READ_ONLY, header.blocksOffset(), header.metaLength(),
                    scratch).asByteBuffer().order(ByteOrder.nativeOrder());
            CRC32C crc = new CRC32C();
            crc.update(b.duplicate());
            if ((int) crc.getValue() != header.metaCrc()) {
                return null;
            }
            m = new MetadataReader(r, expected.exactSchema).metadata(b, header, expected.schema, true);
            list = new int[bulk ? m.state().freeLength() : 0];
            try {
                b.asIntBuffer().get(crcs);
                b.position(b.position() + 4 * crcs.length);
                b.asIntBuffer().get(list);
                b.position(b.position() + 4 * list.length);
                int regions = b.getInt();
                if (regions < 0 || regions * 12L > b.remaining()) {
                    throw r.fail(Reason.MALFORMED, "region count " + regions + " does not fit the metadata");
                }
                regionOffsets = new long[regions];
                regionBlocks = new int[regions];
                for (int i = 0; i < regions; i++) {
                    regionOffsets[i] = b.getLong();
                    regionBlocks[i] = b.getInt();
                }
                for (int i = 0; i < 4; i++) {
                    areas[i] = b.getLong();
                }
            } catch (java.nio.BufferUnderflowException e) {
                throw r.fail(Reason.MALFORMED, "the metadata ends before the sections it announces");
            }
            if (b.hasRemaining()) {
                throw r.fail(Reason.MALFORMED, b.remaining() + " bytes follow the metadata's last section");
            }
        }
        long end = checkSpace(r, header, regionOffsets, regionBlocks, areas, fileSize);
        checkOptions(r, m, expected, slot.checksums);
        if (m.change() != null) {
            return migrate(r, path, channel, slot, m, list, crcs, regionOffsets, regionBlocks, state, detail);
        }
        if (fileSize > end) {
            channel.truncate(end); // a region or area appended after this checkpoint
        }

        TagLease lease = TableRestore.lease(r, m, false, "; close that table first");
        StoredTable table = r.engine.create(m.state(), lease, true);
        try {
            MappedFile file = new MappedFile(r.source(), channel, lock, m.state().schema().blockBytes(), end);
            table.arena().mapFrom(file);
            for (int i = 0; i < regionOffsets.length; i++) {
                file.mapRegion(regionOffsets[i], regionBlocks[i]);
            }
            MappedStore store = new MappedStore(table, file, slot.checksums, r.engine);
            if (store.checksums && state == OpenedCheckpoint.State.CLOSED) {
                // Written by close(): nothing changed the blocks since, so each must match.
                checkBlocks(r, file, crcs, m);
                store.crcs = crcs;
                store.known = crcs.length;
            } // else the blocks may hold writes after the checkpoint: the next one sums them all
            for (int block = 0; block < header.blockCount(); block++) {
                table.restoreBlock(block);
            }
            file.restored();
            if (bulk && list.length > 0) {
                writeLinks(r, table, m, list, store);
            }
            TableRestore.restore(r, table, m, lease, 0);
            store.sequence = slot.sequence;
            store.areaOffset[0] = areas[0];
            store.areaCapacity[0] = areas[1];
            store.areaOffset[1] = areas[2];
            store.areaCapacity[1] = areas[3];
            if (store.checksums) {
                store.since = table.markVersion(); // from now on every write stamps its chunk
                if (store.known > 0) {
                    store.sumPending(); // the free-list links just written back
                }
            }
            int s = slot.at / SLOT_B;
            Commit c = commits[s];
            if (c != null && c.state == COMMIT_CLOSED) {
                // The table is open: until its next checkpoint the file is no longer as close() left it.
                MappedStore.writeCommit(channel, s, c.sequence, c.headerCrc, COMMIT_OPEN);
                channel.force(false);
            }
            store.opened = new OpenedCheckpoint(slot.sequence, state, detail);
            table.attach(store);
            TableEvents.mappedOpened(m.state().tag(), file.name, slot.sequence, state.name(), detail,
                    store.checksums);
            return table;
        } catch (Throwable t) {
            table.close(); // unmaps, closes the file and releases the tag
            throw t;
        }
    }

    /**
     * Reopens a file whose schema differs from the builder's ({@link SchemaChange}) by migrating it into
     * {@code <file>.migrating}, renamed over it ({@code docs/format.md}, section 12, "Migration"); the file itself is
     * only read, so a failure before the rename leaves it as it was.
     */
    private static StoredTable migrate(SnapshotReader r, Path path, FileChannel old, Slot slot, Metadata m,
                                       int[] list, int[] crcs, long[] regionOffsets, int[] regionBlocks,
                                       OpenedCheckpoint.State state, String detail) throws IOException {
        SchemaChange change = m.change();
        Metadata changed = m.changed();
        TableState s = changed.state();
        boolean bulk = s.kind() == KIND_BULK;
        Path temporary = path.resolveSibling(path.getFileName() + ".migrating");
        FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE);
        StoredTable table = null;
        boolean moved = false;
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw r.fail(Reason.LOCKED, "another process holds " + temporary + ", where this open would migrate"
                        + " the file to the builder's schema");
            }
            TagLease lease = TableRestore.lease(r, m, false, "; close that table first");
            table = r.engine.create(s, lease, true);
            MappedFile file = new MappedFile(r.source(), channel, lock, change.to.blockBytes(), DATA_START);
            table.arena().mapFrom(file);
            try (Arena scratch = Arena.ofConfined()) {
                MemorySegment[] regions = new MemorySegment[regionOffsets.length];
                for (int i = 0; i < regions.length; i++) {
                    regions[i] = old.map(FileChannel.MapMode.READ_ONLY, regionOffsets[i],
                            (long) regionBlocks[i] * MappedFile.STRIDE, scratch);
                }
                int fromBytes = change.from.blockBytes();
                IntFunction<MemorySegment> source = b -> {
                    int i = 0;
                    int first = 0;
                    while (first + regionBlocks[i] <= b) {
                        first += regionBlocks[i++];
                    }
                    return regions[i].asSlice((long) (b - first) * MappedFile.STRIDE, fromBytes);
                };
                if (slot.checksums && state == OpenedCheckpoint.State.CLOSED) {
                    CRC32C crc = new CRC32C();
                    for (int b = 0; b < crcs.length; b++) {
                        crc.reset();
                        crc.update(source.apply(b).asByteBuffer());
                        if ((int) crc.getValue() != crcs[b]) {
                            throw r.fail(Reason.CHECKSUM, "block " + b + " does not match the CRC32C its last"
                                    + " checkpoint stored: the file was damaged after it");
                        }
                    }
                }
                MetaWords metas = m.metas();
                int end = bulk ? s.limit() : s.size();
                SchemaChange.Targets targets = new SchemaChange.Targets(table::restoreBlock);
                change.copy(source, targets, 0, end, bulk ? slot1 -> MetaWords.isLive(metas.get(slot1)) : row -> true,
                        false, table);
                targets.ensure(change.blocksFor(end));
            }
            file.restored();
            MappedStore store = new MappedStore(table, file, slot.checksums, r.engine);
            if (bulk && list.length > 0) {
                writeLinks(r, table, changed, list, store);
            }
            TableRestore.restore(r, table, changed, lease, 0);
            store.sequence = slot.sequence;
            if (store.checksums) {
                store.since = table.markVersion(); // from now on every write stamps its chunk
            }
            store.checkpoint(false);
            channel.force(true);
            try {
                Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (FileSystemException e) {
                old.close(); // a system that does not replace an open file: give it up first
                Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
            forceDirectory(path);
            old.close(); // releases the old file's lock; the path names the migrated file
            String migrated = "; its schema " + change.from + " differed from the builder's " + change.to + " ("
                    + change.summary() + "), so the file was migrated to it: rewritten as checkpoint "
                    + store.sequence + " in " + temporary.getFileName() + ", then renamed over the file";
            store.opened = new OpenedCheckpoint(store.sequence, state, detail + migrated);
            table.attach(store);
            TableEvents.mappedOpened(s.tag(), file.name, store.sequence, state.name(), store.opened.detail(),
                    store.checksums);
            return table;
        } catch (Throwable t) {
            if (table != null) {
                table.close(); // unmaps, closes the new file and releases the tag
            }
            channel.close();
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
            throw t;
        }
    }

    /** Forces a rename in {@code path}'s directory to the device, where the system allows it. */
    private static void forceDirectory(Path path) {
        Path directory = path.toAbsolutePath().getParent();
        try (FileChannel d = FileChannel.open(directory, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // A system that opens no directory (Windows): the rename is as durable as it keeps it.
        }
    }

    /** Checks every block of the checkpoint against its CRC32C. */
    private static void checkBlocks(SnapshotReader r, MappedFile file, int[] crcs, Metadata m)
            throws StorageFileException {
        CRC32C crc = new CRC32C();
        for (int b = 0; b < crcs.length; b++) {
            crc.reset();
            crc.update(file.block(b).asByteBuffer());
            if ((int) crc.getValue() != crcs[b]) {
                throw r.fail(Reason.CHECKSUM, MappedStore.blockDamage(b, m.state().schema().slotsPerBlock(), file));
            }
        }
    }

    /**
     * Checks that the regions and areas lie in the file (an area starts in it) without overlapping, that the regions
     * hold the header's blocks and that the metadata is in its area; returns the end of the last of them.
     */
    private static long checkSpace(SnapshotReader r, Header header, long[] regionOffsets, int[] regionBlocks,
                                   long[] areas, long fileSize) throws StorageFileException {
        int regions = regionOffsets.length;
        long[][] spans = new long[regions + 2][];
        long blocks = 0;
        for (int i = 0; i < regions; i++) {
            if (regionOffsets[i] < DATA_START || regionOffsets[i] % MappedFile.STRIDE != 0 || regionBlocks[i] < 1
                    || regionBlocks[i] > MappedFile.MAX_REGION_BLOCKS) {
                throw r.fail(Reason.MALFORMED, "region " + i + " (" + regionBlocks[i] + " blocks at "
                        + regionOffsets[i] + ") is not a region of 1 to " + MappedFile.MAX_REGION_BLOCKS
                        + " blocks at a multiple of " + MappedFile.STRIDE);
            }
            long regionEnd = regionOffsets[i] + (long) regionBlocks[i] * MappedFile.STRIDE;
            if (regionEnd > fileSize) {
                throw r.fail(Reason.TRUNCATED, "it is " + fileSize + " bytes long, its region " + i + " ends at "
                        + regionEnd);
            }
            spans[i] = new long[] {regionOffsets[i], regionEnd};
            blocks += regionBlocks[i];
        }
        if (blocks < header.blockCount()) {
            throw r.fail(Reason.MALFORMED, "its regions hold " + blocks + " blocks, its header says "
                    + header.blockCount());
        }
        for (int a = 0; a < 2; a++) {
            long offset = areas[2 * a];
            long capacity = areas[2 * a + 1];
            if (offset == 0 && capacity == 0) {
                spans[regions + a] = new long[] {0, 0};
                continue;
            }
            if (offset < DATA_START || offset % MappedFile.STRIDE != 0 || capacity < MappedFile.STRIDE
                    || capacity % MappedFile.STRIDE != 0 || capacity > 1L << 40 || offset > 1L << 50) {
                throw r.fail(Reason.MALFORMED, "metadata area " + a + " (" + capacity + " bytes at " + offset
                        + ") is not an area at a multiple of " + MappedFile.STRIDE);
            }
            if (offset >= fileSize) {
                // Areas are appended by their first checkpoint, never truncated: one past the end is damage.
                throw r.fail(Reason.TRUNCATED, "it is " + fileSize + " bytes long, its metadata area " + a
                        + " starts at " + offset);
            }
            spans[regions + a] = new long[] {offset, offset + capacity};
        }
        long at = header.blocksOffset();
        boolean inArea = false;
        for (int a = 0; a < 2; a++) {
            inArea |= at == areas[2 * a] && header.metaLength() <= areas[2 * a + 1];
        }
        if (!inArea) {
            throw r.fail(Reason.MALFORMED, "its metadata at " + at + " is not in one of its metadata areas");
        }
        Arrays.sort(spans, (x, y) -> Long.compare(x[0], y[0]));
        long end = DATA_START;
        for (long[] span : spans) {
            if (span[1] == 0) {
                continue;
            }
            if (span[0] < end) {
                throw r.fail(Reason.MALFORMED, "its regions and metadata areas overlap at byte " + span[0]);
            }
            end = span[1];
        }
        return end;
    }

    /** A reopened table keeps its options: the builder must ask for the same. */
    private static void checkOptions(SnapshotReader r, Metadata m, Expected e, boolean checksums)
            throws StorageFileException {
        TableState s = m.state();
        String difference = null;
        boolean fixed = s.tag() >= HandleLayout.MIN_FIXED_TAG;
        if (!s.handles().equals(e.handles)) {
            difference = "its handle layout is " + s.handles() + ", the builder's " + e.handles
                    + " (without handleLayout(...), a builder's layout follows its maxCapacity:"
                    + " HandleLayout.forCapacity)";
        } else if (e.kind == KIND_BULK && s.reuse() != e.reuse) {
            difference = "its reuse order is " + s.reuse() + ", the builder's " + e.reuse;
        } else if (s.maxSlot() != Math.min(e.handles.maxSlot(), e.maxCapacity)) {
            difference = "its capacity limit is " + s.maxSlot() + " slots, the builder's "
                    + Math.min(e.handles.maxSlot(), e.maxCapacity);
        } else if (fixed && e.tag == 0) {
            difference = "it was created with the fixed tag " + s.tag() + " and the builder names no tag; give it"
                    + " tag(" + s.tag() + ")";
        } else if (e.tag != 0 && s.tag() != e.tag) {
            difference = "its tag is " + (fixed ? "the fixed tag " : "the automatic tag ") + s.tag()
                    + ", the builder's " + e.tag;
        } else if (checksums != e.checksums) {
            difference = checksums ? "its blocks carry checksums and the builder's blockChecksums is off"
                    : "its blocks carry no checksums and the builder asks for blockChecksums";
        }
        if (difference != null) {
            throw r.fail(Reason.SCHEMA_MISMATCH, difference + "; a reopened table keeps the options it was created"
                    + " with");
        }
    }

    /** Writes a BulkTable's saved free list into the link words of its free slots (and the header's, slot 0). */
    private static void writeLinks(SnapshotReader r, StoredTable table, Metadata m, int[] list, MappedStore store)
            throws StorageFileException {
        int spb = m.state().schema().slotsPerBlock();
        int previous = 0;
        for (int slot : list) {
            if (slot <= 0 || slot >= m.state().limit()) {
                throw r.fail(Reason.MALFORMED, "the free list names slot " + slot + ", which is not an opened slot");
            }
            table.setLink(previous, slot);
            store.touched(previous / spb);
            previous = slot;
        }
        table.setLink(previous, 0);
        store.touched(previous / spb);
    }
}
