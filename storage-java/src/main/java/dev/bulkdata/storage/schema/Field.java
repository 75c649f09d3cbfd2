package dev.bulkdata.storage.schema;

/**
 * A named, typed field of a {@link Schema} ({@link Schema#floatField(String)} and friends): the key for reading and
 * writing values. Its class fixes the value's Java type; a field of another schema is rejected with
 * {@link IllegalArgumentException}. Slot {@code s}'s value is at byte {@code blockOffset + s * slotStride} of a block,
 * in both {@link RecordLayout}s. Immutable and thread-safe; fields compare by identity.
 */
public abstract sealed class Field
        permits ByteField, ShortField, CharField, IntField, LongField, FloatField, DoubleField, BooleanField,
        HandleField {
    private final Schema schema;
    private final String name;
    private final FieldType type;
    private final int index;
    final int blockOffset;
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
     * {@return byte offset, inside a block, of slot 0's value: the column start in {@link RecordLayout#SOA}, the offset
     * within the record in {@link RecordLayout#AOS}}
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

    @Override
    public final String toString() {
        return schema.name() + '.' + name + ':' + type;
    }
}
