// Generated from storage-java/src/main/java/dev/bulkdata/storage/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding short values. Obtain it from {@link Schema#shortField(String)}. */
public final class ShortField extends Field {
    private static final ValueLayout.OfShort LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;

    ShortField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.SHORT, index, blockOffset, slotStride);
    }

    short get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Short.BYTES));
    }

    void set(MemorySegment block, int slot, short value) {
        block.set(LAYOUT, offset(slot, Short.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    short get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Short.BYTES));
    }

    void set(MemorySegment region, long block, int slot, short value) {
        region.set(LAYOUT, block + offset(slot, Short.BYTES), value);
    }
}
