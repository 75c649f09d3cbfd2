package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A {@link Field} holding long values. Obtain it from {@link Schema#longField(String)}.
 */
public final class LongField extends Field {
    private static final ValueLayout.OfLong LAYOUT = ValueLayout.JAVA_LONG_UNALIGNED;

    LongField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.LONG, index, blockOffset, slotStride);
    }

    long get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot));
    }

    void set(MemorySegment block, int slot, long value) {
        block.set(LAYOUT, offset(slot), value);
    }

    @Override
    void clear(MemorySegment block, int slot) {
        block.set(LAYOUT, offset(slot), 0L);
    }
}
