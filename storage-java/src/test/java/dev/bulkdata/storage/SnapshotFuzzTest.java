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
            if (dangling < 0 || Snapshots.remap(table, table) != 0 && impl.savedTag != impl.index.tag()) {
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
     * Writes the seed inputs: valid snapshots of both kinds (holes, retired slots, a cancelled
     * add), with each mode. Run only on demand:
     *
     * <pre>{@code
     * mvn -B -pl storage-java test -Dtest=SnapshotFuzzTest#writeSeedInputs \
     *     -Dbulkdata.fuzz.writeSeeds=$PWD/storage-java/src/test/resources/dev/bulkdata/storage
     * }</pre>
     */
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
                byte[] input = new byte[bytes.length + 1];
                input[0] = (byte) mode;
                System.arraycopy(bytes, 0, input, 1, bytes.length);
                java.nio.file.Files.write(dir.resolve("seed-" + kind.name().toLowerCase() + "-mode" + mode), input);
            }
        }
    }
}
