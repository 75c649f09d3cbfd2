package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import static dev.bulkdata.storage.internal.format.FileFormat.*;

/**
 * Writes snapshots ({@code docs/format.md}, sections 3 to 10): the header, the metadata, the blocks straight from the
 * table's segments, a CRC32C per block; and the metadata section of a mapped table's checkpoint ({@link MappedStore}).
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SnapshotWriter {
    /** Where {@code meta.epoch} keeps the handle layout's epoch bits, above the table's ({@code docs/format.md}, 5). */
    static final int EPOCH_BITS_SHIFT = 11;

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(BLOCK_STRIDE).asReadOnlyBuffer();

    private SnapshotWriter() {
    }

    /** Writes a snapshot of {@code table}; the caller holds its iteration guard. */
    public static void write(StoredTable table, WritableByteChannel out) throws IOException {
        table.writeLinks();   // the free list's saved form: links in the free records (a BulkTable's)
        TableState state = table.state();
        ByteBuffer meta = metadata(table, state, 0);
        meta.flip();
        writeFile(state.kind(), meta, table.segments(), table.blockCount(), state.schema().blockBytes(), out);
    }

    /** Writes a snapshot of a component table (its entity table's identity, its rows and owners). */
    public static void write(StoredComponents table, WritableByteChannel out) throws IOException {
        StoredTable.Entities entities = table.entities().entities();
        Schema schema = table.schema();
        HandleLayout handles = entities.handles();
        int rows = table.rows();
        long metaLength = FIXED_COMPONENT_METADATA + schemaBytes(schema) + 8L * rows;
        ByteBuffer meta = ByteBuffer.allocate(Math.toIntExact(metaLength)).order(ByteOrder.nativeOrder());
        meta.putLong(entities.identity()).putShort((short) entities.tag())
                .put((byte) handles.slotBits()).put((byte) handles.generationBits())
                .put((byte) handles.epochBits()).put((byte) schema.layout().ordinal()).putShort((short) 0)
                .putInt(rows).putInt(0);
        putSchema(meta, schema);
        IntBuffer ints = meta.slice().order(ByteOrder.nativeOrder()).asIntBuffer();
        table.putRows(ints);
        meta.position(meta.position() + 4 * ints.position());
        meta.flip();
        writeFile(KIND_COMPONENTS, meta, table.segments(), table.blockCount(), schema.blockBytes(), out);
    }

    /**
     * Writes the metadata section of a table into a heap buffer of its length plus {@code extra} bytes, left
     * positioned after the metadata for the caller's additions (a mapped table's sections).
     */
    static ByteBuffer metadata(StoredTable table, TableState s, int extra) {
        boolean packed = s.kind() == KIND_PACKED;
        if (packed) {
            table.writeLinks();     // a PackedTable's free list is saved in the payloads below
        }
        Schema schema = s.schema();
        int entries = s.entryCount();
        long metaLength = FIXED_METADATA + schemaBytes(schema) + 4L * entries
                + (packed ? 4L * entries + 4L * s.size() : 0);
        ByteBuffer meta = ByteBuffer.allocate(Math.toIntExact(metaLength + extra)).order(ByteOrder.nativeOrder());
        meta.putLong(s.identity()).putShort((short) s.tag())
                .put((byte) s.handles().slotBits()).put((byte) s.handles().generationBits())
                .put((byte) (packed ? 0 : REUSE_CODES.indexOf(s.reuse())))
                .put((byte) schema.layout().ordinal())
                .putShort((short) (s.handles().epochBits() << EPOCH_BITS_SHIFT | s.epoch()))
                .putInt(s.maxSlot()).putInt(s.floor()).putInt(s.limit()).putInt(s.size()).putInt(s.retired())
                .putInt(s.freeLength()).putInt(s.freeTail()).putInt(entries)
                .putInt(s.reuseCursor()).putInt(s.reuseEnd());
        putSchema(meta, schema);
        IntBuffer ints = meta.slice().order(ByteOrder.nativeOrder()).asIntBuffer();
        table.putSlots(ints, entries);
        return meta.position(meta.position() + 4 * ints.position());
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
            meta.putInt(f.blockOffset()).putInt(f.slotStride());
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

    private static ByteBuffer zeros(int bytes) {
        return ZEROS.duplicate().limit(bytes);
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
}
