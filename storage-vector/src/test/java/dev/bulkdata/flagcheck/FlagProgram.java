package dev.bulkdata.flagcheck;

import dev.bulkdata.storage.vector.Kernels;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.Schema;

/**
 * Run by {@code WithoutFlagTest} in a child JVM on the class path, with and without
 * {@code --add-modules jdk.incubator.vector}: prints whether the kernels are vectorised and
 * what they computed over a table with holes. In a package of its own: on the module path the
 * package {@code dev.bulkdata.storage.vector} belongs to the module, so a class-path class in it
 * would not be found.
 */
public final class FlagProgram {
    private FlagProgram() {
    }

    public static void main(String[] args) {
        Schema schema = Schema.builder("flag").add(FieldType.FLOAT, "t", "p", "v").build();
        FloatField t = schema.floatField("t");
        FloatField p = schema.floatField("p");
        FloatField v = schema.floatField("v");
        try (BulkTable table = BulkTable.of(schema)) {
            long[] handles = new long[3000];
            for (int i = 0; i < handles.length; i++) {
                handles[i] = table.add();
                table.set(handles[i], t, i % 7 - 3);
                table.set(handles[i], v, i * 0.25f);
            }
            for (int i = 0; i < handles.length; i += 3) {
                table.remove(handles[i]);
            }
            Kernels.axpy(table, p, v, 0.5f);
            Kernels.scale(table, p, 3f);
            long[] expired = new long[table.size()];
            int count = Kernels.handlesLessThan(table, t, 0f, expired);
            table.removeAll(expired, 0, count);
            System.out.println("vectorized=" + Kernels.vectorized());
            System.out.println("size=" + table.size() + " expired=" + count + " min=" + Kernels.min(table, p)
                    + " max=" + Kernels.max(table, p) + " sum=" + Kernels.sum(table, p));
            System.out.println("vectorBits=" + Kernels.vectorBits());
        }
    }
}
