package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.ShortField;

/**
 * Reads and writes any field as raw {@code long} bits, whatever its type, so tests can treat
 * all fields alike. Written values are normalised to what the field can hold
 * ({@link #normalize}), so a model can compare what it wrote with what it reads.
 */
final class Values {
    private Values() {
    }

    /** The bits a field of {@code type} keeps of {@code bits}. */
    static long normalize(FieldType type, long bits) {
        return switch (type) {
            case BYTE -> (byte) bits;
            case SHORT -> (short) bits;
            case CHAR -> (char) bits;
            case INT -> (int) bits;
            case LONG -> bits;
            case FLOAT -> Float.floatToRawIntBits(Float.intBitsToFloat((int) bits));
            case DOUBLE -> Double.doubleToRawLongBits(Double.longBitsToDouble(bits));
            case BOOLEAN -> bits & 1;
            case HANDLE -> bits;
        };
    }

    static long get(Table t, long h, Field f) {
        return switch (f) {
            case ByteField x -> t.get(h, x);
            case ShortField x -> t.get(h, x);
            case CharField x -> t.get(h, x);
            case IntField x -> t.get(h, x);
            case LongField x -> t.get(h, x);
            case FloatField x -> Float.floatToRawIntBits(t.get(h, x));
            case DoubleField x -> Double.doubleToRawLongBits(t.get(h, x));
            case BooleanField x -> t.get(h, x) ? 1 : 0;
            case HandleField x -> t.get(h, x);
        };
    }

    static void set(Table t, long h, Field f, long bits) {
        switch (f) {
            case ByteField x -> t.set(h, x, (byte) bits);
            case ShortField x -> t.set(h, x, (short) bits);
            case CharField x -> t.set(h, x, (char) bits);
            case IntField x -> t.set(h, x, (int) bits);
            case LongField x -> t.set(h, x, bits);
            case FloatField x -> t.set(h, x, Float.intBitsToFloat((int) bits));
            case DoubleField x -> t.set(h, x, Double.longBitsToDouble(bits));
            case BooleanField x -> t.set(h, x, (bits & 1) != 0);
            case HandleField x -> t.set(h, x, bits);
        }
    }

    static long get(Chunk c, int slot, Field f) {
        return switch (f) {
            case ByteField x -> c.get(slot, x);
            case ShortField x -> c.get(slot, x);
            case CharField x -> c.get(slot, x);
            case IntField x -> c.get(slot, x);
            case LongField x -> c.get(slot, x);
            case FloatField x -> Float.floatToRawIntBits(c.get(slot, x));
            case DoubleField x -> Double.doubleToRawLongBits(c.get(slot, x));
            case BooleanField x -> c.get(slot, x) ? 1 : 0;
            case HandleField x -> c.get(slot, x);
        };
    }

    static void set(Chunk c, int slot, Field f, long bits) {
        switch (f) {
            case ByteField x -> c.set(slot, x, (byte) bits);
            case ShortField x -> c.set(slot, x, (short) bits);
            case CharField x -> c.set(slot, x, (char) bits);
            case IntField x -> c.set(slot, x, (int) bits);
            case LongField x -> c.set(slot, x, bits);
            case FloatField x -> c.set(slot, x, Float.intBitsToFloat((int) bits));
            case DoubleField x -> c.set(slot, x, Double.longBitsToDouble(bits));
            case BooleanField x -> c.set(slot, x, (bits & 1) != 0);
            case HandleField x -> c.set(slot, x, bits);
        }
    }

    static long get(ComponentTable t, long entity, Field f) {
        return switch (f) {
            case ByteField x -> t.get(entity, x);
            case ShortField x -> t.get(entity, x);
            case CharField x -> t.get(entity, x);
            case IntField x -> t.get(entity, x);
            case LongField x -> t.get(entity, x);
            case FloatField x -> Float.floatToRawIntBits(t.get(entity, x));
            case DoubleField x -> Double.doubleToRawLongBits(t.get(entity, x));
            case BooleanField x -> t.get(entity, x) ? 1 : 0;
            case HandleField x -> t.get(entity, x);
        };
    }

    static void set(ComponentTable t, long entity, Field f, long bits) {
        switch (f) {
            case ByteField x -> t.set(entity, x, (byte) bits);
            case ShortField x -> t.set(entity, x, (short) bits);
            case CharField x -> t.set(entity, x, (char) bits);
            case IntField x -> t.set(entity, x, (int) bits);
            case LongField x -> t.set(entity, x, bits);
            case FloatField x -> t.set(entity, x, Float.intBitsToFloat((int) bits));
            case DoubleField x -> t.set(entity, x, Double.longBitsToDouble(bits));
            case BooleanField x -> t.set(entity, x, (bits & 1) != 0);
            case HandleField x -> t.set(entity, x, bits);
        }
    }

    static long getAt(ComponentTable t, int row, Field f) {
        return switch (f) {
            case ByteField x -> t.getAt(row, x);
            case ShortField x -> t.getAt(row, x);
            case CharField x -> t.getAt(row, x);
            case IntField x -> t.getAt(row, x);
            case LongField x -> t.getAt(row, x);
            case FloatField x -> Float.floatToRawIntBits(t.getAt(row, x));
            case DoubleField x -> Double.doubleToRawLongBits(t.getAt(row, x));
            case BooleanField x -> t.getAt(row, x) ? 1 : 0;
            case HandleField x -> t.getAt(row, x);
        };
    }

    static void setAt(ComponentTable t, int row, Field f, long bits) {
        switch (f) {
            case ByteField x -> t.setAt(row, x, (byte) bits);
            case ShortField x -> t.setAt(row, x, (short) bits);
            case CharField x -> t.setAt(row, x, (char) bits);
            case IntField x -> t.setAt(row, x, (int) bits);
            case LongField x -> t.setAt(row, x, bits);
            case FloatField x -> t.setAt(row, x, Float.intBitsToFloat((int) bits));
            case DoubleField x -> t.setAt(row, x, Double.longBitsToDouble(bits));
            case BooleanField x -> t.setAt(row, x, (bits & 1) != 0);
            case HandleField x -> t.setAt(row, x, bits);
        }
    }

    static long get(DenseRows<?> rows, int row, Field f) {
        return switch (f) {
            case ByteField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
            case ShortField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
            case CharField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
            case IntField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
            case LongField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
            case FloatField x -> Float.floatToRawIntBits(FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row)));
            case DoubleField x -> Double.doubleToRawLongBits(FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row)));
            case BooleanField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row)) ? 1 : 0;
            case HandleField x -> FieldAccess.get(x, rows.blockOf(row), rows.slotOf(row));
        };
    }

    static void set(DenseRows<?> rows, int row, Field f, long bits) {
        switch (f) {
            case ByteField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), (byte) bits);
            case ShortField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), (short) bits);
            case CharField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), (char) bits);
            case IntField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), (int) bits);
            case LongField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), bits);
            case FloatField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), Float.intBitsToFloat((int) bits));
            case DoubleField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), Double.longBitsToDouble(bits));
            case BooleanField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), (bits & 1) != 0);
            case HandleField x -> FieldAccess.set(x, rows.blockOf(row), rows.slotOf(row), bits);
        }
    }
}
