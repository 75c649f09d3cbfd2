package dev.bulkdata.storage;

import dev.bulkdata.storage.SnapshotException.Reason;
import dev.bulkdata.storage.internal.BlockArena;
import dev.bulkdata.storage.internal.TagLease;
import dev.bulkdata.storage.internal.TagRegistry;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The snapshot file format's writer and reader: a 64-byte header, the metadata (identity, tag,
 * handle layout, counters, schema, meta words), the blocks at 16 KiB-aligned offsets, a CRC32C
 * per block. The bytes, what a reader checks and the compatibility rule are specified in
 * {@code docs/format.md} (sections 3 to 10 and 13), which {@code FileFormatSpecTest} holds
 * against what this class writes: a change here is a change there.
 */
final class SnapshotFormat {
    static final byte[] MAGIC = {(byte) 0x89, 'B', 'U', 'L', 'K', '\r', '\n', 0x1A};
    static final int VERSION = 2;
    static final int HEADER_BYTES = 64;
    static final int BLOCK_STRIDE = Schema.BLOCK_BYTES;
    static final byte KIND_BULK = 1;
    static final byte KIND_PACKED = 2;
    static final byte KIND_COMPONENTS = 3;
    /** The reuse orders by their code in the file (a PackedTable writes 0). */
    static final java.util.List<ReuseOrder> REUSE_CODES = java.util.List.of(ReuseOrder.FIFO, ReuseOrder.LIFO, ReuseOrder.SWEEP);

    static final int AT_ORDER = 8;
    static final int AT_KIND = 9;
    static final int AT_VERSION = 12;
    static final int AT_FLAGS = 16;
    static final int AT_HEADER_CRC = 20;
    static final int AT_META_LENGTH = 24;
    static final int AT_BLOCKS_OFFSET = 32;
    static final int AT_BLOCK_COUNT = 40;
    static final int AT_BLOCK_STRIDE = 44;
    static final int AT_META_CRC = 48;
    static final int AT_FILE_LENGTH = 56;
    /** The required flag of a mapped table's file ({@link MappedFormat}): its own layout after the header. */
    static final int FLAG_MAPPED = 1;
    /**
     * The required flag of a mapped table's file whose metadata holds a CRC32C per block
     * ({@link MappedFormat}): a reader that does not keep them must not open it.
     */
    static final int FLAG_BLOCK_CRCS = 2;

    /** Metadata bytes before the schema. */
    static final int FIXED_METADATA = 8 + 2 + 1 + 1 + 1 + 1 + 2 + 10 * 4;
    /** Metadata bytes before the schema, in a component table's snapshot. */
    static final int FIXED_COMPONENT_METADATA = 8 + 2 + 1 + 1 + 1 + 1 + 2 + 2 * 4;

    private static final byte ORDER_NATIVE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (byte) 'L' : (byte) 'B';
    /**
     * Blocks allocated (in one allocation), read and checksummed per batch (256 KiB): small
     * enough that a batch is still in the core's cache when its checksums are computed (zeroing,
     * reading and summing touch it three times) and that the C allocator reuses the memory of
     * freed batches (one allocation of a whole large table gets fresh pages from the kernel each
     * time, whose first touch costs more than the zeroing), and a stream that ends early costs
     * at most this many allocated blocks.
     */
    private static final int READ_BATCH = 16;
    /** The most metadata bytes read ahead of what arrived, from a stream of unknown length. */
    private static final int READ_AHEAD = 1 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(BLOCK_STRIDE).asReadOnlyBuffer();

    private SnapshotFormat() {
    }

    // ---------------------------------------------------------------------------------------
    // Writing

    /** Writes a snapshot of {@code table}; the caller holds its iteration guard. */
    static void write(AbstractTable table, WritableByteChannel out) throws IOException {
        table.index.writeLinks();   // the free list's saved form: links in the free records (a BulkTable's)
        ByteBuffer meta = metadata(table, 0);
        meta.flip();
        writeFile(table instanceof PackedTableImpl ? KIND_PACKED : KIND_BULK, meta, table.segments, table.blockCount(),
                table.schema.blockBytes(), out);
    }

    /** Writes a snapshot of a component table (its entity table's identity, its rows and owners). */
    static void write(ComponentTable table, WritableByteChannel out) throws IOException {
        AbstractTable entities = table.entities;
        Schema schema = table.schema();
        int rows = table.set.size();
        long metaLength = FIXED_COMPONENT_METADATA + schemaBytes(schema) + 8L * rows;
        ByteBuffer meta = ByteBuffer.allocate(Math.toIntExact(metaLength)).order(ByteOrder.nativeOrder());
        meta.putLong(entities.lease.identity).putShort((short) entities.index.tag())
                .put((byte) entities.handles.indexBits()).put((byte) entities.handles.generationBits())
                .put((byte) 0).put((byte) schema.layout().ordinal()).putShort((short) 0)
                .putInt(rows).putInt(0);
        putSchema(meta, schema);
        for (int row = 0; row < rows; row++) {
            meta.putInt(table.set.keyAtUnchecked(row));
        }
        for (int row = 0; row < rows; row++) {
            meta.putInt(table.generation(row));
        }
        meta.flip();
        writeFile(KIND_COMPONENTS, meta, table.rows.segments(), table.rows.blockCount(), schema.blockBytes(), out);
    }

    private static long schemaBytes(Schema schema) {
        long bytes = 2L + schema.name().getBytes(StandardCharsets.UTF_8).length + 2 + 12;
        for (Field f : schema.fields()) {
            bytes += 2 + f.name().length() + 8;
            if (f instanceof HandleField h) {
                bytes += 1 + h.target().length();
            }
        }
        return bytes;
    }

    private static void putSchema(ByteBuffer meta, Schema schema) {
        byte[] name = schema.name().getBytes(StandardCharsets.UTF_8);
        meta.putShort((short) name.length).put(name).putShort((short) schema.fields().size());
        for (Field f : schema.fields()) {
            meta.put((byte) f.type().ordinal()).put((byte) f.name().length())
                    .put(f.name().getBytes(StandardCharsets.US_ASCII));
            if (f instanceof HandleField h) {
                meta.put((byte) h.target().length()).put(h.target().getBytes(StandardCharsets.US_ASCII));
            }
            meta.putInt(f.blockOffset).putInt(f.slotStride);
        }
        meta.putInt(schema.slotBytes()).putInt(schema.slotsPerBlock()).putInt(schema.blockBytes());
    }

    /** Writes header, metadata, padding, blocks and trailer. */
    private static void writeFile(byte kind, ByteBuffer meta, MemorySegment[] segments, int blocks, int blockBytes,
                                  WritableByteChannel out) throws IOException {
        long metaLength = meta.limit();
        int pad = BLOCK_STRIDE - blockBytes;
        long blocksOffset = alignUp(HEADER_BYTES + metaLength);
        long fileLength = blocksOffset + (long) blocks * BLOCK_STRIDE + 4L * blocks + 4;

        ByteBuffer trailer = ByteBuffer.allocate(4 * blocks + 4).order(ByteOrder.nativeOrder());
        ByteBuffer[] parts = new ByteBuffer[3 + blocks * (pad > 0 ? 2 : 1) + 1];
        int n = 0;
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.nativeOrder());
        parts[n++] = header;
        parts[n++] = meta;
        parts[n++] = zeros((int) (blocksOffset - HEADER_BYTES - metaLength));
        CRC32C crc = new CRC32C();
        for (int b = 0; b < blocks; b++) {
            ByteBuffer block = segments[b].asByteBuffer();
            crc.reset();
            crc.update(block.duplicate());
            trailer.putInt((int) crc.getValue());
            parts[n++] = block;
            if (pad > 0) {
                parts[n++] = zeros(pad);
            }
        }
        trailer.putInt(crc32c(trailer.array(), 0, 4 * blocks));
        trailer.flip();
        parts[n++] = trailer;

        startHeader(header, kind, 0, metaLength, blocks, crc32c(meta.array(), 0, meta.limit()))
                .putLong(AT_BLOCKS_OFFSET, blocksOffset).putLong(AT_FILE_LENGTH, fileLength);
        sealHeader(header);
        writeFully(out, parts, n);
    }

    /**
     * Writes the fields every header shares (magic, byte order, kind, version, flags, metadata
     * length and CRC, block count and stride) into a 64-byte buffer in native order.
     */
    static ByteBuffer startHeader(ByteBuffer header, byte kind, int flags, long metaLength, int blocks,
                                  int metaCrc) {
        return header.put(0, MAGIC).put(AT_ORDER, ORDER_NATIVE)
                .put(AT_KIND, kind)
                .putInt(AT_VERSION, VERSION).putInt(AT_FLAGS, flags)
                .putLong(AT_META_LENGTH, metaLength).putInt(AT_BLOCK_COUNT, blocks)
                .putInt(AT_BLOCK_STRIDE, BLOCK_STRIDE).putInt(AT_META_CRC, metaCrc);
    }

    /** Sets the header's CRC32C (of its 64 bytes with the CRC field 0) and rewinds it for writing. */
    static void sealHeader(ByteBuffer header) {
        header.putInt(AT_HEADER_CRC, 0).putInt(AT_HEADER_CRC, crc32c(header.array(), 0, HEADER_BYTES));
        header.clear();
    }

    /**
     * Writes the metadata section of a table into a heap buffer of its length plus
     * {@code extra} bytes, left positioned after the metadata for the caller's additions (a
     * mapped table's sections, {@link MappedFormat}).
     */
    static ByteBuffer metadata(AbstractTable table, int extra) {
        boolean packed = table instanceof PackedTableImpl;
        SlotIndex index = table.index;
        if (packed) {
            index.writeLinks();     // a PackedTable's free list is saved in the payloads below
        }
        Schema schema = table.schema;
        int limit = index.limit;
        int entries = limit > 0 ? limit + 1 : index.savedMeta(1) != 0 ? 2 : 0;
        int size = table.size;
        long metaLength = FIXED_METADATA + schemaBytes(schema) + 4L * entries + (packed ? 4L * entries + 4L * size : 0);
        ByteBuffer meta = ByteBuffer.allocate(Math.toIntExact(metaLength + extra)).order(ByteOrder.nativeOrder());
        meta.putLong(table.lease.identity).putShort((short) index.tag())
                .put((byte) table.handles.indexBits()).put((byte) table.handles.generationBits())
                .put((byte) (table instanceof BulkTable b ? REUSE_CODES.indexOf(b.reuseOrder()) : 0))
                .put((byte) schema.layout().ordinal()).putShort((short) 0)
                .putInt(index.maxSlot).putInt(index.floor).putInt(limit).putInt(size).putInt(index.retired)
                .putInt(index.listLength()).putInt(index.tail()).putInt(entries)
                .putInt(index.savedSweep()).putInt(index.reopen.end);
        putSchema(meta, schema);
        java.nio.IntBuffer ints = meta.slice().order(ByteOrder.nativeOrder()).asIntBuffer();
        index.putSaved(ints, entries, false);
        if (packed) {
            index.putSaved(ints, entries, true);
            ((PackedTableImpl) table).putSlotsOfRows(ints);
        }
        return meta.position(meta.position() + 4 * ints.position());
    }

    private static ByteBuffer zeros(int bytes) {
        return ZEROS.duplicate().limit(bytes);
    }

    static long alignUp(long offset) {
        return (offset + BLOCK_STRIDE - 1) & -(long) BLOCK_STRIDE;
    }

    static int crc32c(byte[] bytes, int from, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, from, length);
        return (int) crc.getValue();
    }

    private static void writeFully(WritableByteChannel out, ByteBuffer[] parts, int count) throws IOException {
        if (out instanceof GatheringByteChannel gathering) {
            int first = 0;
            while (first < count) {
                gathering.write(parts, first, Math.min(1024, count - first));
                while (first < count && !parts[first].hasRemaining()) {
                    first++;
                }
            }
        } else {
            for (int i = 0; i < count; i++) {
                while (parts[i].hasRemaining()) {
                    out.write(parts[i]);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reading

    /** What the header says, checked against itself and the file size. */
    record Header(int version, byte kind, long metaLength, long blocksOffset, int blockCount, int metaCrc) {
    }

    /** The metadata, parsed and checked on its own. */
    record Metadata(long identity, int tag, HandleLayout handles, ReuseOrder reuse, Schema schema,
                            int maxCapacity, int floor, int limit, int size, int retired, int freeLength,
                            int freeTail, int sweep, int sweepEnd, int swept, SlotIndex.SavedMetas metas, long[] liveWords,
                            int[] payloads, int[] backLinks, int peak) {
    }

    /**
     * Reads a snapshot.
     *
     * @param fileSize the source's size in bytes, or -1 for a stream of unknown length
     * @param expected the schema the caller expects, or null to take the file's
     * @param kind the kind the caller expects ({@link #KIND_BULK}, {@link #KIND_PACKED}) or 0 for either
     */
    static AbstractTable read(ReadableByteChannel in, long fileSize, String source, Schema expected, int kind,
                              boolean newTag) throws IOException {
        Reader r = new Reader(in, source);
        Header header = r.header(fileSize);
        if (kind != 0 && header.kind != kind || header.kind == KIND_COMPONENTS) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + kindName(header.kind) + ", not a "
                    + (kind == 0 ? "BulkTable or PackedTable" : kindName(kind))
                    + (header.kind == KIND_COMPONENTS ? "; load it with Snapshots.loadComponents" : ""));
        }
        Metadata m = r.metadata(r.metadataBytes(header, fileSize >= 0), header, expected, false);
        r.skip(header.blocksOffset - HEADER_BYTES - header.metaLength);
        TagLease lease = lease(r, m, newTag, "; close that table, or load this one with LoadOption.NEW_TAG");
        int generationShift = newTag ? lease.floor - m.floor : 0;
        AbstractTable table = header.kind == KIND_BULK
                ? new BulkTableImpl(m.schema, m.reuse, m.handles, m.maxCapacity, lease)
                : new PackedTableImpl(m.schema, m.handles, m.maxCapacity, lease);
        try {
            r.blocks(m.schema, header.blockCount, table.arena, table instanceof BulkTableImpl bulk
                    ? bulk::restoreBlock : ((PackedTableImpl) table)::restoreBlock);
            restore(r, table, m, generationShift);
            if (newTag) {
                table.savedIdentity = m.identity;
                table.savedTag = m.tag;
                table.generationShift = generationShift;
            }
            return table;
        } catch (Throwable t) {
            table.close();
            throw t;
        }
    }

    static String kindName(int kind) {
        return kind == KIND_BULK ? "BulkTable" : kind == KIND_PACKED ? "PackedTable"
                : kind == KIND_COMPONENTS ? "ComponentTable" : "table of kind " + kind;
    }

    /** A component table's metadata, parsed and checked against its entity table. */
    private record ComponentMetadata(Schema schema, int[] keys, int[] owners) {
    }

    /**
     * Reads a component table's snapshot for {@code entities}, which must be the entity table
     * it was saved with (or a snapshot of it, loaded) at the same point or later.
     */
    static ComponentTable readComponents(ReadableByteChannel in, long fileSize, String source, AbstractTable entities,
                                         Schema expected) throws IOException {
        Reader r = new Reader(in, source);
        Header header = r.header(fileSize);
        if (header.kind != KIND_COMPONENTS) {
            throw r.fail(Reason.KIND_MISMATCH, "it holds a " + kindName(header.kind)
                    + ", not a ComponentTable; load it with Snapshots.load");
        }
        ComponentMetadata m = r.componentMetadata(r.metadataBytes(header, fileSize >= 0), header, expected, entities);
        r.skip(header.blocksOffset - HEADER_BYTES - header.metaLength);
        ComponentTable table = new ComponentTable(entities, m.schema);
        try {
            r.blocks(m.schema, header.blockCount, table.arena, table::restoreBlock);
            table.restoreRows(m.keys, m.owners);
            return table;
        } catch (Throwable t) {
            table.close();
            throw t;
        }
    }

    /**
     * Registers the tag of a table being restored: its own, or with {@code newTag} a new
     * automatic one whose floor may exceed the file's (every slot then moves up by the difference).
     */
    static TagLease lease(Reader r, Metadata m, boolean newTag, String hint) throws SnapshotException {
        try {
            if (newTag) {
                int top = m.floor;
                for (int slot = 1; slot < m.metas.length; slot++) {
                    if (!SlotMeta.isRetired(m.metas.get(slot))) {
                        top = Math.max(top, SlotMeta.generation(m.metas.get(slot)));
                    }
                }
                return TagRegistry.registerRenamed(m.schema.name(), m.handles, m.floor,
                        m.floor + m.handles.maxGeneration() - top);
            }
            return TagRegistry.registerRestored(m.schema.name(), m.handles, m.tag, m.identity, m.floor);
        } catch (TagRegistry.TagConflict e) {
            throw r.fail(Reason.TAG_CONFLICT, "table '" + m.schema.name() + "' cannot be loaded under its tag: "
                    + e.getMessage() + hint);
        }
    }

    /** Checks the blocks against the metadata, then restores the index and the records. */
    static void restore(Reader r, AbstractTable table, Metadata m, int shift) throws SnapshotException {
        Schema schema = m.schema;
        int spb = schema.slotsPerBlock();
        int blocks = table.blockCount();
        MemorySegment[] segments = table.segments;
        int[] list;
        if (table instanceof BulkTableImpl) {
            // Free list: in the link words of the dead records, the header's in slot 0.
            IntField link = schema.link();
            int slotShift = Integer.numberOfTrailingZeros(spb);
            list = walkFreeList(r, m, slot -> link.get(segments[slot >>> slotShift], slot & (spb - 1)));
            // A dead slot may keep a removed record's bytes (an add zeroes a reused record), but
            // a slot never opened must read zero, since an add hands it out as it is: make it so.
            for (long slot = m.limit, end = (long) blocks * spb; slot < end; slot++) {
                schema.wipe(segments[(int) (slot / spb)], (int) (slot % spb));
            }
        } else {
            // Free list: in the payloads; rows past the last may keep removed records' bytes
            // (DenseRows zeroes them on reuse).
            list = walkFreeList(r, m, slot -> m.payloads[slot]);
        }
        SlotIndex index = table.index;
        index.restore(m.limit, m.retired, list, m.sweep, m.sweepEnd, m.swept);
        SlotIndex.SavedMetas metas = m.metas;
        int peak = m.peak;
        if (shift > 0) {
            for (int slot = 1; slot < metas.length; slot++) {
                int meta = metas.get(slot);
                if (!SlotMeta.isRetired(meta) && (meta != 0 || slot < m.limit)) {
                    meta = (meta & SlotMeta.LIVE) | SlotMeta.free(SlotMeta.generation(meta) + shift);
                    metas.set(slot, meta);
                    peak = Math.max(peak, SlotMeta.generation(meta));
                }
            }
        }
        index.restoreEntries(metas, m.payloads);
        if (table instanceof BulkTableImpl bulk) {
            bulk.restoreLive(m.liveWords);
        } else {
            ((PackedTableImpl) table).restoreRows(m.size, m.backLinks);
        }
        if (peak >= 0) {
            table.lease.issued(peak, m.metas.length - 1);
        }
    }

    /**
     * Checks the free list from the header's link: {@code freeLength} distinct free slots
     * outside the sweep, ending at the tail, then back at the header (an empty list's header
     * link is not read: a clear leaves it as it was).
     *
     * @return the list's slots, head to tail
     */
    private static int[] walkFreeList(Reader r, Metadata m, java.util.function.IntUnaryOperator link)
            throws SnapshotException {
        if (m.limit == 0 || m.freeLength == 0) {
            return new int[0];
        }
        int[] list = new int[m.freeLength];
        boolean[] seen = new boolean[m.limit];
        int slot = link.applyAsInt(0);
        for (int i = 0; i < m.freeLength; i++) {
            list[i] = slot;
            if (slot <= 0 || slot >= m.limit || seen[slot] || !isFree(m.metas.get(slot))
                    || (slot >= m.sweep && slot < m.sweepEnd)) {
                throw r.fail(Reason.MALFORMED, "free-list link " + i + " names slot " + slot
                        + ", which is not a free slot it has not named before");
            }
            seen[slot] = true;
            if (i == m.freeLength - 1 && slot != m.freeTail) {
                throw r.fail(Reason.MALFORMED, "the free list ends at slot " + slot + ", not at its tail " + m.freeTail);
            }
            slot = link.applyAsInt(slot);
        }
        if (slot != 0) {
            throw r.fail(Reason.MALFORMED, "the free list does not return to the header after " + m.freeLength
                    + " slots");
        }
        return list;
    }

    private static boolean isFree(int meta) {
        return (meta & (SlotMeta.LIVE | SlotMeta.RETIRED)) == 0;
    }

    /** Reads one snapshot from a channel, failing with the source's name. */
    static final class Reader {
        private final ReadableByteChannel in;
        private final String source;

        Reader(ReadableByteChannel in, String source) {
            this.in = in;
            this.source = source;
        }

        String source() {
            return source;
        }

        SnapshotException fail(Reason reason, String what) {
            return new SnapshotException(source, reason, what);
        }

        /**
         * Checks what every header shares, in this order: magic, length, byte order, version,
         * flags ({@link #FLAG_MAPPED}, and optionally {@link #FLAG_BLOCK_CRCS}, for a mapped
         * table's file, none for a snapshot),
         * CRC. Leaves {@code h} in native byte order.
         *
         * @return the format version
         */
        int checkHeader(ByteBuffer h, int got, boolean mapped) throws SnapshotException {
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
            int version = h.getInt(AT_VERSION);
            if (version > VERSION || version < 0) {
                throw fail(Reason.NEWER_VERSION, "format version " + Integer.toUnsignedString(version)
                        + " is newer than this library's " + VERSION);
            }
            if (version == 0) {
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
                        + ") that format version " + VERSION + " does not know");
            }
            int stored = h.getInt(AT_HEADER_CRC);
            h.putInt(AT_HEADER_CRC, 0);
            if (crc32c(h.array(), 0, HEADER_BYTES) != stored) {
                throw fail(Reason.CHECKSUM, "the header's CRC32C does not match its bytes");
            }
            return version;
        }

        Header header(long fileSize) throws IOException {
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
            int got = readSome(h);
            int version = checkHeader(h, got, false);
            byte kind = h.get(AT_KIND);
            long metaLength = h.getLong(AT_META_LENGTH);
            long blocksOffset = h.getLong(AT_BLOCKS_OFFSET);
            long blockCount = Integer.toUnsignedLong(h.getInt(AT_BLOCK_COUNT));
            long fileLength = h.getLong(AT_FILE_LENGTH);
            if (kind != KIND_BULK && kind != KIND_PACKED && (kind != KIND_COMPONENTS || version < 2)) {
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
            return new Header(version, kind, metaLength, blocksOffset, (int) blockCount, h.getInt(AT_META_CRC));
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
         * Reads the header's {@code metaLength} bytes of metadata and checks their CRC32C; from a
         * stream of unknown length the buffer grows with what arrives, so a length field can
         * never make it allocate more than it received.
         */
        ByteBuffer metadataBytes(Header header, boolean lengthChecked) throws IOException {
            int length = (int) header.metaLength;
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
            if (crc32c(b.array(), 0, length) != header.metaCrc) {
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

        /** Parses the metadata; with {@code more}, the buffer may go on past it (a mapped table's sections). */
        Metadata metadata(ByteBuffer b, Header header, Schema expected, boolean more) throws SnapshotException {
            try {
                return parse(b, header, expected, more);
            } catch (BufferUnderflowException e) {
                throw fail(Reason.MALFORMED, "the metadata ends before the sections it announces");
            }
        }

        private Metadata parse(ByteBuffer b, Header header, Schema expected, boolean more) throws SnapshotException {
            long identity = b.getLong();
            int tag = Short.toUnsignedInt(b.getShort());
            int indexBits = b.get();
            int generationBits = b.get();
            int reuseCode = b.get();
            int layoutCode = b.get();
            b.getShort();
            int maxCapacity = b.getInt();
            int floor = b.getInt();
            int limit = b.getInt();
            int size = b.getInt();
            int retired = b.getInt();
            int freeLength = b.getInt();
            int freeTail = b.getInt();
            int entries = b.getInt();
            int sweep = b.getInt();
            int sweepEnd = b.getInt();
            if (tag < 1 || tag > HandleLayout.MAX_TAG) {
                throw fail(Reason.MALFORMED, "tag " + tag + " is outside [1, " + HandleLayout.MAX_TAG + "]");
            }
            HandleLayout handles;
            try {
                handles = HandleLayout.of(indexBits, generationBits);
            } catch (IllegalArgumentException e) {
                throw fail(Reason.MALFORMED, "handle layout: " + e.getMessage());
            }
            if (reuseCode < 0 || reuseCode >= REUSE_CODES.size() || layoutCode < 0 || layoutCode > 1) {
                throw fail(Reason.MALFORMED, "reuse order " + reuseCode + " or layout " + layoutCode + " is unknown");
            }
            if (header.kind != KIND_BULK && reuseCode != 0) {
                throw fail(Reason.MALFORMED, "a " + kindName(header.kind) + " reuses its slots in FIFO order (code 0);"
                        + " the file says " + REUSE_CODES.get(reuseCode));
            }
            boolean sweepOrder = REUSE_CODES.get(reuseCode) == ReuseOrder.SWEEP;
            if (sweepOrder && (sweepEnd != 0 || sweep < 1 || sweep > Math.max(1, limit))) {
                throw fail(Reason.MALFORMED, "a table that reuses in SWEEP order lists every free slot and saves where"
                        + " the next add looks first, a slot in [1, limit]; the file has " + sweep + " and " + sweepEnd
                        + " (limit " + limit + ")");
            }
            Schema schema = schema(b, Layout.values()[layoutCode], header.version, expected);
            int maxSlot = Math.min(handles.maxIndex(), maxCapacity);
            if (maxCapacity < 1 || floor < 0 || floor > handles.maxGeneration() || limit < 0
                    || limit > maxSlot + 1L || entries != (limit > 0 ? limit + 1 : entries == 2 ? 2 : 0)) {
                throw fail(Reason.MALFORMED, "max capacity " + maxCapacity + ", floor " + floor + ", limit " + limit
                        + " or entry count " + entries + " is out of range for " + handles);
            }
            long need = 4L * entries + (header.kind == KIND_PACKED ? 4L * entries + 4L * Math.max(0, size) : 0);
            if (size < 0 || size > Math.max(0, limit - 1) || (more ? b.remaining() < need : b.remaining() != need)) {
                throw fail(Reason.MALFORMED, "size " + size + " or the slot sections (" + b.remaining()
                        + " bytes, expected " + need + ") do not fit limit " + limit);
            }
            SlotIndex.SavedMetas metas = new SlotIndex.SavedMetas(entries);
            java.nio.IntBuffer metaWords = b.asIntBuffer();
            b.position(b.position() + 4 * entries);
            if (!sweepOrder && !(sweep == 0 && sweepEnd == 0) && !(sweep >= 1 && sweep <= sweepEnd && sweepEnd <= limit)) {
                throw fail(Reason.MALFORMED, "sweep [" + sweep + ", " + sweepEnd + ") is not a range of opened slots"
                        + " (limit " + limit + ")");
            }
            // One pass, page by page: each page of meta words is copied, checked by a tight loop
            // and (BulkTable) turned into live words while it is in cache (a large mapped table's
            // open is mostly this loop); then slot 0, the entry past limit and the sweep on their own.
            int spb = schema.slotsPerBlock();
            int opened = Math.min(limit, entries);
            int step = BulkTableImpl.liveStep(spb);
            long[] liveWords = new long[header.kind == KIND_BULK ? (opened + step - 1) / step : 0];
            int live = 0;
            int retiredSlots = 0;
            int peak = -1;
            int maxGeneration = handles.maxGeneration();
            int allowed = SlotMeta.LIVE | SlotMeta.RETIRED | SlotMeta.free(SlotMeta.GENERATION_MASK);
            for (int p = 0; p < metas.pages.length; p++) {
                int[] page = metas.copyPage(p, metaWords);
                int base = p << SlotIndex.PAGE_SHIFT;
                if (base >= opened) {
                    continue;
                }
                int from = p == 0 ? 1 : 0;
                int end = Math.min(page.length, opened - base);
                // Branch-free per page: each rule turns a bad word into a negative or a non-zero
                // value, or-ed together, so that C2 can vectorise the loop; a bad page is scanned
                // again for the first bad word's message.
                int negative = 0;
                int nonZero = 0;
                int liveBefore = live;
                for (int i = from; i < end; i++) {
                    int meta = page[i];
                    int generation = SlotMeta.generation(meta);
                    int isLive = meta & SlotMeta.LIVE;
                    int isRetired = meta >>> 31;
                    negative |= (generation - floor) | (maxGeneration - generation);
                    nonZero |= (meta & ~allowed) | (isLive & isRetired) | (-isRetired & (generation ^ maxGeneration));
                    live += isLive;
                    retiredSlots += isRetired;
                    peak = Math.max(peak, generation);
                }
                if (negative < 0 || nonZero != 0) {
                    for (int i = from; i < end; i++) {
                        int meta = page[i];
                        int generation = SlotMeta.generation(meta);
                        int isRetired = meta >>> 31;
                        if (generation < floor || generation > maxGeneration || (meta & ~allowed) != 0
                                || ((meta & SlotMeta.LIVE) & isRetired) != 0
                                || (isRetired != 0 && generation != maxGeneration)) {
                            throw badMeta(base + i, meta, floor, handles);
                        }
                    }
                }
                if (liveWords.length > 0) {
                    BulkTableImpl.liveWords(page, base, end, live - liveBefore, spb, liveWords);
                }
            }
            if (entries > 0 && metas.get(0) != 0) {
                throw badMeta(0, metas.get(0), floor, handles);
            }
            for (int slot = Math.max(1, limit); slot < entries; slot++) {
                int meta = metas.get(slot);
                int generation = SlotMeta.generation(meta);
                if (meta != 0 && !(isFree(meta) && generation >= floor && generation <= maxGeneration)) {
                    throw badMeta(slot, meta, floor, handles);
                }
                if (meta != 0) {
                    peak = Math.max(peak, generation);
                }
            }
            int free = Math.max(0, limit - 1) - live - retiredSlots;
            int swept = 0;
            for (int slot = sweep; slot < sweepEnd; slot++) {
                if (SlotMeta.isLive(metas.get(slot))) {
                    throw badMeta(slot, metas.get(slot), floor, handles);
                }
                swept += isFree(metas.get(slot)) ? 1 : 0;
            }
            if (live != size || retiredSlots != retired || free != freeLength + swept
                    || (freeLength == 0 ? freeTail != 0 : freeTail <= 0 || freeTail >= limit)) {
                throw fail(Reason.MALFORMED, "the counts (size " + size + ", retired " + retired + ", free "
                        + freeLength + " linked + " + swept + " swept, tail " + freeTail + ") do not match the meta"
                        + " words (live " + live + ", retired " + retiredSlots + ", free " + free + ")");
            }
            int[] payloads = null;
            int[] backLinks = null;
            long neededBlocks;
            long maxBlocks;
            if (header.kind == KIND_PACKED) {
                payloads = new int[entries];
                b.asIntBuffer().get(payloads);
                b.position(b.position() + 4 * entries);
                backLinks = new int[size];
                b.asIntBuffer().get(backLinks);
                b.position(b.position() + 4 * size);
                for (int row = 0; row < size; row++) {
                    int slot = backLinks[row];
                    if (slot <= 0 || slot >= limit || !SlotMeta.isLive(metas.get(slot)) || payloads[slot] != row) {
                        throw fail(Reason.MALFORMED, "row " + row + " links back to slot " + slot
                                + ", which is not a live slot naming it");
                    }
                }
                neededBlocks = (size + spb - 1L) / spb;
                maxBlocks = ((long) maxSlot + spb - 1) / spb;
            } else {
                neededBlocks = limit == 0 ? 0 : (limit - 1L) / spb + 1;
                maxBlocks = maxSlot / spb + 1L;
            }
            if (header.blockCount < neededBlocks || header.blockCount > maxBlocks) {
                throw fail(Reason.MALFORMED, header.blockCount + " blocks for " + neededBlocks + " needed (at most "
                        + maxBlocks + ")");
            }
            return new Metadata(identity, tag, handles, REUSE_CODES.get(reuseCode), schema,
                    maxCapacity, floor, limit, size, retired, freeLength, freeTail, sweep, sweepEnd, swept, metas,
                    liveWords, payloads == null ? new int[0] : payloads, backLinks == null ? new int[0] : backLinks, peak);
        }

        ComponentMetadata componentMetadata(ByteBuffer b, Header header, Schema expected, AbstractTable entities)
                throws SnapshotException {
            try {
                return parseComponents(b, header, expected, entities);
            } catch (BufferUnderflowException e) {
                throw fail(Reason.MALFORMED, "the metadata ends before the sections it announces");
            }
        }

        private ComponentMetadata parseComponents(ByteBuffer b, Header header, Schema expected, AbstractTable entities)
                throws SnapshotException {
            long identity = b.getLong();
            int tag = Short.toUnsignedInt(b.getShort());
            int indexBits = b.get();
            int generationBits = b.get();
            b.get();
            int layoutCode = b.get();
            b.getShort();
            int rows = b.getInt();
            b.getInt();
            HandleLayout handles;
            try {
                handles = HandleLayout.of(indexBits, generationBits);
            } catch (IllegalArgumentException e) {
                throw fail(Reason.MALFORMED, "handle layout: " + e.getMessage());
            }
            if (layoutCode < 0 || layoutCode > 1) {
                throw fail(Reason.MALFORMED, "layout " + layoutCode + " is unknown");
            }
            Schema schema = schema(b, Layout.values()[layoutCode], header.version, expected);
            if (rows < 0 || b.remaining() != 8L * rows) {
                throw fail(Reason.MALFORMED, "row count " + rows + " does not fit the row sections (" + b.remaining()
                        + " bytes)");
            }
            int[] keys = new int[rows];
            b.asIntBuffer().get(keys);
            b.position(b.position() + 4 * rows);
            int[] owners = new int[rows];
            b.asIntBuffer().get(owners);
            int spb = schema.slotsPerBlock();
            if (header.blockCount < (rows + spb - 1L) / spb
                    || header.blockCount > ((long) entities.index.maxSlot + spb - 1) / spb) {
                throw fail(Reason.MALFORMED, header.blockCount + " blocks for " + rows + " rows");
            }
            String owner = "table '" + entities.name() + "'";
            int shift;
            if (identity == entities.lease.identity) {
                shift = 0;
            } else if (entities.savedIdentity != 0 && identity == entities.savedIdentity) {
                shift = entities.generationShift;      // the entity table was loaded under a new tag
            } else {
                throw fail(Reason.ENTITY_MISMATCH, "its components belong to the entities of another table (saved"
                        + " with tag " + tag + " and identity " + Long.toHexString(identity) + "), not to " + owner
                        + " (identity " + Long.toHexString(entities.lease.identity) + "); load them for the entity"
                        + " table they were saved with, or a snapshot of it");
            }
            if (!handles.equals(entities.handles)) {
                throw fail(Reason.ENTITY_MISMATCH, "its entity handles are " + handles + ", " + owner + "'s are "
                        + entities.handles);
            }
            SlotIndex index = entities.index;
            java.util.BitSet seen = new java.util.BitSet();
            for (int row = 0; row < rows; row++) {
                int key = keys[row];
                int generation = owners[row];
                if (key <= 0 || key > handles.maxIndex() || seen.get(key) || generation < 0
                        || generation > handles.maxGeneration()) {
                    throw fail(Reason.MALFORMED, "row " + row + "'s entity (slot " + key + ", generation "
                            + generation + ") is not a valid, distinct entity of " + handles);
                }
                seen.set(key);
                boolean ok;
                int meta = key < index.limit ? index.savedMeta(key) : 0;
                if (key >= index.limit) {
                    ok = false;
                } else if (SlotMeta.isRetired(meta)) {
                    ok = true;                                     // a retired slot is never live again
                } else {
                    generation += shift;
                    ok = generation < SlotMeta.generation(meta)
                            || generation == SlotMeta.generation(meta) && SlotMeta.isLive(meta);
                    owners[row] = generation;
                }
                if (!ok) {
                    throw fail(Reason.ENTITY_MISMATCH, "row " + row + " belongs to the entity in slot " + key
                            + " at generation " + generation + ", which " + owner + " has not reached ("
                            + (key >= index.limit ? "slot never opened" : "slot at generation "
                            + SlotMeta.generation(meta) + (SlotMeta.isLive(meta) ? ", live" : ", free"))
                            + "): the components were saved after the entity table's snapshot");
                }
            }
            return new ComponentMetadata(schema, keys, owners);
        }

        private Schema schema(ByteBuffer b, Layout layout, int version, Schema expected) throws SnapshotException {
            String name = string(b, Short.toUnsignedInt(b.getShort()), StandardCharsets.UTF_8);
            int count = Short.toUnsignedInt(b.getShort());
            if (count == 0 || count * 10L > b.remaining()) {
                throw fail(Reason.MALFORMED, "field count " + count + " does not fit the metadata");
            }
            FieldType[] types = new FieldType[count];
            String[] names = new String[count];
            int[] offsets = new int[count * 2];
            Schema.Builder builder;
            try {
                builder = Schema.builder(name).layout(layout);
                for (int i = 0; i < count; i++) {
                    int type = b.get();
                    if (type < 0 || type >= FieldType.values().length
                            || (version < 2 && type == FieldType.HANDLE.ordinal())) {
                        throw fail(Reason.MALFORMED, "field " + i + " has unknown type " + type
                                + " for format version " + version);
                    }
                    types[i] = FieldType.values()[type];
                    names[i] = string(b, Byte.toUnsignedInt(b.get()), StandardCharsets.US_ASCII);
                    if (types[i] == FieldType.HANDLE) {
                        builder.addHandle(names[i], string(b, Byte.toUnsignedInt(b.get()), StandardCharsets.US_ASCII));
                    } else {
                        builder.add(types[i], names[i]);
                    }
                    offsets[2 * i] = b.getInt();
                    offsets[2 * i + 1] = b.getInt();
                }
            } catch (IllegalArgumentException e) {
                throw fail(Reason.MALFORMED, "schema: " + e.getMessage());
            }
            int slotBytes = b.getInt();
            int slotsPerBlock = b.getInt();
            int blockBytes = b.getInt();
            Schema schema;
            try {
                schema = builder.build();
            } catch (IllegalArgumentException e) {
                throw fail(Reason.MALFORMED, "schema: " + e.getMessage());
            }
            boolean same = schema.slotBytes() == slotBytes && schema.slotsPerBlock() == slotsPerBlock
                    && schema.blockBytes() == blockBytes;
            for (int i = 0; i < count; i++) {
                Field f = schema.fields().get(i);
                same &= f.blockOffset == offsets[2 * i] && f.slotStride == offsets[2 * i + 1];
            }
            if (!same) {
                throw fail(Reason.MALFORMED, "the block layout stored for " + schema
                        + " is not the one this library computes for it");
            }
            if (expected == null) {
                return schema;
            }
            String difference = difference(expected, schema);
            if (difference != null) {
                throw fail(Reason.SCHEMA_MISMATCH, difference);
            }
            return expected;
        }

        private SnapshotException badMeta(int slot, int meta, int floor, HandleLayout handles) {
            return fail(Reason.MALFORMED, "slot " + slot + "'s meta word 0x" + Integer.toHexString(meta)
                    + " is not a valid state for floor " + floor + " and " + handles);
        }

        private String string(ByteBuffer b, int length, java.nio.charset.Charset charset) {
            byte[] bytes = new byte[length];
            b.get(bytes);
            return new String(bytes, charset);
        }

        /**
         * Reads every block into a block the table allocates, in batches (their memory allocated
         * at once by {@code arena}), checking each block's CRC32C.
         */
        void blocks(Schema schema, int count, BlockArena arena, java.util.function.IntFunction<MemorySegment> restoreBlock)
                throws IOException {
            int blockBytes = schema.blockBytes();
            MemorySegment[] segments = new MemorySegment[count];
            int pad = BLOCK_STRIDE - blockBytes;
            ByteBuffer padSink = ByteBuffer.allocateDirect(Math.max(pad, 1));
            int[] crcs = new int[Math.min(count, READ_BATCH)];
            CRC32C crc = new CRC32C();
            for (int first = 0; first < count; first += READ_BATCH) {
                int n = Math.min(READ_BATCH, count - first);
                arena.allocateAhead(schema, schema.name(), first, n);
                ByteBuffer[] parts = new ByteBuffer[n * (pad > 0 ? 2 : 1)];
                int p = 0;
                for (int b = first; b < first + n; b++) {
                    segments[b] = restoreBlock.apply(b);
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

    private static String describe(Field f) {
        return f == null ? "missing" : f.name() + ":" + f.type() + (f instanceof HandleField h ? "(" + h.target() + ")" : "");
    }

    /** {@return what differs between the expected schema and the file's, or null if nothing does} */
    static String difference(Schema expected, Schema found) {
        if (!expected.name().equals(found.name())) {
            return "it holds table '" + found.name() + "', not '" + expected.name() + "'";
        }
        if (expected.layout() != found.layout()) {
            return "its layout is " + found.layout() + ", not " + expected.layout();
        }
        for (int i = 0; i < Math.max(expected.fields().size(), found.fields().size()); i++) {
            Field e = i < expected.fields().size() ? expected.fields().get(i) : null;
            Field f = i < found.fields().size() ? found.fields().get(i) : null;
            if (e == null || f == null || !e.name().equals(f.name()) || e.type() != f.type()
                    || (e instanceof HandleField he && !he.target().equals(((HandleField) f).target()))) {
                return "field " + i + " is " + describe(f) + ", expected " + (e == null ? "no field" : describe(e))
                        + " (file " + found + ", expected " + expected + ")";
            }
        }
        return null;
    }
}
