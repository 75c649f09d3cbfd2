// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding byte values. Obtain it from {@link Schema#byteField(String)}. */
public final class ByteField extends Field {
    private static final ValueLayout.OfByte LAYOUT = ValueLayout.JAVA_BYTE;

    ByteField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.BYTE, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public byte get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Byte.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, byte value) {
        block.set(LAYOUT, offset(slot, Byte.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public byte get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Byte.BYTES));
    }

    /** {@link #set(MemorySegment, int, byte)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, byte value) {
        region.set(LAYOUT, block + offset(slot, Byte.BYTES), value);
    }
}
