// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding int values. Obtain it from {@link Schema#intField(String)}. */
public final class IntField extends Field {
    private static final ValueLayout.OfInt LAYOUT = ValueLayout.JAVA_INT_UNALIGNED;

    IntField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.INT, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public int get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Integer.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, int value) {
        block.set(LAYOUT, offset(slot, Integer.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public int get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Integer.BYTES));
    }

    /** {@link #set(MemorySegment, int, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, int value) {
        region.set(LAYOUT, block + offset(slot, Integer.BYTES), value);
    }
}
