package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.MappedFile;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The constants of both storage files (snapshots, mapped tables' files), specified (with their meaning) in
 * {@code docs/format.md}, sections 2, 3 and 11; {@code FileFormatSpecTest} holds the two together.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class FileFormat {
    public static final byte[] MAGIC = {(byte) 0x89, 'B', 'U', 'L', 'K', '\r', '\n', 0x1A};
    public static final int FORMAT_VERSION = 2;
    public static final int HEADER_BYTES = 64;
    public static final int BLOCK_STRIDE = Schema.BLOCK_BYTES;
    public static final byte KIND_BULK = 1;
    public static final byte KIND_PACKED = 2;
    public static final byte KIND_COMPONENTS = 3;
    public static final List<ReuseOrder> REUSE_CODES = List.of(ReuseOrder.FIFO, ReuseOrder.LIFO, ReuseOrder.SWEEP);

    // The header (docs/format.md, section 3); a mapped file's header slot uses the same offsets.
    public static final int AT_ORDER = 8;
    public static final int AT_KIND = 9;
    public static final int AT_FORMAT_VERSION = 12;
    public static final int AT_FLAGS = 16;
    public static final int AT_HEADER_CRC = 20;
    public static final int AT_META_LENGTH = 24;
    /** A snapshot's blocks offset; a mapped header slot's metadata offset. */
    public static final int AT_BLOCKS_OFFSET = 32;
    public static final int AT_METADATA_OFFSET = 32;
    public static final int AT_BLOCK_COUNT = 40;
    public static final int AT_BLOCK_STRIDE = 44;
    public static final int AT_META_CRC = 48;
    /** A snapshot's file length; a mapped header slot's checkpoint sequence number. */
    public static final int AT_FILE_LENGTH = 56;
    public static final int AT_SEQUENCE = 56;
    public static final int FLAG_MAPPED = 1;
    public static final int FLAG_BLOCK_CRCS = 2;

    /** Metadata bytes before the schema. */
    public static final int FIXED_METADATA = 8 + 2 + 1 + 1 + 1 + 1 + 2 + 10 * 4;
    /** Metadata bytes before the schema, in a component table's snapshot. */
    public static final int FIXED_COMPONENT_METADATA = 8 + 2 + 1 + 1 + 1 + 1 + 2 + 2 * 4;

    // The mapped file (docs/format.md, section 11).
    public static final int SLOT_B = 4096;
    public static final long DATA_START = MappedFile.STRIDE;
    public static final int[] COMMIT_AT = {8192, 12288};
    public static final int COMMIT_BYTES = 24;
    public static final int COMMIT_MAGIC = 0x54494D43; // "CMIT" in little-endian order
    public static final int COMMIT_OPEN = 1;
    public static final int COMMIT_CLOSED = 2;
    /** The unit in which a checkpoint compares and writes the metadata: one page of the page cache. */
    public static final int PAGE = 4096;

    static final byte ORDER_NATIVE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (byte) 'L' : (byte) 'B';

    private FileFormat() {
    }

    /** What a header says, checked against itself and the file's size. */
    public record Header(int formatVersion, byte kind, long metaLength, long blocksOffset, int blockCount,
                         int metaCrc) {
    }

    /**
     * Writes the fields every header shares (magic, byte order, kind, format version, flags,
     * metadata length and CRC, block count and stride) into a 64-byte buffer in native order.
     */
    static ByteBuffer startHeader(ByteBuffer header, byte kind, int flags, long metaLength, int blocks,
                                  int metaCrc) {
        return header.put(0, MAGIC).put(AT_ORDER, ORDER_NATIVE)
                .put(AT_KIND, kind)
                .putInt(AT_FORMAT_VERSION, FORMAT_VERSION).putInt(AT_FLAGS, flags)
                .putLong(AT_META_LENGTH, metaLength).putInt(AT_BLOCK_COUNT, blocks)
                .putInt(AT_BLOCK_STRIDE, BLOCK_STRIDE).putInt(AT_META_CRC, metaCrc);
    }

    /** Sets the header's CRC32C (of its 64 bytes with the CRC field 0) and rewinds it for writing. */
    static void sealHeader(ByteBuffer header) {
        header.putInt(AT_HEADER_CRC, 0).putInt(AT_HEADER_CRC, crc32c(header.array(), 0, HEADER_BYTES));
        header.clear();
    }

    public static long alignUp(long offset) {
        return (offset + BLOCK_STRIDE - 1) & -(long) BLOCK_STRIDE;
    }

    public static int crc32c(byte[] bytes, int from, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, from, length);
        return (int) crc.getValue();
    }

    static String kindName(int kind) {
        return kind == KIND_BULK ? "BulkTable" : kind == KIND_PACKED ? "PackedTable"
                : kind == KIND_COMPONENTS ? "ComponentTable" : "table of kind " + kind;
    }
}
