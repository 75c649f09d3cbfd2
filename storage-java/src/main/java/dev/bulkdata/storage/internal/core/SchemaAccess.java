package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the engine needs of a {@link Schema} beyond its public facts: the stored fields (the hidden free-list link
 * included), the link, the load defaults, the field check and the slot wipes. The schema keeps that state private;
 * this class reads it through final-field handles, as the same module may ({@code privateLookupIn}), so the exported
 * package gains no member and does not depend on the engine.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SchemaAccess {
    private static final VarHandle STORED_FIELDS;
    private static final VarHandle LINK;
    private static final VarHandle LOAD_DEFAULTS;

    static {
        try {
            MethodHandles.Lookup schema = MethodHandles.privateLookupIn(Schema.class, MethodHandles.lookup());
            STORED_FIELDS = schema.findVarHandle(Schema.class, "storedFields", Field[].class);
            LINK = schema.findVarHandle(Schema.class, "link", IntField.class);
            LOAD_DEFAULTS = schema.findVarHandle(Schema.class, "loadDefaults", long[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SchemaAccess() {
    }

    /** {@return the fields a record stores, the hidden link included; the schema's own array: do not modify} */
    public static Field[] storedFields(Schema schema) {
        return (Field[]) STORED_FIELDS.get(schema);
    }

    /** {@return the int field a free slot's link is kept in: hidden, or 4 bytes of a wider field} */
    public static IntField link(Schema schema) {
        return (IntField) LINK.get(schema);
    }

    /** {@return the bits (a float's raw bits, a boolean's 0 or 1) a record saved without {@code f} loads with} */
    public static long loadDefaultBits(Field f) {
        return ((long[]) LOAD_DEFAULTS.get(f.schema()))[f.index()];
    }

    /** Throws unless {@code f} is a field of {@code schema}. */
    public static void check(Schema schema, Field f) {
        if (f == null || f.schema() != schema) {
            throw foreignField(schema, f);
        }
    }

    /** {@return the exception for a field that is null or of another schema than {@code schema}} */
    public static IllegalArgumentException foreignField(Schema schema, Field f) {
        if (f == null) {
            return new IllegalArgumentException("field is null (table '" + schema.name() + "'); look fields up with"
                    + " schema.floatField(\"name\") and friends");
        }
        return new IllegalArgumentException("field " + f + " belongs to schema '" + f.schema().name()
                + "', not to table '" + schema.name() + "' (schemas are compared by identity; use this table's"
                + " schema() to look the field up)");
    }

    /** Zeroes the {@code count} slots from {@code from}: one fill (AOS) or one per column (SOA). */
    public static void wipeRun(Schema schema, MemorySegment block, int from, int count) {
        if (schema.layout() == RecordLayout.AOS) {
            int slotBytes = schema.slotBytes();
            block.asSlice((long) from * slotBytes, (long) count * slotBytes).fill((byte) 0);
            return;
        }
        for (Field f : storedFields(schema)) {
            block.asSlice(FieldAccess.offset(f, from), (long) count * f.slotStride()).fill((byte) 0);
        }
    }

    /** Zeroes one slot: long stores over an AOS record, one store per SOA column, no call per field. */
    public static void wipe(Schema schema, MemorySegment block, int slot) {
        if (schema.layout() == RecordLayout.AOS) {
            int slotBytes = schema.slotBytes();
            long start = (long) slot * slotBytes;
            int i = 0;
            for (; i + Long.BYTES <= slotBytes; i += Long.BYTES) {
                block.set(ValueLayout.JAVA_LONG_UNALIGNED, start + i, 0L);
            }
            for (; i < slotBytes; i++) {
                block.set(ValueLayout.JAVA_BYTE, start + i, (byte) 0);
            }
            return;
        }
        for (Field f : storedFields(schema)) {
            long at = FieldAccess.offset(f, slot);
            switch (f.slotStride()) {
                case 8 -> block.set(ValueLayout.JAVA_LONG_UNALIGNED, at, 0L);
                case 4 -> block.set(ValueLayout.JAVA_INT_UNALIGNED, at, 0);
                case 2 -> block.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) 0);
                default -> block.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
            }
        }
    }
}
