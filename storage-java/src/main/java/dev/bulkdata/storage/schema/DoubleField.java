// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding double values. Obtain it from {@link Schema#doubleField(String)}. */
public final class DoubleField extends Field {
    private static final ValueLayout.OfDouble LAYOUT = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    DoubleField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.DOUBLE, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public double get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Double.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, double value) {
        block.set(LAYOUT, offset(slot, Double.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public double get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Double.BYTES));
    }

    /** {@link #set(MemorySegment, int, double)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, double value) {
        region.set(LAYOUT, block + offset(slot, Double.BYTES), value);
    }
}
