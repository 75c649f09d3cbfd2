// @per-type: codegen/Generate.java writes ByteField .. DoubleField from this file (ARCHITECTURE.md, Per-type code)
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding float values. Obtain it from {@link Schema#floatField(String)}. */
public final class FloatField extends Field {
    private static final ValueLayout.OfFloat LAYOUT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    FloatField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.FLOAT, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public float get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Float.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, float value) {
        block.set(LAYOUT, offset(slot, Float.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public float get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Float.BYTES));
    }

    /** {@link #set(MemorySegment, int, float)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, float value) {
        region.set(LAYOUT, block + offset(slot, Float.BYTES), value);
    }
}
