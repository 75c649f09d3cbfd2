package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.ShortField;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The tables' raw access to a field's values: slot {@code s} at byte {@code blockOffset + s * slotStride} of a block
 * ({@link Field}), bounds-checked by the segment, no schema check. A {@code region} variant reads the block at byte
 * {@code block} of one mapped region.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class FieldAccess {
    private FieldAccess() {
    }

    /** {@return the byte offset of slot {@code slot}'s value of {@code f} inside a block} */
    public static long offset(Field f, int slot) {
        return f.blockOffset() + (long) slot * f.slotStride();
    }

    /** {@link #offset(Field, int)} for a constant width SOA scales by, so C2 optimises per-slot loops. */
    private static long offset(Field f, int slot, int width) {
        int stride = f.slotStride();
        return f.blockOffset() + (stride == width ? (long) slot * width : (long) slot * stride);
    }

    // @each-type except Boolean, Handle
    public static float get(FloatField f, MemorySegment block, int slot) {
        return block.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset(f, slot, Float.BYTES));
    }

    public static void set(FloatField f, MemorySegment block, int slot, float value) {
        block.set(ValueLayout.JAVA_FLOAT_UNALIGNED, offset(f, slot, Float.BYTES), value);
    }

    public static float get(FloatField f, MemorySegment region, long block, int slot) {
        return region.get(ValueLayout.JAVA_FLOAT_UNALIGNED, block + offset(f, slot, Float.BYTES));
    }

    public static void set(FloatField f, MemorySegment region, long block, int slot, float value) {
        region.set(ValueLayout.JAVA_FLOAT_UNALIGNED, block + offset(f, slot, Float.BYTES), value);
    }

    // @end
    public static boolean get(BooleanField f, MemorySegment block, int slot) {
        return block.get(ValueLayout.JAVA_BYTE, offset(f, slot, 1)) != 0;
    }

    public static void set(BooleanField f, MemorySegment block, int slot, boolean value) {
        block.set(ValueLayout.JAVA_BYTE, offset(f, slot, 1), (byte) (value ? 1 : 0));
    }

    public static boolean get(BooleanField f, MemorySegment region, long block, int slot) {
        return region.get(ValueLayout.JAVA_BYTE, block + offset(f, slot, 1)) != 0;
    }

    public static void set(BooleanField f, MemorySegment region, long block, int slot, boolean value) {
        region.set(ValueLayout.JAVA_BYTE, block + offset(f, slot, 1), (byte) (value ? 1 : 0));
    }

    public static long get(HandleField f, MemorySegment block, int slot) {
        return block.get(ValueLayout.JAVA_LONG_UNALIGNED, offset(f, slot, Long.BYTES));
    }

    public static void set(HandleField f, MemorySegment block, int slot, long value) {
        block.set(ValueLayout.JAVA_LONG_UNALIGNED, offset(f, slot, Long.BYTES), value);
    }

    public static long get(HandleField f, MemorySegment region, long block, int slot) {
        return region.get(ValueLayout.JAVA_LONG_UNALIGNED, block + offset(f, slot, Long.BYTES));
    }

    public static void set(HandleField f, MemorySegment region, long block, int slot, long value) {
        region.set(ValueLayout.JAVA_LONG_UNALIGNED, block + offset(f, slot, Long.BYTES), value);
    }
}
