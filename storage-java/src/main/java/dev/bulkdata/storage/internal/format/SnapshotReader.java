package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.zip.CRC32C;

import static dev.bulkdata.storage.internal.format.FileFormat.*;

/**
 * Reads one snapshot from a channel ({@code docs/format.md}, sections 3 to 10 and 13, in the order of section 10's
 * checks), failing with the source's name: the header, the metadata's bytes (parsed by {@link MetadataReader}), the
 * blocks straight into the blocks a new table allocates, their checksums. Also reads a mapped file's header slots.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SnapshotReader {
    // Blocks allocated, read and summed per batch (256 KiB): in cache when summed; caps a short stream's allocation.
    private static final int READ_BATCH = 16;
    /** The most metadata bytes read ahead of what arrived, from a stream of unknown length. */
    private static final int READ_AHEAD = 1 << 20;

    private final ReadableByteChannel in;
    private final String source;
    final Engine engine;

    SnapshotReader(ReadableByteChannel in, String source, Engine engine) {
        this.in = in;
        this.source = source;
        this.engine = engine;
    }

    /**
     * Reads a snapshot of a BulkTable or PackedTable.
     *
     * @param fileSize the source's size in bytes, or -1 for a stream of unknown length
     * @param expected the schema the caller expects, or null to take the file's
     * @param kind the kind the caller expects ({@link FileFormat#KIND_BULK}, {@link FileFormat#KIND_PACKED}), 0: either
     * @param newTag whether to load the table under a new automatic tag
     * @param exact whether the file must hold {@code expected} exactly; else a schema with added, dropped or
     *     reordered fields, or another layout, is read under {@code expected}
     */
    public static StoredTable read(ReadableByteChannel in, long fileSize, String source, Schema expected, int kind,
                                   boolean newTag, boolean exact, Engine engine) throws IOException {
        SnapshotReader r = new SnapshotReader(in, source, engine);
        Header header = r.header(fileSize);
        if (kind != 0 && header.kind() != kind || header.kind() == KIND_COMPONENTS) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + kindName(header.kind()) + ", not a "
                    + (kind == 0 ? "BulkTable or PackedTable" : kindName(kind))
                    + (header.kind() == KIND_COMPONENTS ? "; load it with Snapshots.loadComponents" : ""));
        }
        Metadata m = new MetadataReader(r, exact).metadata(r.metadataBytes(header, fileSize >= 0), header, expected,
                false);
        r.skip(header.blocksOffset() - HEADER_BYTES - header.metaLength());
        TagLease lease = TableRestore.lease(r, m, newTag, "; close that table, or load this one with LoadOption.NEW_TAG");
        int generationShift = newTag ? lease.floor - m.state().floor() : 0;
        SchemaChange change = m.change();
        if (change != null) {
            m = m.changed();
        }
        StoredTable table = engine.create(m.state(), lease, false);
        try {
            if (change == null) {
                r.blocks(m.state().schema(), header.blockCount(), table.arena(), table::restoreBlock);
            } else {
                TableState s = m.state();
                boolean bulk = s.kind() == KIND_BULK;
                MetaWords metas = m.metas();
                int end = bulk ? s.limit() : s.size();
                r.changedBlocks(change, header.blockCount(), end, bulk ? slot -> MetaWords.isLive(metas.get(slot))
                        : row -> true, bulk, table, table::restoreBlock);
            }
            TableRestore.restore(r, table, m, lease, generationShift);
            if (newTag) {
                table.loadedFrom(m.state().identity(), m.state().tag(), generationShift);
            }
            return table;
        } catch (Throwable t) {
            table.close();
            throw t;
        }
    }

    /**
     * Reads a component table's snapshot for {@code entities}, which must be the entity table it was saved with (or a
     * snapshot of it, loaded) at the same point or later.
     */
    public static StoredComponents readComponents(ReadableByteChannel in, long fileSize, String source,
                                                  StoredTable entities, Schema expected, boolean exact,
                                                  Engine engine) throws IOException {
        SnapshotReader r = new SnapshotReader(in, source, engine);
        Header header = r.header(fileSize);
        if (header.kind() != KIND_COMPONENTS) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + kindName(header.kind())
                    + ", not a ComponentTable; load it with Snapshots.load");
        }
        MetadataReader.Components m = new MetadataReader(r, exact).components(r.metadataBytes(header, fileSize >= 0),
                header, expected, entities);
        r.skip(header.blocksOffset() - HEADER_BYTES - header.metaLength());
        SchemaChange change = m.change();
        StoredComponents table = engine.createComponents(entities, change == null ? m.schema() : change.to);
        try {
            if (change == null) {
                r.blocks(m.schema(), header.blockCount(), table.arena(), table::restoreBlock);
            } else {
                r.changedBlocks(change, header.blockCount(), m.keys().length, row -> true, false, null,
                        table::restoreBlock);
            }
            table.restoreRows(m.keys(), m.owners());
            return table;
        } catch (Throwable t) {
            table.close();
            throw t;
        }
    }

    String source() {
        return source;
    }

    /**
     * Reads the file's {@code count} blocks, in the file's schema, a batch at a time into scratch memory, and copies
     * the records of slots (or rows) {@code [0, end)} into the table's blocks ({@link SchemaChange#copy}).
     */
    void changedBlocks(SchemaChange change, int count, int end, IntPredicate live, boolean links, StoredTable table,
                       IntFunction<MemorySegment> restoreBlock) throws IOException {
        SchemaChange.Targets targets = new SchemaChange.Targets(restoreBlock);
        int spb = change.from.slotsPerBlock();
        long stride = (change.from.blockBytes() + 63) & -64L;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment batch = scratch.allocate(stride * Math.max(1, Math.min(count, READ_BATCH)), 64);
            int[] at = new int[1];
            blocks(change.from, count, new BlockSink() {
                @Override
                public void ahead(int first, int n) {
                    at[0] = first;
                }

                @Override
                public MemorySegment block(int b) {
                    return batch.asSlice((b - at[0]) * stride, change.from.blockBytes());
                }

                @Override
                public void read(int first, int n) {
                    change.copy(b -> block(b), targets, (int) Math.min(end, (long) first * spb),
                            (int) Math.min(end, (long) (first + n) * spb), live, links, table);
                }
            });
        }
        targets.ensure(change.blocksFor(end));
    }

    StorageFileException fail(Reason reason, String what) {
        return engine.failure(source, reason, what, null);
    }

    /**
     * {@return the format version}, checking what every header shares, in this order: magic, length, byte order,
     * format version, flags ({@link FileFormat#FLAG_MAPPED}, and optionally {@link FileFormat#FLAG_BLOCK_CRCS}, for a
     * mapped table's file, none for a snapshot), CRC. Leaves {@code h} in native byte order.
     */
    int checkHeader(ByteBuffer h, int got, boolean mapped) throws StorageFileException {
        byte[] magic = Arrays.copyOf(h.array(), Math.min(got, MAGIC.length));
        if (!Arrays.equals(magic, Arrays.copyOf(MAGIC, magic.length))) {
            throw fail(Reason.NOT_A_SNAPSHOT, "it does not start with the bulkdata snapshot magic");
        }
        if (got < HEADER_BYTES) {
            throw fail(Reason.TRUNCATED, "it ends after " + got + " bytes, inside the " + HEADER_BYTES
                    + "-byte header");
        }
        byte order = h.get(AT_ORDER);
        if (order != 'L' && order != 'B') {
            throw fail(Reason.MALFORMED, "byte order mark 0x" + Integer.toHexString(order & 0xFF)
                    + " is neither 'L' nor 'B'");
        }
        if (order != ORDER_NATIVE) {
            throw fail(Reason.BYTE_ORDER, "it was written on a " + (order == 'L' ? "little" : "big")
                    + "-endian machine and this one is " + ByteOrder.nativeOrder()
                    + "; its blocks hold numbers in the other byte order");
        }
        h.order(ByteOrder.nativeOrder());
        int formatVersion = h.getInt(AT_FORMAT_VERSION);
        if (formatVersion > FORMAT_VERSION || formatVersion < 0) {
            throw fail(Reason.NEWER_VERSION, "format version " + Integer.toUnsignedString(formatVersion)
                    + " is newer than this library's " + FORMAT_VERSION);
        }
        if (formatVersion == 0) {
            throw fail(Reason.MALFORMED, "format version 0 does not exist");
        }
        int flags = h.getInt(AT_FLAGS);
        if (!mapped && (flags == FLAG_MAPPED || flags == (FLAG_MAPPED | FLAG_BLOCK_CRCS))) {
            throw fail(Reason.KIND_MISMATCH, "it is the file of a mapped table, not a snapshot: open it with the"
                    + " table builder's mapped(path)");
        }
        if (mapped && flags == 0) {
            throw fail(Reason.KIND_MISMATCH, "it is a snapshot, not the file of a mapped table: load it with"
                    + " Snapshots.load");
        }
        if (mapped ? flags != FLAG_MAPPED && flags != (FLAG_MAPPED | FLAG_BLOCK_CRCS) : flags != 0) {
            throw fail(Reason.NEWER_VERSION, "it needs features (flags 0x" + Integer.toHexString(flags)
                    + ") that format version " + FORMAT_VERSION + " does not know");
        }
        int stored = h.getInt(AT_HEADER_CRC);
        h.putInt(AT_HEADER_CRC, 0);
        if (crc32c(h.array(), 0, HEADER_BYTES) != stored) {
            throw fail(Reason.CHECKSUM, "the header's CRC32C does not match its bytes");
        }
        return formatVersion;
    }

    /** Reads and checks a snapshot's header against itself and {@code fileSize} (-1: unknown). */
    Header header(long fileSize) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
        int got = readSome(h);
        int formatVersion = checkHeader(h, got, false);
        byte kind = h.get(AT_KIND);
        long metaLength = h.getLong(AT_META_LENGTH);
        long blocksOffset = h.getLong(AT_BLOCKS_OFFSET);
        long blockCount = Integer.toUnsignedLong(h.getInt(AT_BLOCK_COUNT));
        long fileLength = h.getLong(AT_FILE_LENGTH);
        if (kind != KIND_BULK && kind != KIND_PACKED && (kind != KIND_COMPONENTS || formatVersion < 2)) {
            throw fail(Reason.MALFORMED, "table kind " + kind + " is not 1 (BulkTable), 2 (PackedTable) or, from"
                    + " format version 2, 3 (ComponentTable)");
        }
        if (h.getInt(AT_BLOCK_STRIDE) != BLOCK_STRIDE) {
            throw fail(Reason.MALFORMED, "block stride " + h.getInt(AT_BLOCK_STRIDE) + " is not " + BLOCK_STRIDE);
        }
        if (metaLength < (kind == KIND_COMPONENTS ? FIXED_COMPONENT_METADATA : FIXED_METADATA)
                || metaLength > Integer.MAX_VALUE - 16
                || blocksOffset != alignUp(HEADER_BYTES + metaLength) || blockCount > Integer.MAX_VALUE
                || fileLength != blocksOffset + blockCount * BLOCK_STRIDE + 4 * blockCount + 4) {
            throw fail(Reason.MALFORMED, "its header's lengths do not add up (metadata " + metaLength
                    + " bytes, blocks at " + blocksOffset + ", " + blockCount + " blocks, file length "
                    + fileLength + ")");
        }
        if (fileSize >= 0 && fileSize < fileLength) {
            throw fail(Reason.TRUNCATED, "it is " + fileSize + " bytes long, its header says " + fileLength);
        }
        if (fileSize > fileLength) {
            throw fail(Reason.MALFORMED, "it is " + fileSize + " bytes long, " + (fileSize - fileLength)
                    + " more than its header says");
        }
        return new Header(formatVersion, kind, metaLength, blocksOffset, (int) blockCount, h.getInt(AT_META_CRC));
    }

    /** Reads as many bytes as the buffer holds or the channel has; returns how many. */
    int readSome(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                break;
            }
        }
        return b.position();
    }

    /**
     * Reads the header's {@code metaLength} bytes of metadata and checks their CRC32C; from a stream of unknown length
     * the buffer grows with what arrives, so a length field never makes it allocate more than it received.
     */
    ByteBuffer metadataBytes(Header header, boolean lengthChecked) throws IOException {
        int length = (int) header.metaLength();
        ByteBuffer b = ByteBuffer.allocate(lengthChecked ? length : Math.min(length, READ_AHEAD));
        while (true) {
            readSome(b);
            if (b.position() == length) {
                break;
            }
            if (b.hasRemaining()) {
                throw fail(Reason.TRUNCATED, "it ends inside the metadata");
            }
            ByteBuffer grown = ByteBuffer.allocate((int) Math.min(length, 2L * b.capacity()));
            b.flip();
            grown.put(b);
            b = grown;
        }
        if (crc32c(b.array(), 0, length) != header.metaCrc()) {
            throw fail(Reason.CHECKSUM, "the metadata's CRC32C does not match its bytes");
        }
        b.flip();
        return b.order(ByteOrder.nativeOrder());
    }

    void skip(long n) throws IOException {
        ByteBuffer pad = ByteBuffer.allocate((int) n);
        if (readSome(pad) < n) {
            throw fail(Reason.TRUNCATED, "it ends before its blocks");
        }
    }

    /** Reads every block into a block the table allocates, in batches allocated at once, checking each one's CRC32C. */
    void blocks(Schema schema, int count, BlockArena arena, IntFunction<MemorySegment> restoreBlock)
            throws IOException {
        blocks(schema, count, new BlockSink() {
            @Override
            public void ahead(int first, int n) {
                arena.allocateAhead(schema, schema.name(), first, n);
            }

            @Override
            public MemorySegment block(int b) {
                return restoreBlock.apply(b);
            }
        });
    }

    /** Where {@link #blocks(Schema, int, BlockSink)} reads the blocks into, batch by batch. */
    interface BlockSink {
        /** Blocks {@code [first, first + n)} are read next. */
        void ahead(int first, int n);

        /** {@return the segment block {@code b} is read into} */
        MemorySegment block(int b);

        /** Blocks {@code [first, first + n)} were read (their checksums are checked after the last). */
        default void read(int first, int n) {
        }
    }

    /** Reads every block into the segment {@code sink} gives, in batches, checking each CRC32C once all are read. */
    void blocks(Schema schema, int count, BlockSink sink) throws IOException {
        int blockBytes = schema.blockBytes();
        MemorySegment[] segments = new MemorySegment[count];
        int pad = BLOCK_STRIDE - blockBytes;
        ByteBuffer padSink = ByteBuffer.allocateDirect(Math.max(pad, 1));
        int[] crcs = new int[Math.min(count, READ_BATCH)];
        CRC32C crc = new CRC32C();
        for (int first = 0; first < count; first += READ_BATCH) {
            int n = Math.min(READ_BATCH, count - first);
            sink.ahead(first, n);
            ByteBuffer[] parts = new ByteBuffer[n * (pad > 0 ? 2 : 1)];
            int p = 0;
            for (int b = first; b < first + n; b++) {
                segments[b] = sink.block(b);
                parts[p++] = segments[b].asByteBuffer();
                if (pad > 0) {
                    parts[p++] = padSink.duplicate().limit(pad);
                }
            }
            readFully(parts);
            if (crcs.length < first + n) {
                crcs = Arrays.copyOf(crcs, Math.max(first + n, Math.min(count, 2 * crcs.length)));
            }
            for (int b = first; b < first + n; b++) {
                crc.reset();
                crc.update(segments[b].asByteBuffer());
                crcs[b] = (int) crc.getValue();
            }
            sink.read(first, n);
        }
        ByteBuffer trailer = ByteBuffer.allocate(4 * count + 4);
        if (readSome(trailer) < trailer.capacity()) {
            throw fail(Reason.TRUNCATED, "it ends inside the block checksums");
        }
        trailer.order(ByteOrder.nativeOrder());
        if (crc32c(trailer.array(), 0, 4 * count) != trailer.getInt(4 * count)) {
            throw fail(Reason.CHECKSUM, "the CRC32C of the block checksums does not match them");
        }
        for (int b = 0; b < count; b++) {
            if (trailer.getInt(4 * b) != crcs[b]) {
                throw fail(Reason.CHECKSUM, "block " + b + "'s CRC32C does not match its bytes");
            }
        }
    }

    private void readFully(ByteBuffer[] parts) throws IOException {
        int first = 0;
        while (first < parts.length) {
            long got = in instanceof ScatteringByteChannel scattering
                    ? scattering.read(parts, first, Math.min(1024, parts.length - first))
                    : in.read(parts[first]);
            if (got < 0) {
                throw fail(Reason.TRUNCATED, "it ends inside its blocks");
            }
            while (first < parts.length && !parts[first].hasRemaining()) {
                first++;
            }
        }
    }
}
