package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.Field;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.bulkdata.storage.arrow.CData.I64;

/**
 * The columns an export copies per array, into memory the stream owns (every other column's
 * buffer is the block's own): the record handles, a boolean field packed to Arrow's bits, and
 * a field of an AOS block gathered into a column. Each writes slots {@code [0, length)} of one
 * chunk; a hole's value is whatever the block holds (its validity bit is 0), a hole's handle 0.
 */
final class ColumnCopies {
    private ColumnCopies() {
    }

    /** Writes the handles of slots {@code [0, length)} into a column, 0 for a hole. */
    static void handles(Chunk chunk, int length, MemorySegment data) {
        for (int w = 0, words = (length + 63) >>> 6; w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                for (int s = base, end = Math.min(base + 64, length); s < end; s++) {
                    data.setAtIndex(I64, s, chunk.handle(s));
                }
                continue;
            }
            for (int s = base, end = Math.min(base + 64, length); s < end; s++) {
                data.setAtIndex(I64, s, (bits >>> (s - base) & 1) != 0 ? chunk.handle(s) : 0L);
            }
        }
    }

    /** Packs a boolean field's bytes of slots {@code [0, length)} into bits; returns the bytes written. */
    static long packBooleans(MemorySegment records, Field f, int length, MemorySegment data) {
        long off = f.blockOffset();
        long stride = f.slotStride();
        int bytes = (length + 7) >>> 3;
        for (int b = 0; b < bytes; b++) {
            int bits = 0;
            for (int i = 0, s = b << 3; i < 8 && s < length; i++, s++) {
                if (records.get(ValueLayout.JAVA_BYTE, off + s * stride) != 0) {
                    bits |= 1 << i;
                }
            }
            data.set(ValueLayout.JAVA_BYTE, b, (byte) bits);
        }
        return bytes;
    }

    /** Copies a field's values of slots {@code [0, length)} of an AOS block into a column. */
    static long gather(MemorySegment records, Field f, int length, MemorySegment data) {
        long off = f.blockOffset();
        long stride = f.slotStride();
        switch (f.type().byteSize()) {
            case 1 -> {
                for (int s = 0; s < length; s++) {
                    data.set(ValueLayout.JAVA_BYTE, s, records.get(ValueLayout.JAVA_BYTE, off + s * stride));
                }
            }
            case 2 -> {
                for (int s = 0; s < length; s++) {
                    data.setAtIndex(ValueLayout.JAVA_SHORT, s, records.get(ValueLayout.JAVA_SHORT, off + s * stride));
                }
            }
            case 4 -> {
                for (int s = 0; s < length; s++) {
                    data.setAtIndex(ValueLayout.JAVA_INT, s, records.get(ValueLayout.JAVA_INT, off + s * stride));
                }
            }
            default -> {
                for (int s = 0; s < length; s++) {
                    data.setAtIndex(I64, s, records.get(I64, off + s * stride));
                }
            }
        }
        return (long) length * f.type().byteSize();
    }
}
