package dev.bulkdata.storage;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.util.Arrays;

/**
 * Fuzzes {@link Snapshots#load}: the input is a mode byte and a snapshot's bytes, which Jazzer
 * mutates from the committed seeds (valid snapshots of both kinds, under
 * {@code src/test/resources/dev/bulkdata/storage/SnapshotFuzzTestInputs/load/}). Mode bit 0
 * recomputes every CRC32C first ({@link SnapshotBytes#reseal}), so that mutations reach the
 * checks behind the checksums; bit 1 loads under a new tag; bit 2 expects the seeds' schema.
 *
 * <p>Mode bit 3 makes the bytes a component table's snapshot instead, loaded for the entity
 * table it was saved with (a committed resource, loaded once under a new tag); its seeds are
 * {@code seed-components-mode*}.
 *
 * <p>A loaded table's handle field {@code ref} (aimed at its own table) is checked with
 * {@link Snapshots#danglingReferences} and remapped ({@link Snapshots#remap}), once.
 *
 * <p>Every input must end in one of two ways: a {@link SnapshotException} (or a
 * {@link CapacityExceededException} when no tag is left for a new-tag load), or a table that
 * passes its invariant audit, takes adds and removes, and saves and loads again to an equal
 * table. Anything else (another exception, an {@code OutOfMemoryError}, a crash) is a failure.
 */
class SnapshotFuzzTest {
    static final String CI_BUDGET = "10s";
    static final Schema SEED_SCHEMA = Schema.builder("fuzzed").add(FieldType.LONG, "id").add(FieldType.FLOAT, "x")
            .add(FieldType.BYTE, "flag").addHandle("ref", "fuzzed").build();

    /** The component seeds' schema: their records refer to the entities through a handle field too. */
    static final Schema COMPONENT_SCHEMA = Schema.builder("fuzzedParts").add(FieldType.INT, "n")
            .addHandle("other", "fuzzedEntities").build();
    static final Schema ENTITY_SCHEMA = Schema.builder("fuzzedEntities").add(FieldType.INT, "k").build();
    /** The committed entity table the component seeds were saved with (resource beside the inputs). */
    static final String ENTITY_RESOURCE = "SnapshotFuzzEntities.bulk";

    /** The entity table of the component seeds, loaded once per JVM under a new tag (so generations may move). */
    private static final class Entities {
        static final Table TABLE = loadEntities();

        private static Table loadEntities() {
            try (var in = SnapshotFuzzTest.class.getResourceAsStream(ENTITY_RESOURCE)) {
                return Snapshots.load(java.nio.channels.Channels.newChannel(in), ENTITY_RESOURCE, Table.class,
                        ENTITY_SCHEMA, Snapshots.LoadOption.NEW_TAG);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void load(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        int mode = input[0];
        byte[] file = Arrays.copyOfRange(input, 1, input.length);
        if ((mode & 1) != 0) {
            SnapshotBytes.reseal(file);
        }
        if ((mode & 8) != 0) {
            loadComponents(file, (mode & 4) != 0 ? COMPONENT_SCHEMA : null);
            return;
        }
        Snapshots.LoadOption[] options = (mode & 2) != 0
                ? new Snapshots.LoadOption[] {Snapshots.LoadOption.NEW_TAG} : new Snapshots.LoadOption[0];
        Table table;
        try {
            table = SnapshotBytes.load(file, (mode & 4) != 0 ? SEED_SCHEMA : null, options);
        } catch (SnapshotException e) {
            if (!e.getMessage().startsWith("snapshot bytes: ") || e.reason() == null) {
                throw new AssertionError("unclear message: " + e.getMessage(), e);
            }
            return;
        } catch (CapacityExceededException e) {
            return;
        }
        try (table) {
            AbstractTable impl = (AbstractTable) table;
            impl.checkInvariants();
            // References among its own records: counted, and remapped after a new-tag load.
            long dangling = Snapshots.danglingReferences(table, table);
            Snapshots.remap(table, table);
            if (dangling < 0 || Snapshots.remap(table, table) != 0) {
                throw new AssertionError("dangling " + dangling + ", or a second remap moved references again");
            }
            TableSnapshot before = TableSnapshot.of(table);
            byte[] again = SnapshotBytes.save(table);
            table.close();
            try (Table reloaded = SnapshotBytes.load(again, table.schema())) {
                TableSnapshot after = TableSnapshot.of(reloaded);
                if (!after.equals(before)) {
                    throw new AssertionError("a loaded table saved and loaded again differs:\n" + before + "\n" + after);
                }
                long[] added = new long[3];
                try {
                    reloaded.addAll(added);
                    reloaded.remove(added[1]);
                } catch (CapacityExceededException full) {
                    // a loaded table may well be full
                }
                ((AbstractTable) reloaded).checkInvariants();
            }
        }
    }

    /**
     * Mode bit 3: the bytes are a component table's snapshot, loaded for {@link Entities}. It
     * must fail with a {@link SnapshotException}, or give a table that passes its audit, whose
     * live components all have live entities' handles, and that saves and loads again equal.
     */
    private static void loadComponents(byte[] file, Schema expected) throws IOException {
        Table entities = Entities.TABLE;
        ComponentTable c;
        try {
            c = Snapshots.loadComponents(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(file)),
                    "bytes", entities, expected);
        } catch (SnapshotException e) {
            if (!e.getMessage().startsWith("snapshot bytes: ") || e.reason() == null) {
                throw new AssertionError("unclear message: " + e.getMessage(), e);
            }
            return;
        }
        try (c) {
            c.checkInvariants();
            java.util.List<String> before = rows(c);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            Snapshots.save(c, java.nio.channels.Channels.newChannel(out));
            Snapshots.danglingReferences(c, entities);
            try (ComponentTable again = Snapshots.loadComponents(java.nio.channels.Channels.newChannel(
                    new java.io.ByteArrayInputStream(out.toByteArray())), "again", entities, c.schema())) {
                if (!rows(again).equals(before)) {
                    throw new AssertionError("a loaded component table saved and loaded again differs");
                }
                again.removeDead();
                again.defragment(100);
                again.checkInvariants();
            }
        }
    }

    private static java.util.List<String> rows(ComponentTable c) {
        java.util.List<String> rows = new java.util.ArrayList<>();
        for (int row = 0; row < c.size(); row++) {
            StringBuilder sb = new StringBuilder(Long.toHexString(c.entityAt(row)));
            for (Field f : c.schema().fields()) {
                sb.append(' ').append(Values.getAt(c, row, f));
            }
            rows.add(sb.toString());
        }
        return rows;
    }

    /**
     * Writes the seed inputs: valid snapshots of both kinds (holes, retired slots, a cancelled
     * add), with each mode. Run only on demand:
     *
     * <pre>{@code
     * mvn -B -pl storage-java test -Dtest=SnapshotFuzzTest#writeSeedInputs \
     *     -Dbulkdata.fuzz.writeSeeds=$PWD/storage-java/src/test/resources/dev/bulkdata/storage
     * }</pre>
     */
    private static void writeSeed(java.nio.file.Path file, int mode, byte[] bytes) throws IOException {
        byte[] input = new byte[bytes.length + 1];
        input[0] = (byte) mode;
        System.arraycopy(bytes, 0, input, 1, bytes.length);
        java.nio.file.Files.write(file, input);
    }

    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "bulkdata.fuzz.writeSeeds", matches = ".+")
    void writeSeedInputs() throws IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(System.getProperty("bulkdata.fuzz.writeSeeds"))
                .resolve("SnapshotFuzzTestInputs").resolve("load");
        java.nio.file.Files.createDirectories(dir);
        int tag = HandleLayout.MAX_TAG - 7;  // minus the kind: the first table wears its tag out
        for (TableKind kind : TableKind.values()) {
            Table table = kind == TableKind.BULK
                    ? BulkTable.builder(SEED_SCHEMA).handleLayout(HandleLayout.of(10, 2)).tag(tag - kind.ordinal()).build()
                    : PackedTable.builder(SEED_SCHEMA).handleLayout(HandleLayout.of(10, 2)).tag(tag - kind.ordinal()).build();
            java.util.SplittableRandom random = new java.util.SplittableRandom(kind.ordinal());
            java.util.List<Long> live = new java.util.ArrayList<>();
            for (int i = 0; i < 1_500; i++) {
                if (live.isEmpty() || random.nextInt(3) > 0) {
                    try {
                        long h = table.add();
                        table.set(h, SEED_SCHEMA.longField("id"), random.nextLong());
                        table.set(h, SEED_SCHEMA.byteField("flag"), (byte) random.nextInt());
                        if (!live.isEmpty()) {
                            table.set(h, SEED_SCHEMA.handleField("ref"), live.get(random.nextInt(live.size())));
                        }
                        live.add(h);
                    } catch (CapacityExceededException full) {
                        break;
                    }
                } else {
                    table.remove(live.remove(random.nextInt(live.size())));
                }
            }
            table.cancelAdd(table.add());
            byte[] bytes = SnapshotBytes.save(table);
            table.close();
            for (int mode : new int[] {0, 1, 7}) {
                writeSeed(dir.resolve("seed-" + kind.name().toLowerCase() + "-mode" + mode), mode, bytes);
            }
        }
        // Component seeds: a component table of an entity table with removed entities (stale
        // rows), saved beside that entity table (the resource Entities loads).
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        try (Table entities = BulkTable.builder(ENTITY_SCHEMA).handleLayout(HandleLayout.of(12, 3)).build();
             ComponentTable parts = ComponentTable.of(entities, COMPONENT_SCHEMA)) {
            java.util.List<Long> live = new java.util.ArrayList<>();
            for (int i = 0; i < 1_200; i++) {
                int op = random.nextInt(4);
                if (op < 2 || live.isEmpty()) {
                    long e = entities.add();
                    live.add(e);
                    if (random.nextBoolean()) {
                        parts.add(e);
                        parts.set(e, COMPONENT_SCHEMA.intField("n"), random.nextInt());
                        parts.set(e, COMPONENT_SCHEMA.handleField("other"), live.get(random.nextInt(live.size())));
                    }
                } else if (op == 2) {
                    entities.remove(live.remove(random.nextInt(live.size())));
                } else {
                    long e = live.get(random.nextInt(live.size()));
                    if (parts.has(e)) {
                        parts.remove(e);
                    }
                }
            }
            java.nio.file.Files.write(dir.getParent().getParent().resolve(ENTITY_RESOURCE), SnapshotBytes.save(entities));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            Snapshots.save(parts, java.nio.channels.Channels.newChannel(out));
            for (int mode : new int[] {8, 9, 13}) {
                writeSeed(dir.resolve("seed-components-mode" + mode), mode, out.toByteArray());
            }
        }
    }
}
