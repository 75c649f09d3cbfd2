// Generated from storage-java/src/main/java/dev/bulkdata/storage/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding int values. Obtain it from {@link Schema#intField(String)}. */
public final class IntField extends Field {
    private static final ValueLayout.OfInt LAYOUT = ValueLayout.JAVA_INT_UNALIGNED;

    IntField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.INT, index, blockOffset, slotStride);
    }

    int get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Integer.BYTES));
    }

    void set(MemorySegment block, int slot, int value) {
        block.set(LAYOUT, offset(slot, Integer.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    int get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Integer.BYTES));
    }

    void set(MemorySegment region, long block, int slot, int value) {
        region.set(LAYOUT, block + offset(slot, Integer.BYTES), value);
    }
}
