package dev.bulkdata.storage;

/**
 * A named, typed field of a {@link Schema}. Field objects come from a schema
 * ({@link Schema#floatField(String)} and friends) and are the keys for reading and writing
 * values: {@code table.get(handle, T)}, {@code chunk.set(slot, PX, 1f)}. The type of the field
 * object fixes the Java type of the value, so a {@code FloatField} cannot be read as an
 * {@code int}; a field of another schema is rejected with {@link IllegalArgumentException}.
 *
 * <p>Inside a block a field's value for slot {@code s} lives at byte
 * {@code blockOffset + s * slotStride}: in {@link RecordLayout#SOA} {@code blockOffset} is the start
 * of the field's column and {@code slotStride} its width; in {@link RecordLayout#AOS}
 * {@code blockOffset} is the field's offset in the record and {@code slotStride} the record
 * stride. One formula serves both layouts.
 *
 * <p>Immutable and thread-safe. Fields compare by identity.
 */
public abstract sealed class Field
        permits ByteField, ShortField, CharField, IntField, LongField, FloatField, DoubleField, BooleanField,
        HandleField {
    private final Schema schema;
    private final String name;
    private final FieldType type;
    private final int index;
    /** Byte offset of slot 0's value inside a block. */
    final int blockOffset;
    /** Bytes between the values of two neighbouring slots inside a block. */
    final int slotStride;

    Field(Schema schema, String name, FieldType type, int index, int blockOffset, int slotStride) {
        this.schema = schema;
        this.name = name;
        this.type = type;
        this.index = index;
        this.blockOffset = blockOffset;
        this.slotStride = slotStride;
    }

    /** {@return the schema this field belongs to} */
    public final Schema schema() {
        return schema;
    }

    /** {@return the field's name, unique within its schema} */
    public final String name() {
        return name;
    }

    /** {@return the field's primitive type} */
    public final FieldType type() {
        return type;
    }

    /** {@return the field's position in the schema's declaration order, from 0} */
    public final int index() {
        return index;
    }

    /**
     * {@return byte offset, inside a block, of slot 0's value: the column start in
     * {@link RecordLayout#SOA}, the offset within the record in {@link RecordLayout#AOS}}
     */
    public final int blockOffset() {
        return blockOffset;
    }

    /**
     * {@return bytes between two neighbouring slots' values inside a block: the field width in
     * {@link RecordLayout#SOA}, the record stride in {@link RecordLayout#AOS}}
     */
    public final int slotStride() {
        return slotStride;
    }

    /** Byte offset of {@code slot}'s value inside a block. */
    final long offset(int slot) {
        return blockOffset + (long) slot * slotStride;
    }

    /**
     * {@link #offset(int)} for a field {@code width} bytes wide, {@code width} a constant: the
     * SOA case (stride equal to the width) scales the slot by that constant. A stride loaded
     * from the field as the scale keeps C2 from optimising the address and range checks of a
     * per-slot loop, which doubled the time of {@code forEach} with {@code chunk.get/set}
     * (benchmarks/NOTES.md, "Per-slot access").
     */
    final long offset(int slot, int width) {
        int stride = slotStride;
        return blockOffset + (stride == width ? (long) slot * width : (long) slot * stride);
    }


    @Override
    public final String toString() {
        return schema.name() + '.' + name + ':' + type;
    }
}
