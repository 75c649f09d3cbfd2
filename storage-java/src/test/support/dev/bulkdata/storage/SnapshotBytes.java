package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.format.FileFormat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;

/**
 * Snapshots as byte arrays, for tests and the fuzz target: save to bytes, load from bytes, and
 * {@link #reseal} a changed snapshot (recompute every CRC32C) so that a change reaches the
 * checks behind the checksums.
 */
final class SnapshotBytes {
    private SnapshotBytes() {
    }

    static byte[] save(Table table) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            Snapshots.save(table, Channels.newChannel(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * A channel that discards what is written to it and runs {@code onWrite} before each write:
     * a save into it lets a test act on the table while the save is under way.
     */
    static java.nio.channels.WritableByteChannel discardingChannel(Runnable onWrite) {
        return new java.nio.channels.WritableByteChannel() {
            @Override
            public int write(java.nio.ByteBuffer src) {
                onWrite.run();
                int n = src.remaining();
                src.position(src.limit());
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    static Table load(byte[] bytes, Schema expected, Snapshots.LoadOption... options) throws IOException {
        return Snapshots.load(Channels.newChannel(new ByteArrayInputStream(bytes)), "bytes", Table.class, expected,
                options);
    }

    /**
     * Recomputes the header's, the metadata's, every block's and the trailer's CRC32C of a
     * snapshot whose header lengths are intact; other bytes are left as they are. Does nothing
     * to bytes too short or inconsistent to find the sections in.
     */
    static byte[] reseal(byte[] bytes) {
        if (bytes.length < FileFormat.HEADER_BYTES) {
            return bytes;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        long metaLength = b.getLong(FileFormat.AT_META_LENGTH);
        long blocksOffset = b.getLong(FileFormat.AT_BLOCKS_OFFSET);
        long blocks = Integer.toUnsignedLong(b.getInt(FileFormat.AT_BLOCK_COUNT));
        int stride = FileFormat.BLOCK_STRIDE;
        long trailer = blocksOffset + blocks * stride;
        if (metaLength < 0 || FileFormat.HEADER_BYTES + metaLength > bytes.length || blocksOffset < 0
                || trailer + 4 * blocks + 4 > bytes.length || blocksOffset > bytes.length) {
            return bytes;
        }
        b.putInt(FileFormat.AT_META_CRC, FileFormat.crc32c(bytes, FileFormat.HEADER_BYTES, (int) metaLength));
        b.putInt(FileFormat.AT_HEADER_CRC, 0);
        b.putInt(FileFormat.AT_HEADER_CRC, FileFormat.crc32c(bytes, 0, FileFormat.HEADER_BYTES));
        // The block CRCs cover the block's bytes only, not the padding to the stride.
        int blockBytes = blockBytes(bytes, metaLength);
        for (int i = 0; i < blocks; i++) {
            int crc = FileFormat.crc32c(bytes, (int) (blocksOffset + (long) i * stride), blockBytes);
            b.putInt((int) (trailer + 4L * i), crc);
        }
        b.putInt((int) (trailer + 4 * blocks), FileFormat.crc32c(bytes, (int) trailer, (int) (4 * blocks)));
        return bytes;
    }

    /** The schema's block bytes: the last u32 before the slot sections, found by walking the schema. */
    private static int blockBytes(byte[] bytes, long metaLength) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        try {
            b.position(FileFormat.HEADER_BYTES + FileFormat.FIXED_METADATA);
            int nameLength = Short.toUnsignedInt(b.getShort());
            b.position(b.position() + nameLength);
            int fields = Short.toUnsignedInt(b.getShort());
            for (int i = 0; i < fields; i++) {
                int type = b.get();
                int length = Byte.toUnsignedInt(b.get());
                b.position(b.position() + length);
                if (type == FieldType.HANDLE.ordinal()) {
                    b.position(b.position() + Byte.toUnsignedInt(b.get()));
                }
                b.position(b.position() + 8);
            }
            b.getInt();
            b.getInt();
            int blockBytes = b.getInt();
            return blockBytes > 0 && blockBytes <= FileFormat.BLOCK_STRIDE ? blockBytes : FileFormat.BLOCK_STRIDE;
        } catch (RuntimeException e) {
            return FileFormat.BLOCK_STRIDE;
        }
    }
}
