package dev.bulkdata.storage;

import dev.bulkdata.storage.SnapshotException.Reason;
import dev.bulkdata.storage.SnapshotFormat.Header;
import dev.bulkdata.storage.SnapshotFormat.Metadata;
import dev.bulkdata.storage.internal.MappedFile;
import dev.bulkdata.storage.internal.TagLease;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The file of a mapped table and its checkpoint protocol: two header slots and their commit
 * records, then block regions and two metadata areas; checkpoint {@code n} writes slot and area
 * {@code n & 1}, so a crash leaves checkpoint {@code n - 1} intact. Specified in
 * {@code docs/format.md} (sections 11 and 12). The fields a header slot shares with a
 * snapshot's header, and the metadata before this file's own sections, are read and written by
 * {@link SnapshotFormat}.
 */
final class MappedFormat {
    static final int SLOT_B = 4096;
    static final long DATA_START = MappedFile.STRIDE;
    static final int AT_METADATA_OFFSET = 32;
    static final int AT_SEQUENCE = 56;
    /** Where each header slot's commit record is: a page of its own, apart from both headers. */
    static final int[] COMMIT_AT = {8192, 12288};
    static final int COMMIT_BYTES = 24;
    static final int COMMIT_MAGIC = 0x54494D43; // "CMIT" in little-endian order
    /** Commit state: the checkpoint completed; the table may have been written after it. */
    static final int COMMIT_OPEN = 1;
    /** Commit state: {@code close()} wrote the checkpoint; nothing was written after it. */
    static final int COMMIT_CLOSED = 2;
    /** The unit in which a checkpoint compares and writes the metadata: one page of the page cache. */
    static final int PAGE = 4096;

    private MappedFormat() {
    }

    /** A mapped table's file and the state of its checkpoints. */
    static final class Store {
        final MappedFile file;
        /** The sequence number of the last completed checkpoint. */
        long sequence;
        final long[] areaOffset = new long[2];
        final long[] areaCapacity = new long[2];
        /** Metadata bytes the last checkpoint wrote: the pages that changed, or all of it into a new area. */
        long metadataWritten;
        /** Whether the file keeps a CRC32C per block ({@link SnapshotFormat#FLAG_BLOCK_CRCS}). */
        final boolean checksums;
        /** Each block's CRC32C as of the last checkpoint, for the first {@link #known} blocks. */
        int[] crcs = new int[0];
        /** Blocks below this have a checksum of the last checkpoint (0 after an open that could not check them). */
        int known;
        /** Bit per block: its bytes changed without a change-version stamp (free-list links), so its checksum is due. */
        long[] pending = new long[0];
        /** The change version the last checkpoint marked: a block stamped after it changed since. */
        int since;
        /** Blocks whose checksum the last checkpoint computed. */
        int checksummed;
        /** Which checkpoint the table was opened at. */
        OpenedCheckpoint opened;

        Store(MappedFile file, boolean checksums) {
            this.file = file;
            this.checksums = checksums;
        }

        /** Block {@code block}'s bytes changed where the change versions do not see it. */
        void touched(int block) {
            if (!checksums) {
                return;
            }
            int w = block >>> 6;
            if (w >= pending.length) {
                pending = Arrays.copyOf(pending, Math.max(w + 1, 2 * pending.length));
            }
            pending[w] |= 1L << block;
        }

        /** {@return whether block {@code block} may have changed since the last checkpoint's checksums} */
        boolean due(AbstractTable table, int block) {
            return block >= known
                    || (block >>> 6) < pending.length && (pending[block >>> 6] & 1L << block) != 0
                    || table.versions.anyChangedSince(block, since);
        }
    }

    /** What the builder asks for: the kind, schema and options a reopened file must match. */
    record Expected(int kind, Schema schema, ReuseOrder reuse, HandleLayout handles, int maxCapacity, int tag,
                    CheckpointFallback fallback, boolean checksums) {
    }

    /**
     * Opens a mapped table: creates it with {@code create} if the file is absent or empty, else
     * restores the file's last checkpoint.
     */
    static AbstractTable open(Path path, Expected expected, Supplier<AbstractTable> create) throws IOException {
        String source = path.toString();
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        boolean opened = false;
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                throw new SnapshotException(source, Reason.LOCKED, "it is open in another table of this process;"
                        + " a file is mapped by one table at a time", e);
            }
            if (lock == null) {
                throw new SnapshotException(source, Reason.LOCKED, "another process holds its lock; a file is"
                        + " mapped by one table at a time");
            }
            AbstractTable table = channel.size() == 0
                    ? create(source, channel, lock, expected, create)
                    : reopen(source, channel, lock, expected);
            opened = true;
            return table;
        } finally {
            if (!opened) {
                channel.close(); // releases the lock
            }
        }
    }

    private static AbstractTable create(String source, FileChannel channel, FileLock lock, Expected expected,
                                        Supplier<AbstractTable> create) throws IOException {
        AbstractTable table = create.get();
        try {
            MappedFile file = new MappedFile(source, channel, lock, table.schema.blockBytes(), DATA_START);
            table.arena.mapFrom(file);
            Store store = new Store(file, expected.checksums);
            if (store.checksums) {
                store.since = table.versions.mark(); // from now on every write stamps its chunk
            }
            checkpoint(table, store, false);
            store.opened = new OpenedCheckpoint(store.sequence, OpenedCheckpoint.State.CREATED,
                    "the file was created with checkpoint " + store.sequence);
            table.mapped = store;
            file.reportOpened(table.index.tag(), store.opened.sequence(), store.opened.state().name(),
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

    private static AbstractTable reopen(String source, FileChannel channel, FileLock lock, Expected expected)
            throws IOException {
        SnapshotFormat.Reader r = new SnapshotFormat.Reader(channel, source);
        long fileSize = channel.size();
        ByteBuffer page = ByteBuffer.allocate((int) DATA_START);
        int got = r.readSome(page); // a new channel's position is 0
        SnapshotException[] failures = new SnapshotException[2];
        Slot[] slots = new Slot[2];
        long[] sealed = {-1, -1}; // the sequence of a header whose CRC matches, even if it fails later checks
        for (int s = 0; s < 2; s++) {
            try {
                slots[s] = slot(r, page, s, got, fileSize, sealed);
            } catch (SnapshotException e) {
                failures[s] = e;
            }
        }
        Commit[] commits = {commit(page, got, 0), commit(page, got, 1)};
        int first = slots[1] != null && (slots[0] == null || slots[1].sequence > slots[0].sequence) ? 1 : 0;
        Slot best = slots[first];
        Slot older = slots[1 - first];
        long bestSeq = best == null ? -1 : best.sequence;
        // What the slot without a usable header says: a newer checkpoint that completed and was
        // damaged since, or one a crash interrupted while its header was being written.
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
            if (sealed[s] > bestSeq) {
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
                        + " does not do this); checkpoint " + bestSeq + " before it is intact, and"
                        + " checkpointFallback(AFTER_CRASH_OR_DAMAGE) opens it");
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
        AbstractTable table = restore(r, channel, lock, best, fileSize, expected, state, detail, commits);
        if (table != null) {
            return table;
        }
        // The newest checkpoint's header is intact but its metadata is not: damage, never a crash
        // (a checkpoint forces its metadata before it writes its header).
        String what = "checkpoint " + bestSeq + "'s metadata no longer matches the CRC32C in its intact header,"
                + " so the file was damaged after that checkpoint completed (a crash does not do this)";
        if (older == null) {
            throw r.fail(Reason.CHECKSUM, what + "; no other checkpoint is intact");
        }
        if (expected.fallback != CheckpointFallback.AFTER_CRASH_OR_DAMAGE) {
            throw r.fail(Reason.CHECKSUM, what + "; checkpoint " + older.sequence + " before it may be intact, and"
                    + " checkpointFallback(AFTER_CRASH_OR_DAMAGE) opens it");
        }
        table = restore(r, channel, lock, older, fileSize, expected, OpenedCheckpoint.State.DAMAGED,
                "opened checkpoint " + older.sequence + " because " + what, commits);
        if (table == null) {
            throw r.fail(Reason.CHECKSUM, what + "; the metadata of checkpoint " + older.sequence
                    + " before it does not match its CRC32C either");
        }
        return table;
    }

    /** {@return the message of a failure, without the file's name and the reason around it} */
    private static String detail(SnapshotException e) {
        String m = e.getMessage();
        String prefix = "snapshot " + e.source() + ": ";
        String suffix = " (" + e.reason() + ")";
        return m.substring(m.startsWith(prefix) ? prefix.length() : 0,
                m.endsWith(suffix) ? m.length() - suffix.length() : m.length());
    }

    /** {@return whether the 64 bytes of header slot at {@code at} are all zero (never written)} */
    private static boolean zero(ByteBuffer page, int got, int at) {
        for (int i = at; i < Math.min(got, at + SnapshotFormat.HEADER_BYTES); i++) {
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
                || SnapshotFormat.crc32c(page.array(), at, COMMIT_BYTES - 4) != c.getInt(at + COMMIT_BYTES - 4)) {
            return null;
        }
        int state = c.getInt(at + 4);
        return state == COMMIT_OPEN || state == COMMIT_CLOSED
                ? new Commit(c.getLong(at + 8), c.getInt(at + 16), state) : null;
    }

    /** Writes slot {@code s}'s commit record (not forced: docs/format.md, section 12). */
    private static void writeCommit(FileChannel channel, int s, long sequence, int headerCrc, int state)
            throws IOException {
        ByteBuffer c = ByteBuffer.allocate(COMMIT_BYTES).order(ByteOrder.nativeOrder());
        c.putInt(0, COMMIT_MAGIC).putInt(4, state).putLong(8, sequence).putInt(16, headerCrc);
        c.putInt(COMMIT_BYTES - 4, SnapshotFormat.crc32c(c.array(), 0, COMMIT_BYTES - 4));
        writeAt(channel, c, COMMIT_AT[s]);
    }

    /** Checks header slot {@code s} and its lengths against the file. */
    private static Slot slot(SnapshotFormat.Reader r, ByteBuffer page, int s, int got, long fileSize, long[] sealed)
            throws SnapshotException {
        int at = s * SLOT_B;
        ByteBuffer h = ByteBuffer.allocate(SnapshotFormat.HEADER_BYTES);
        int present = Math.max(0, Math.min(SnapshotFormat.HEADER_BYTES, got - at));
        h.put(0, page, at, present);
        int headerCrc = 0;
        if (present == SnapshotFormat.HEADER_BYTES) {
            ByteBuffer x = ByteBuffer.wrap(h.array().clone()).order(page.get(SnapshotFormat.AT_ORDER + at) == 'B'
                    ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            int stored = x.getInt(SnapshotFormat.AT_HEADER_CRC);
            x.putInt(SnapshotFormat.AT_HEADER_CRC, 0);
            if (SnapshotFormat.crc32c(x.array(), 0, SnapshotFormat.HEADER_BYTES) == stored) {
                sealed[s] = x.getLong(AT_SEQUENCE);
                headerCrc = stored;
            }
        }
        int version = r.checkHeader(h, present, true);
        byte kind = h.get(SnapshotFormat.AT_KIND);
        long metaLength = h.getLong(SnapshotFormat.AT_META_LENGTH);
        long metaOffset = h.getLong(AT_METADATA_OFFSET);
        long blockCount = Integer.toUnsignedLong(h.getInt(SnapshotFormat.AT_BLOCK_COUNT));
        if (kind != SnapshotFormat.KIND_BULK && kind != SnapshotFormat.KIND_PACKED) {
            throw r.fail(Reason.MALFORMED, "table kind " + kind + " is neither 1 (BulkTable) nor 2 (PackedTable)");
        }
        if (h.getInt(SnapshotFormat.AT_BLOCK_STRIDE) != MappedFile.STRIDE || blockCount > Integer.MAX_VALUE
                || metaLength < SnapshotFormat.FIXED_METADATA || metaLength > Integer.MAX_VALUE - 16
                || metaOffset < DATA_START || metaOffset % MappedFile.STRIDE != 0) {
            throw r.fail(Reason.MALFORMED, "its header's lengths do not add up (metadata " + metaLength + " bytes at "
                    + metaOffset + ", " + blockCount + " blocks)");
        }
        if (metaOffset + metaLength > fileSize) {
            throw r.fail(Reason.TRUNCATED, "it is " + fileSize + " bytes long, its metadata ends at "
                    + (metaOffset + metaLength));
        }
        boolean checksums = (h.getInt(SnapshotFormat.AT_FLAGS) & SnapshotFormat.FLAG_BLOCK_CRCS) != 0;
        return new Slot(at, new Header(version, kind, metaLength, metaOffset, (int) blockCount,
                h.getInt(SnapshotFormat.AT_META_CRC)), h.getLong(AT_SEQUENCE), checksums, headerCrc);
    }

    /**
     * Restores the checkpoint of header slot {@code slot}; returns null, having made nothing,
     * if its metadata does not match its CRC32C.
     */
    private static AbstractTable restore(SnapshotFormat.Reader r, FileChannel channel, FileLock lock, Slot slot,
                                         long fileSize, Expected expected, OpenedCheckpoint.State state,
                                         String detail, Commit[] commits) throws IOException {
        Header header = slot.header;
        boolean bulk = header.kind() == SnapshotFormat.KIND_BULK;
        if (header.kind() != expected.kind) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + SnapshotFormat.kindName(header.kind()) + ", not a "
                    + SnapshotFormat.kindName(expected.kind));
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
            m = r.metadata(b, header, expected.schema, true);
            list = new int[bulk ? m.freeLength() : 0];
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
        if (fileSize > end) {
            channel.truncate(end); // a region or area appended after this checkpoint
        }

        TagLease lease = SnapshotFormat.lease(r, m, false, "; close that table first");
        AbstractTable table = bulk
                ? new BulkTableImpl(m.schema(), m.reuse(), m.handles(), m.maxCapacity(), lease)
                : new PackedTableImpl(m.schema(), m.handles(), m.maxCapacity(), lease);
        try {
            MappedFile file = new MappedFile(r.source(), channel, lock, m.schema().blockBytes(), end);
            table.arena.mapFrom(file);
            for (int i = 0; i < regionOffsets.length; i++) {
                file.mapRegion(regionOffsets[i], regionBlocks[i]);
            }
            Store store = new Store(file, slot.checksums);
            if (store.checksums && state == OpenedCheckpoint.State.CLOSED) {
                // Written by close(): nothing changed the blocks since, so each must match.
                checkBlocks(r, file, crcs, m);
                store.crcs = crcs;
                store.known = crcs.length;
            } // else the blocks may hold writes after the checkpoint: the next one sums them all
            for (int block = 0; block < header.blockCount(); block++) {
                if (table instanceof BulkTableImpl bulkTable) {
                    bulkTable.restoreBlock(block);
                } else {
                    ((PackedTableImpl) table).restoreBlock(block);
                }
            }
            file.restored();
            if (bulk && list.length > 0) {
                writeLinks(r, table, m, list, store);
            }
            SnapshotFormat.restore(r, table, m, 0);
            store.sequence = slot.sequence;
            store.areaOffset[0] = areas[0];
            store.areaCapacity[0] = areas[1];
            store.areaOffset[1] = areas[2];
            store.areaCapacity[1] = areas[3];
            if (store.checksums) {
                store.since = table.versions.mark(); // from now on every write stamps its chunk
                if (store.known > 0) {
                    sumPending(table, store); // the free-list links just written back
                }
            }
            int s = slot.at / SLOT_B;
            Commit c = commits[s];
            if (c != null && c.state == COMMIT_CLOSED) {
                // The table is open: until its next checkpoint the file is no longer as close() left it.
                writeCommit(channel, s, c.sequence, c.headerCrc, COMMIT_OPEN);
                channel.force(false);
            }
            store.opened = new OpenedCheckpoint(slot.sequence, state, detail);
            table.mapped = store;
            file.reportOpened(table.index.tag(), slot.sequence, state.name(), detail, store.checksums);
            return table;
        } catch (Throwable t) {
            table.close(); // unmaps, closes the file and releases the tag
            throw t;
        }
    }

    /** Checks every block of the checkpoint against its CRC32C. */
    private static void checkBlocks(SnapshotFormat.Reader r, MappedFile file, int[] crcs, Metadata m)
            throws SnapshotException {
        CRC32C crc = new CRC32C();
        for (int b = 0; b < crcs.length; b++) {
            crc.reset();
            crc.update(file.block(b).asByteBuffer());
            if ((int) crc.getValue() != crcs[b]) {
                throw r.fail(Reason.CHECKSUM, blockDamage(b, m.schema().slotsPerBlock(), file));
            }
        }
    }

    /** {@return what a checksum mismatch of block {@code b} says} */
    static String blockDamage(int b, int slotsPerBlock, MappedFile file) {
        return "block " + b + " (slots or rows " + (long) b * slotsPerBlock + " to "
                + ((long) (b + 1) * slotsPerBlock - 1) + ", file offset " + file.blockOffset(b)
                + ") does not match the CRC32C its last checkpoint stored: the file was damaged after it";
    }

    /**
     * Checks that the regions and areas lie in the file without overlapping, that the regions
     * hold the header's blocks and that the metadata is in its area; returns the end of the
     * last of them.
     */
    private static long checkSpace(SnapshotFormat.Reader r, Header header, long[] regionOffsets, int[] regionBlocks,
                                   long[] areas, long fileSize) throws SnapshotException {
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
    private static void checkOptions(SnapshotFormat.Reader r, Metadata m, Expected e, boolean checksums)
            throws SnapshotException {
        String difference = null;
        boolean fixed = m.tag() >= HandleLayout.MIN_FIXED_TAG;
        if (!m.handles().equals(e.handles)) {
            difference = "its handle layout is " + m.handles() + ", the builder's " + e.handles;
        } else if (e.kind == SnapshotFormat.KIND_BULK && m.reuse() != e.reuse) {
            difference = "its reuse order is " + m.reuse() + ", the builder's " + e.reuse;
        } else if (m.maxCapacity() != Math.min(e.handles.maxIndex(), e.maxCapacity)) {
            difference = "its capacity limit is " + m.maxCapacity() + " slots, the builder's "
                    + Math.min(e.handles.maxIndex(), e.maxCapacity);
        } else if (fixed && e.tag == 0) {
            difference = "it was created with the fixed tag " + m.tag() + " and the builder names no tag; give it"
                    + " tag(" + m.tag() + ")";
        } else if (e.tag != 0 && m.tag() != e.tag) {
            difference = "its tag is " + (fixed ? "the fixed tag " : "the automatic tag ") + m.tag()
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
    private static void writeLinks(SnapshotFormat.Reader r, AbstractTable table, Metadata m, int[] list,
                                   Store store) throws SnapshotException {
        IntField link = table.schema.link();
        int shift = table.recordShift;
        int mask = table.recordMask;
        int previous = 0;
        for (int slot : list) {
            if (slot <= 0 || slot >= m.limit()) {
                throw r.fail(Reason.MALFORMED, "the free list names slot " + slot + ", which is not an opened slot");
            }
            link.set(table.segments[previous >>> shift], previous & mask, slot);
            store.touched(previous >>> shift);
            previous = slot;
        }
        link.set(table.segments[previous >>> shift], previous & mask, 0);
        store.touched(previous >>> shift);
    }

    /**
     * Makes a checkpoint of a mapped table (docs/format.md, section 12). The caller holds no
     * iteration; this method holds one while it runs, so structural changes wait for it (they
     * throw {@link java.util.ConcurrentModificationException} meanwhile).
     *
     * @param closing whether {@code close()} makes it: its commit record then says so
     */
    static void checkpoint(AbstractTable table, boolean closing) throws IOException {
        table.beginIteration();
        try {
            checkpoint(table, table.mapped, closing);
        } finally {
            table.endIteration();
        }
    }

    private static void checkpoint(AbstractTable table, Store store, boolean closing) throws IOException {
        MappedFile file = store.file;
        int blocks = table.blockCount();
        if (store.checksums) {
            sumChangedBlocks(table, store, blocks); // before the force, which then covers what they sum
        }
        file.force();
        boolean bulk = table instanceof BulkTableImpl;
        int[] list = bulk ? table.index.listedSlots() : new int[0];
        int regions = file.regionCount();
        int sums = store.checksums ? blocks : 0;
        int extra = 4 * sums + 4 * list.length + 4 + 12 * regions + 32;
        ByteBuffer meta = SnapshotFormat.metadata(table, extra);
        int s = (int) ((store.sequence + 1) & 1);
        long length = meta.capacity();
        boolean freshArea = length > store.areaCapacity[s];
        if (freshArea) {
            store.areaCapacity[s] = MappedFile.align(length + length / 2);
            store.areaOffset[s] = file.appendArea(store.areaCapacity[s]);
        }
        meta.asIntBuffer().put(store.crcs, 0, sums);
        meta.position(meta.position() + 4 * sums);
        for (int slot : list) {
            meta.putInt(slot);
        }
        meta.putInt(regions);
        for (int i = 0; i < regions; i++) {
            meta.putLong(file.regionOffset(i)).putInt(file.regionBlocks(i));
        }
        meta.putLong(store.areaOffset[0]).putLong(store.areaCapacity[0])
                .putLong(store.areaOffset[1]).putLong(store.areaCapacity[1]);
        meta.flip();
        FileChannel channel = file.channel;
        store.metadataWritten = freshArea ? writeAt(channel, meta, store.areaOffset[s])
                : writeChanged(channel, meta, store.areaOffset[s]);
        channel.force(true);

        ByteBuffer header = ByteBuffer.allocate(SnapshotFormat.HEADER_BYTES).order(ByteOrder.nativeOrder());
        SnapshotFormat.startHeader(header,
                        table instanceof PackedTableImpl ? SnapshotFormat.KIND_PACKED : SnapshotFormat.KIND_BULK,
                        SnapshotFormat.FLAG_MAPPED | (store.checksums ? SnapshotFormat.FLAG_BLOCK_CRCS : 0),
                        length, blocks, SnapshotFormat.crc32c(meta.array(), 0, (int) length))
                .putLong(AT_METADATA_OFFSET, store.areaOffset[s]).putLong(AT_SEQUENCE, store.sequence + 1);
        SnapshotFormat.sealHeader(header);
        int headerCrc = header.getInt(SnapshotFormat.AT_HEADER_CRC);
        writeAt(channel, header, (long) s * SLOT_B);
        channel.force(true);
        store.sequence++;
        // Evidence that the checkpoint completed, written once its header is on the device; the
        // next checkpoint's first force (or the kernel's write-back) makes it durable.
        writeCommit(channel, s, store.sequence, headerCrc, closing ? COMMIT_CLOSED : COMMIT_OPEN);
    }

    /**
     * Computes the CRC32C of every block that may have changed since the last checkpoint (its
     * change versions newer than the version that checkpoint marked, a byte written without a
     * stamp, or a block it had no checksum for), and marks a version: writes from now on
     * stamp newer.
     */
    private static void sumChangedBlocks(AbstractTable table, Store store, int blocks) {
        int now = table.versions.mark();
        if (store.crcs.length < blocks) {
            store.crcs = Arrays.copyOf(store.crcs, Math.max(blocks, store.crcs.length + store.crcs.length / 2));
        }
        CRC32C crc = new CRC32C();
        int summed = 0;
        for (int b = 0; b < blocks; b++) {
            if (store.due(table, b)) {
                crc.reset();
                crc.update(table.segments[b].asByteBuffer());
                store.crcs[b] = (int) crc.getValue();
                summed++;
            }
        }
        store.known = blocks;
        store.since = now;
        Arrays.fill(store.pending, 0);
        store.checksummed = summed;
    }

    /** Computes the CRC32C of the blocks whose bytes the table changed without a stamp, and clears them. */
    private static void sumPending(AbstractTable table, Store store) {
        CRC32C crc = new CRC32C();
        for (int w = 0; w < store.pending.length; w++) {
            for (long bits = store.pending[w]; bits != 0; bits &= bits - 1) {
                int b = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (b < store.known) {
                    crc.reset();
                    crc.update(table.segments[b].asByteBuffer());
                    store.crcs[b] = (int) crc.getValue();
                }
            }
        }
        Arrays.fill(store.pending, 0);
    }

    /**
     * Checks every block unchanged since the last checkpoint against the CRC32C it stored; the
     * caller holds the table's iteration guard. {@return the number of blocks checked}
     */
    static int verify(AbstractTable table) throws SnapshotException {
        Store store = table.mapped;
        CRC32C crc = new CRC32C();
        int checked = 0;
        for (int b = 0, blocks = Math.min(table.blockCount(), store.known); b < blocks; b++) {
            if (!store.due(table, b)) {
                crc.reset();
                crc.update(table.segments[b].asByteBuffer());
                if ((int) crc.getValue() != store.crcs[b]) {
                    throw new SnapshotException(store.file.name, Reason.CHECKSUM,
                            blockDamage(b, table.schema.slotsPerBlock(), store.file));
                }
                checked++;
            }
        }
        return checked;
    }

    /** Writes {@code b} from its position to its limit at file offset {@code at}; returns the bytes written. */
    private static long writeAt(FileChannel channel, ByteBuffer b, long at) throws IOException {
        long bytes = b.remaining();
        while (b.hasRemaining()) {
            channel.write(b, at + b.position());
        }
        return bytes;
    }

    /**
     * Writes the metadata {@code meta} (a heap buffer, position 0) into the area at {@code at}
     * page by page, only the pages whose bytes differ from what the area holds (the metadata of
     * the checkpoint two back, or anything after a crash); returns the bytes written. So a
     * checkpoint writes, and forces, only the metadata pages that changed: the meta words of
     * the slots added or removed since, the free list, the counters.
     */
    private static long writeChanged(FileChannel channel, ByteBuffer meta, long at) throws IOException {
        int length = meta.limit();
        long present = Math.max(0, Math.min(length, channel.size() - at));
        MemorySegment now = MemorySegment.ofArray(meta.array());
        long written = 0;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment old = present == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, at, present, scratch);
            int run = -1; // first page of the run of differing pages being gathered, or -1
            for (int page = 0; page < length || run >= 0; page += PAGE) {
                int end = Math.min(page + PAGE, length);
                boolean differs = page < length && (end > present
                        || MemorySegment.mismatch(now, page, end, old, page, end) >= 0);
                if (differs && run < 0) {
                    run = page;
                } else if (!differs && run >= 0) {
                    int runEnd = Math.min(page, length);
                    written += writeAt(channel, ByteBuffer.wrap(meta.array(), run, runEnd - run).slice(), at + run);
                    run = -1;
                }
            }
        }
        return written;
    }
}
