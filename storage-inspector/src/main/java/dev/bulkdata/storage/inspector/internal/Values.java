package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.ShortField;
import dev.bulkdata.storage.Table;

/**
 * Reads one field of one record through the tables' typed public accessors and writes it as
 * JSON. A handle field becomes an object naming the record it refers to (see
 * {@link Registry#writeHandle}).
 */
final class Values {
    private Values() {
    }

    static void write(Json j, Registry links, Chunk c, int slot, Field f) {
        switch (f.type()) {
            case BYTE -> j.value(c.get(slot, (ByteField) f));
            case SHORT -> j.value(c.get(slot, (ShortField) f));
            case CHAR -> j.value(String.valueOf(c.get(slot, (CharField) f)));
            case INT -> j.value(c.get(slot, (IntField) f));
            case LONG -> j.value(c.get(slot, (LongField) f));
            case FLOAT -> j.value(c.get(slot, (FloatField) f));
            case DOUBLE -> j.value(c.get(slot, (DoubleField) f));
            case BOOLEAN -> j.value(c.get(slot, (BooleanField) f));
            case HANDLE -> links.writeHandle(j, ((HandleField) f).target(), c.get(slot, (HandleField) f));
        }
    }

    static void write(Json j, Registry links, Table t, long h, Field f) {
        switch (f.type()) {
            case BYTE -> j.value(t.get(h, (ByteField) f));
            case SHORT -> j.value(t.get(h, (ShortField) f));
            case CHAR -> j.value(String.valueOf(t.get(h, (CharField) f)));
            case INT -> j.value(t.get(h, (IntField) f));
            case LONG -> j.value(t.get(h, (LongField) f));
            case FLOAT -> j.value(t.get(h, (FloatField) f));
            case DOUBLE -> j.value(t.get(h, (DoubleField) f));
            case BOOLEAN -> j.value(t.get(h, (BooleanField) f));
            case HANDLE -> links.writeHandle(j, ((HandleField) f).target(), t.get(h, (HandleField) f));
        }
    }

    static void write(Json j, Registry links, ComponentTable t, int row, Field f) {
        switch (f.type()) {
            case BYTE -> j.value(t.getAt(row, (ByteField) f));
            case SHORT -> j.value(t.getAt(row, (ShortField) f));
            case CHAR -> j.value(String.valueOf(t.getAt(row, (CharField) f)));
            case INT -> j.value(t.getAt(row, (IntField) f));
            case LONG -> j.value(t.getAt(row, (LongField) f));
            case FLOAT -> j.value(t.getAt(row, (FloatField) f));
            case DOUBLE -> j.value(t.getAt(row, (DoubleField) f));
            case BOOLEAN -> j.value(t.getAt(row, (BooleanField) f));
            case HANDLE -> links.writeHandle(j, ((HandleField) f).target(), t.getAt(row, (HandleField) f));
        }
    }

    static void writeByEntity(Json j, Registry links, ComponentTable t, long entity, Field f) {
        switch (f.type()) {
            case BYTE -> j.value(t.get(entity, (ByteField) f));
            case SHORT -> j.value(t.get(entity, (ShortField) f));
            case CHAR -> j.value(String.valueOf(t.get(entity, (CharField) f)));
            case INT -> j.value(t.get(entity, (IntField) f));
            case LONG -> j.value(t.get(entity, (LongField) f));
            case FLOAT -> j.value(t.get(entity, (FloatField) f));
            case DOUBLE -> j.value(t.get(entity, (DoubleField) f));
            case BOOLEAN -> j.value(t.get(entity, (BooleanField) f));
            case HANDLE -> links.writeHandle(j, ((HandleField) f).target(), t.get(entity, (HandleField) f));
        }
    }

    /** Reads a field by handle only to learn why the handle is refused (its exception's message). */
    static void touch(Table t, long h, Field f) {
        switch (f.type()) {
            case BYTE -> t.get(h, (ByteField) f);
            case SHORT -> t.get(h, (ShortField) f);
            case CHAR -> t.get(h, (CharField) f);
            case INT -> t.get(h, (IntField) f);
            case LONG -> t.get(h, (LongField) f);
            case FLOAT -> t.get(h, (FloatField) f);
            case DOUBLE -> t.get(h, (DoubleField) f);
            case BOOLEAN -> t.get(h, (BooleanField) f);
            case HANDLE -> t.get(h, (HandleField) f);
        }
    }
}
