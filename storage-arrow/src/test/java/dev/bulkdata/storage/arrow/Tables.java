package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;

import java.util.Random;

/** Test tables with a field of every type, filled with random values and holes. */
final class Tables {
    private Tables() {
    }

    static Schema everyType(RecordLayout layout) {
        return Schema.builder("every").layout(layout)
                .add(FieldType.BYTE, "b").add(FieldType.SHORT, "s").add(FieldType.CHAR, "c")
                .add(FieldType.INT, "i").add(FieldType.LONG, "l").add(FieldType.FLOAT, "f")
                .add(FieldType.DOUBLE, "d").add(FieldType.BOOLEAN, "z").addHandle("h", "others")
                .build();
    }

    static Table open(Schema schema, boolean packed) {
        return packed ? PackedTable.of(schema) : BulkTable.of(schema);
    }

    /** Adds {@code n} records of random values, then removes about {@code removedPercent} % of them. */
    static void fill(Table t, int n, int removedPercent, Random random) {
        Schema schema = t.schema();
        long[] hs = new long[n];
        for (int r = 0; r < n; r++) {
            long h = t.add();
            hs[r] = h;
            for (Field f : schema.fields()) {
                set(t, h, f, random);
            }
        }
        for (long h : hs) {
            if (random.nextInt(100) < removedPercent) {
                t.remove(h);
            }
        }
    }

    static void set(Table t, long h, Field f, Random random) {
        Schema schema = t.schema();
        String n = f.name();
        switch (f.type()) {
            case BYTE -> t.set(h, schema.byteField(n), (byte) random.nextInt());
            case SHORT -> t.set(h, schema.shortField(n), (short) random.nextInt());
            case CHAR -> t.set(h, schema.charField(n), (char) random.nextInt());
            case INT -> t.set(h, schema.intField(n), random.nextInt());
            case LONG -> t.set(h, schema.longField(n), random.nextLong());
            case FLOAT -> t.set(h, schema.floatField(n), random.nextFloat() * 1000 - 500);
            case DOUBLE -> t.set(h, schema.doubleField(n), random.nextDouble() * 1e6);
            case BOOLEAN -> t.set(h, schema.booleanField(n), random.nextBoolean());
            case HANDLE -> t.set(h, schema.handleField(n), random.nextLong() & 0x7fff_ffff_ffffL);
        }
    }

    /** A field's value in the encoding of {@link CConsumer#value}. */
    static long get(Table t, long h, Field f) {
        Schema schema = t.schema();
        String n = f.name();
        return switch (f.type()) {
            case BYTE -> t.get(h, schema.byteField(n));
            case SHORT -> t.get(h, schema.shortField(n));
            case CHAR -> t.get(h, schema.charField(n));
            case INT -> t.get(h, schema.intField(n));
            case LONG -> t.get(h, schema.longField(n));
            case FLOAT -> Double.doubleToLongBits(t.get(h, schema.floatField(n)));
            case DOUBLE -> Double.doubleToLongBits(t.get(h, schema.doubleField(n)));
            case BOOLEAN -> t.get(h, schema.booleanField(n)) ? 1 : 0;
            case HANDLE -> t.get(h, schema.handleField(n));
        };
    }
}
