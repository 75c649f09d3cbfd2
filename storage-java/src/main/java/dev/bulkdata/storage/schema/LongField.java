// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding long values. Obtain it from {@link Schema#longField(String)}. */
public final class LongField extends Field {
    private static final ValueLayout.OfLong LAYOUT = ValueLayout.JAVA_LONG_UNALIGNED;

    LongField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.LONG, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public long get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Long.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, long value) {
        block.set(LAYOUT, offset(slot, Long.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public long get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Long.BYTES));
    }

    /** {@link #set(MemorySegment, int, long)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, long value) {
        region.set(LAYOUT, block + offset(slot, Long.BYTES), value);
    }
}
