package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A {@link Field} holding boolean values, stored as one byte ({@code 0} or {@code 1}). Obtain it from {@link Schema#booleanField(String)}.
 */
public final class BooleanField extends Field {
    private static final ValueLayout.OfByte LAYOUT = ValueLayout.JAVA_BYTE;

    BooleanField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.BOOLEAN, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public boolean get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, 1)) != 0;
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, boolean value) {
        block.set(LAYOUT, offset(slot, 1), (byte) (value ? 1 : 0));
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public boolean get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, 1)) != 0;
    }

    /** {@link #set(MemorySegment, int, boolean)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, boolean value) {
        region.set(LAYOUT, block + offset(slot, 1), (byte) (value ? 1 : 0));
    }
}
