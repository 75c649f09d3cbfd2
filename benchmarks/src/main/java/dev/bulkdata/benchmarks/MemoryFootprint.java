package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import org.openjdk.jol.info.GraphLayout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Memory per record at 1,000,000 records for every subject: native bytes (a table's
 * {@code stats().nativeBytes()}) plus heap bytes retained by the subject's object graph
 * (JOL {@link GraphLayout}). Also bulkdata tables of 12-, 24- and 40-byte records, and the
 * entities of {@link EcsPeersBenchmark} in bulkdata and in each JVM entity library ({@link #ecs}).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.bulkdata.benchmarks.MemoryFootprint
 * [records] [out.json]}. Prints a table; writes JSON rows for {@link Report}.
 */
public final class MemoryFootprint {
    private MemoryFootprint() {
    }

    /** One measured subject. */
    record Row(String subject, int recordBytes, int records, long nativeBytes, long heapBytes) {
        double bytesPerRecord() {
            return (double) (nativeBytes + heapBytes) / records;
        }

        String json() {
            return String.format(Locale.ROOT,
                    "{\"subject\":\"%s\",\"recordBytes\":%d,\"records\":%d,\"nativeBytes\":%d,\"heapBytes\":%d}",
                    subject, recordBytes, records, nativeBytes, heapBytes);
        }
    }

    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        List<Row> rows = measure(n);
        System.out.printf(Locale.ROOT, "%-32s %7s %14s %14s %10s%n", "subject", "record", "native B", "heap B", "B/record");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "%-32s %7d %14d %14d %10.2f%n",
                    r.subject(), r.recordBytes(), r.nativeBytes(), r.heapBytes(), r.bytesPerRecord());
        }
        if (args.length > 1) {
            StringBuilder json = new StringBuilder("[\n");
            for (int i = 0; i < rows.size(); i++) {
                json.append("  ").append(rows.get(i).json()).append(i + 1 < rows.size() ? ",\n" : "\n");
            }
            Files.writeString(Path.of(args[1]), json.append("]\n"));
        }
    }

    static List<Row> measure(int n) {
        List<Row> rows = new ArrayList<>();
        rows.add(table("BulkTable SOA", Subjects.SOA, n));
        rows.add(table("BulkTable AOS", Subjects.AOS, n));
        rows.add(packed("PackedTable SOA", Subjects.SOA, n));
        for (int floats : new int[] {3, 6, 10}) {
            Schema schema = Schema.builder("r" + floats * 4).layout(RecordLayout.SOA).add(FieldType.FLOAT, names(floats)).build();
            rows.add(table("BulkTable SOA", schema, n));
            rows.add(packed("PackedTable SOA", schema, n));
        }
        float[][] columns = new float[8][n];
        rows.add(heap("float[] columns", columns, n));
        rows.add(heap("ArrayList<Particle>", Subjects.arrayList(n), n));
        rows.add(heap("HashMap<Long, Particle>", Subjects.hashMap(n), n));
        rows.add(heap("fastutil Long2ObjectOpenHashMap", Subjects.fastutil(n), n));
        rows.addAll(ecs(n));
        return rows;
    }

    /** The subject names of {@link #ecs}'s rows, bulkdata's first: the report's peers section reads them. */
    static final String ECS_BULKDATA = "ECS: bulkdata BulkTable";
    static final String ECS_ARTEMIS = "ECS: artemis-odb 2.3.0";
    static final String ECS_DOMINION = "ECS: Dominion 0.9.0";
    static final String ECS_FLEKS = "ECS: Fleks 2.12";
    static final String ECS_ASHLEY = "ECS: Ashley 1.7.4";

    /**
     * Memory per entity after creating {@code n} entities with a Position and a Velocity (six
     * floats, 24 bytes) in each library of {@link EcsPeersBenchmark}, as its setups create them:
     * for bulkdata the table's native bytes plus its heap graph, for the peers their world's heap
     * graph (what a GC would keep of it); the id arrays the benchmarks keep are counted for none.
     */
    static List<Row> ecs(int n) {
        List<Row> rows = new ArrayList<>();
        try (BulkdataEcs bulk = new BulkdataEcs(n).fill()) {
            rows.add(new Row(ECS_BULKDATA, 24, n, bulk.table.stats().nativeBytes(),
                    GraphLayout.parseInstance(bulk.table).totalSize()));
        }
        try (ArtemisEcs artemis = new ArtemisEcs(n)) {
            artemis.createArchetype(n);
            rows.add(new Row(ECS_ARTEMIS, 24, n, 0, GraphLayout.parseInstance(artemis.world).totalSize()));
        }
        try (DominionEcs dominion = new DominionEcs(n)) {
            dominion.createPrepared(n);
            rows.add(new Row(ECS_DOMINION, 24, n, 0, GraphLayout.parseInstance(dominion.world).totalSize()));
        }
        try (FleksEcs fleks = new FleksEcs(n)) {
            fleks.create(n, false);
            rows.add(new Row(ECS_FLEKS, 24, n, 0, GraphLayout.parseInstance(fleks.getWorld()).totalSize()));
        }
        AshleyEcs ashley = new AshleyEcs(n);
        ashley.create(n, false);
        rows.add(new Row(ECS_ASHLEY, 24, n, 0, GraphLayout.parseInstance(ashley.engine).totalSize()));
        return rows;
    }

    private static String[] names(int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "f" + i;
        }
        return names;
    }

    private static Row table(String subject, Schema schema, int n) {
        return measure(subject, BulkTable.of(schema), n);
    }

    private static Row packed(String subject, Schema schema, int n) {
        return measure(subject, PackedTable.of(schema), n);
    }

    private static Row measure(String subject, Table table, int n) {
        Schema schema = table.schema();
        try (table) {
            table.addAll(new long[n]);
            return new Row(subject, schema.recordBytes(), n, table.stats().nativeBytes(),
                    GraphLayout.parseInstance(table).totalSize());
        }
    }

    private static Row heap(String subject, Object root, int n) {
        return new Row(subject, 32, n, 0, GraphLayout.parseInstance(root).totalSize());
    }
}
