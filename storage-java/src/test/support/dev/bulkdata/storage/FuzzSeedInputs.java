package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes the seed inputs of the fuzz tests; a tool, run on demand, not a test. The inputs go
 * into the tests' resource directory, where every build replays them:
 *
 * <pre>{@code
 * mvn -B -pl storage-java test-compile exec:exec@fuzz-seeds      # every seed, into src/test/resources
 * mvn -B -pl storage-java test-compile exec:exec@fuzz-seeds -Dfuzz.seeds.dir=/tmp/seeds \
 *     -Dfuzz.seeds.which=storage -Dfuzz.seeds.steps=1000 -Dfuzz.seeds.perConfig=3
 * }</pre>
 *
 * <p>Arguments: the directory that holds {@code StorageFuzzTestInputs/} and
 * {@code SnapshotFuzzTestInputs/} (the package's resource directory); {@code storage},
 * {@code snapshot} or {@code all} (default); the steps of a storage seed's run (default 300);
 * the seeds per configuration (default 1). It exits with 1 if a seeded run failed (its input is
 * written to {@code StorageFuzzTestFailing/<method>/}), 2 on bad arguments.
 */
public final class FuzzSeedInputs {
    private FuzzSeedInputs() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the resource directory, then {@code storage}, {@code snapshot} or {@code all}
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        String which = args.length > 1 ? args[1] : "all";
        if (args.length < 1 || args.length > 4 || !List.of("storage", "snapshot", "all").contains(which)) {
            System.err.println("usage: FuzzSeedInputs <resource directory> [storage|snapshot|all] [steps]"
                    + " [seeds per configuration]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        int failing = 0;
        if (!which.equals("snapshot")) {
            failing = writeStorageSeeds(dir, args.length > 2 ? Integer.parseInt(args[2]) : 300,
                    args.length > 3 ? Integer.parseInt(args[3]) : 1).failing;
        }
        if (!which.equals("storage")) {
            writeSnapshotSeeds(dir);
        }
        if (failing > 0) {
            System.err.println(failing + " seeded run(s) failed; their inputs are in " + dir.resolve("StorageFuzzTestFailing"));
            System.exit(1);
        }
    }

    /** What {@link #writeStorageSeeds} wrote. */
    record Written(List<Path> files, int failing) {
    }

    /**
     * For every {@link StorageFuzzTest.Target}, configuration and seed, a seeded run of
     * {@code steps} steps recorded as the input that makes the fuzzed run take the same choices
     * ({@link Choices#recording}): passing runs to {@code <dir>/StorageFuzzTestInputs/<method>/
     * seed-<config>-<seed>}, failing runs to {@code <dir>/StorageFuzzTestFailing/<method>/} with
     * the failure printed.
     *
     * @param dir the resource directory
     * @param steps steps per run
     * @param seeds seeds per configuration
     * @return the files written and how many runs failed
     * @throws IOException if a file cannot be written
     */
    static Written writeStorageSeeds(Path dir, int steps, int seeds) throws IOException {
        List<Path> files = new ArrayList<>();
        int failing = 0;
        for (StorageFuzzTest.Target target : StorageFuzzTest.Target.values()) {
            for (int config = 0; config < target.configs; config++) {
                for (long seed = 1; seed <= seeds; seed++) {
                    Choices.Recording recording = Choices.recording(config, Choices.seeded(seed));
                    Throwable failure = outcome(target, recording, steps);
                    byte[] input = recording.input();
                    Path file = dir.resolve(failure == null ? "StorageFuzzTestInputs" : "StorageFuzzTestFailing")
                            .resolve(target.method).resolve("seed-" + config + "-" + seed);
                    Files.createDirectories(file.getParent());
                    Files.write(file, input);
                    files.add(file);
                    failing += failure == null ? 0 : 1;
                    System.out.println("[FuzzSeedInputs] " + file + " (" + input.length + " bytes)"
                            + (failure == null ? "" : " FAILS: " + failure.getMessage()));
                }
            }
        }
        return new Written(files, failing);
    }

    private static Throwable outcome(StorageFuzzTest.Target target, Choices input, int steps) {
        try {
            FuzzTags.forgetClosedTables();
            target.run(input, steps);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * The seeds of {@link SnapshotFuzzTest#load}: valid snapshots of both kinds (holes, retired
     * slots, a cancelled add), with modes 0, 1 and 7, into {@code <dir>/SnapshotFuzzTestInputs/
     * load/}; and a component table's snapshot (modes 8, 9 and 13) with its entity table beside
     * the inputs ({@value SnapshotFuzzTest#ENTITY_RESOURCE}).
     *
     * @param dir the resource directory
     * @return the files written
     * @throws IOException if a file cannot be written
     */
    static List<Path> writeSnapshotSeeds(Path dir) throws IOException {
        FuzzTags.forgetClosedTables();      // the fixed tags below: worn by an earlier call in this JVM
        Schema seedSchema = SnapshotFuzzTest.SEED_SCHEMA;
        Schema componentSchema = SnapshotFuzzTest.COMPONENT_SCHEMA;
        Path inputs = dir.resolve("SnapshotFuzzTestInputs").resolve("load");
        Files.createDirectories(inputs);
        List<Path> files = new ArrayList<>();
        int tag = HandleLayout.MAX_TAG - 7;  // minus the kind: the first table wears its tag out
        for (TableKind kind : TableKind.values()) {
            Table table = kind == TableKind.BULK
                    ? BulkTable.builder(seedSchema).handleLayout(HandleLayout.of(10, 2)).tag(tag - kind.ordinal()).build()
                    : PackedTable.builder(seedSchema).handleLayout(HandleLayout.of(10, 2)).tag(tag - kind.ordinal()).build();
            SplittableRandom random = new SplittableRandom(kind.ordinal());
            List<Long> live = new ArrayList<>();
            for (int i = 0; i < 1_500; i++) {
                if (live.isEmpty() || random.nextInt(3) > 0) {
                    try {
                        long h = table.add();
                        table.set(h, seedSchema.longField("id"), random.nextLong());
                        table.set(h, seedSchema.byteField("flag"), (byte) random.nextInt());
                        if (!live.isEmpty()) {
                            table.set(h, seedSchema.handleField("ref"), live.get(random.nextInt(live.size())));
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
                files.add(writeSeed(inputs.resolve("seed-" + kind.name().toLowerCase() + "-mode" + mode), mode, bytes));
            }
        }
        // Component seeds: a component table of an entity table with removed entities (stale
        // rows), saved beside that entity table (the resource SnapshotFuzzTest loads).
        SplittableRandom random = new SplittableRandom(3);
        try (Table entities = BulkTable.builder(SnapshotFuzzTest.ENTITY_SCHEMA).handleLayout(HandleLayout.of(12, 3))
                .build();
             ComponentTable parts = ComponentTable.of(entities, componentSchema)) {
            List<Long> live = new ArrayList<>();
            for (int i = 0; i < 1_200; i++) {
                int op = random.nextInt(4);
                if (op < 2 || live.isEmpty()) {
                    long e = entities.add();
                    live.add(e);
                    if (random.nextBoolean()) {
                        parts.add(e);
                        parts.set(e, componentSchema.intField("n"), random.nextInt());
                        parts.set(e, componentSchema.handleField("other"), live.get(random.nextInt(live.size())));
                    }
                } else if (op == 2) {
                    entities.remove(live.remove(random.nextInt(live.size())));
                } else {
                    long e = live.get(random.nextInt(live.size()));
                    if (parts.contains(e)) {
                        parts.remove(e);
                    }
                }
            }
            Path entityFile = dir.resolve(SnapshotFuzzTest.ENTITY_RESOURCE);
            Files.write(entityFile, SnapshotBytes.save(entities));
            files.add(entityFile);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Snapshots.save(parts, Channels.newChannel(out));
            for (int mode : new int[] {8, 9, 13}) {
                files.add(writeSeed(inputs.resolve("seed-components-mode" + mode), mode, out.toByteArray()));
            }
        }
        for (Path file : files) {
            System.out.println("[FuzzSeedInputs] " + file + " (" + Files.size(file) + " bytes)");
        }
        return files;
    }

    private static Path writeSeed(Path file, int mode, byte[] bytes) throws IOException {
        byte[] input = new byte[bytes.length + 1];
        input[0] = (byte) mode;
        System.arraycopy(bytes, 0, input, 1, bytes.length);
        Files.write(file, input);
        return file;
    }
}
