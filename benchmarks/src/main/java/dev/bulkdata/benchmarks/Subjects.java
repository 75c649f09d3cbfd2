package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.schema.Schema;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.SplittableRandom;

/**
 * Builds every subject with the standard record (8 floats, {@code t px py pz vx vy vz pad}):
 * bulkdata tables, plain {@code float[]} columns (the limit), and the heap collections.
 * Values are deterministic so every subject computes the same sums.
 */
final class Subjects {
    static final long SEED = 42;

    static final Schema SOA = schema(RecordLayout.SOA);
    static final Schema AOS = schema(RecordLayout.AOS);

    private Subjects() {
    }

    private static Schema schema(RecordLayout layout) {
        return Schema.builder("particles").layout(layout)
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
    }

    /**
     * Prints the process's transparent huge pages ({@code AnonHugePages} of
     * {@code /proc/self/smaps_rollup}) into the fork's output after a setup, so a run whose
     * lookups are slow says whether its ranges got huge pages. Prints nothing where the file
     * does not exist (not Linux).
     */
    static void logHugePages(String what) {
        java.nio.file.Path rollup = java.nio.file.Path.of("/proc/self/smaps_rollup");
        try {
            for (String line : java.nio.file.Files.readAllLines(rollup)) {
                if (line.startsWith("AnonHugePages:")) {
                    System.out.println("# " + what + ": " + line.replaceAll("\\s+", " "));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or no such file: nothing to say
        }
    }

    /** The value of field {@code t} of record {@code i}. */
    static float t(int i) {
        return i % 1000;
    }

    /** A table of {@code n} records with {@code t}, position and velocity set; handles out. */
    static BulkTable table(Schema schema, int n, long[] handlesOut) {
        return fill(BulkTable.of(schema), n, handlesOut);
    }

    /** A packed table of {@code n} records with {@code t}, position and velocity set; handles out. */
    static PackedTable packed(Schema schema, int n, long[] handlesOut) {
        return fill(PackedTable.of(schema), n, handlesOut);
    }

    /** Adds {@code n} records to an empty table with {@code t}, position and velocity set. */
    static <T extends Table> T fill(T table, int n, long[] handlesOut) {
        Schema schema = table.schema();
        table.addAll(handlesOut, 0, n);
        FloatField t = schema.floatField("t");
        FloatField vx = schema.floatField("vx");
        FloatField vy = schema.floatField("vy");
        FloatField vz = schema.floatField("vz");
        for (int i = 0; i < n; i++) {
            long h = handlesOut[i];
            table.set(h, t, t(i));
            table.set(h, vx, 1f);
            table.set(h, vy, 2f);
            table.set(h, vz, 3f);
        }
        return table;
    }

    static Particle particle(int i) {
        Particle p = new Particle(t(i));
        p.vx = 1f;
        p.vy = 2f;
        p.vz = 3f;
        return p;
    }

    static ArrayList<Particle> arrayList(int n) {
        ArrayList<Particle> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(particle(i));
        }
        return list;
    }

    /** Keys 1..n, as a game would hand out ids. */
    static HashMap<Long, Particle> hashMap(int n) {
        HashMap<Long, Particle> map = new HashMap<>();
        for (int i = 0; i < n; i++) {
            map.put((long) i + 1, particle(i));
        }
        return map;
    }

    static Long2ObjectOpenHashMap<Particle> fastutil(int n) {
        Long2ObjectOpenHashMap<Particle> map = new Long2ObjectOpenHashMap<>();
        for (int i = 0; i < n; i++) {
            map.put((long) i + 1, particle(i));
        }
        return map;
    }

    /** {@code values} in the order of {@code shuffled(values.length, SEED)}: the lookups' order. */
    static long[] shuffled(long[] values) {
        int[] order = shuffled(values.length, SEED);
        long[] out = new long[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = values[order[i]];
        }
        return out;
    }

    /** A permutation of 0..n-1. */
    static int[] shuffled(int n, long seed) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        return order;
    }
}
