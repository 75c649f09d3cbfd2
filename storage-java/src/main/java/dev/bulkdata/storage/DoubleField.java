package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A {@link Field} holding double values. Obtain it from {@link Schema#doubleField(String)}.
 */
public final class DoubleField extends Field {
    private static final ValueLayout.OfDouble LAYOUT = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    DoubleField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.DOUBLE, index, blockOffset, slotStride);
    }

    double get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot));
    }

    void set(MemorySegment block, int slot, double value) {
        block.set(LAYOUT, offset(slot), value);
    }

    @Override
    void clear(MemorySegment block, int slot) {
        block.set(LAYOUT, offset(slot), 0d);
    }
}
