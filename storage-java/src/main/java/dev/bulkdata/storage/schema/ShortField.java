// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding short values. Obtain it from {@link Schema#shortField(String)}. */
public final class ShortField extends Field {
    private static final ValueLayout.OfShort LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;

    ShortField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.SHORT, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public short get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Short.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, short value) {
        block.set(LAYOUT, offset(slot, Short.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public short get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Short.BYTES));
    }

    /** {@link #set(MemorySegment, int, short)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, short value) {
        region.set(LAYOUT, block + offset(slot, Short.BYTES), value);
    }
}
