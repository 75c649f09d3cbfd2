// Generated from storage-java/src/main/java/dev/bulkdata/storage/schema/FloatField.java by codegen/Generate.java: edit that source, not this file.
package dev.bulkdata.storage.schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A {@link Field} holding char values. Obtain it from {@link Schema#charField(String)}. */
public final class CharField extends Field {
    private static final ValueLayout.OfChar LAYOUT = ValueLayout.JAVA_CHAR_UNALIGNED;

    CharField(Schema schema, String name, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.CHAR, index, blockOffset, slotStride);
    }

    /** Reads slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public char get(MemorySegment block, int slot) {
        return block.get(LAYOUT, offset(slot, Character.BYTES));
    }

    /** Writes slot {@code slot}'s value in {@code block}: the tables' raw access, bounds-checked, no schema check. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment block, int slot, char value) {
        block.set(LAYOUT, offset(slot, Character.BYTES), value);
    }

    /** {@link #get(MemorySegment, int)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public char get(MemorySegment region, long block, int slot) {
        return region.get(LAYOUT, block + offset(slot, Character.BYTES));
    }

    /** {@link #set(MemorySegment, int, char)} of the block at byte {@code block} of {@code region}. */
    @SuppressWarnings("doclint:missing")
    public void set(MemorySegment region, long block, int slot, char value) {
        region.set(LAYOUT, block + offset(slot, Character.BYTES), value);
    }
}
