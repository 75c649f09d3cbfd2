package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test harness checks what it claims: seeds repeat, a recorded fuzz finding fails the build,
 * the snapshot fuzz target accepts a {@link CapacityExceededException} only for a file that asks
 * for more than there is, and the seed-input writer is a tool whose output replays.
 */
class FuzzHarnessTest {
    private static final Path RESOURCES = Path.of("src/test/resources/dev/bulkdata/storage");

    @Test
    void seeds_comeFromTheProperty_decimalOrHex_elseTheFixedOne() {
        String before = System.getProperty(Seeds.PROPERTY);
        try {
            System.clearProperty(Seeds.PROPERTY);
            assertEquals(42, Seeds.fromProperty(42));
            System.setProperty(Seeds.PROPERTY, " 12345 ");
            assertEquals(12345, Seeds.fromProperty(42));
            System.setProperty(Seeds.PROPERTY, "0xFFFFFFFFFFFFFFFF");
            assertEquals(-1, Seeds.fromProperty(42));
            System.setProperty(Seeds.PROPERTY, "twelve");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Seeds.fromProperty(42));
            assertTrue(e.getMessage().contains("-Dbulkdata.seed=twelve"), e.getMessage());
            assertEquals("seed 7 (replay with -Dbulkdata.seed=7)", Seeds.replay(7));
        } finally {
            if (before == null) {
                System.clearProperty(Seeds.PROPERTY);
            } else {
                System.setProperty(Seeds.PROPERTY, before);
            }
        }
    }

    /** No test of any module seeds a random source from nothing or the clock: every run repeats. */
    @Test
    void noTestSourceSeedsItsRandomnessFromTheClockOrFromNothing() throws IOException {
        Pattern unseeded = Pattern.compile("new (Splittable)?Random\\(\\s*\\)|ThreadLocalRandom|"
                + "Random\\(\\s*System\\.(nanoTime|currentTimeMillis)|getLong\\(\"[^\"]*seed[^\"]*\",\\s*System\\.");
        List<String> found = new ArrayList<>();
        Path root = Path.of("..").toAbsolutePath().normalize();
        for (String module : List.of("storage-java", "storage-kotlin", "storage-vector", "storage-arrow", "samples")) {
            Path tests = root.resolve(module).resolve("src/test");
            if (!Files.isDirectory(tests)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(tests)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".kt")).toList()) {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (unseeded.matcher(lines.get(i)).find() && !f.endsWith("FuzzHarnessTest.java")) {
                            found.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "take the seed from Seeds.seed (a fixed default, -Dbulkdata.seed to change it)");
    }

    @Test
    void aRecordedFinding_failsTheCheck_naming_itsTargetAndHowToReplayIt(@TempDir Path root) throws IOException {
        assertEquals(List.of(), FuzzFindingsTest.recorded(root.resolve("absent"), FuzzFindingsTest.FINDINGS));
        Path method = Files.createDirectories(root.resolve("StorageFuzzTest").resolve("bulkTable"));
        Files.createDirectories(method.resolve(".cifuzz-corpus").resolve("dev.bulkdata.storage.StorageFuzzTest"));
        Files.write(method.resolve(".cifuzz-corpus").resolve("dev.bulkdata.storage.StorageFuzzTest")
                .resolve("crash-0000"), new byte[1]);                  // a corpus entry, however named
        Files.write(method.resolve("slow-unit-1111"), new byte[3]);
        assertEquals(List.of(), FuzzFindingsTest.recorded(root, FuzzFindingsTest.FINDINGS), "corpus and slow units");
        for (String prefix : FuzzFindingsTest.FINDINGS) {
            Files.write(method.resolve(prefix + "6b79"), new byte[5]);
        }
        List<Path> findings = FuzzFindingsTest.recorded(root, FuzzFindingsTest.FINDINGS);
        assertEquals(4, findings.size(), findings.toString());
        String message = FuzzFindingsTest.describe(root, findings);
        assertTrue(message.startsWith("4 fuzzing finding(s) recorded under " + root), message);
        assertTrue(message.contains("crash-6b79 (5 bytes): StorageFuzzTest#bulkTable"), message);
        assertTrue(message.contains("StorageFuzzTestInputs/bulkTable/") && message.contains("-Dtest=StorageFuzzTest"),
                message);
    }

    @Test
    void theSnapshotTarget_acceptsCapacityExceeded_onlyForAFileThatAsksForMoreThanThereIs() {
        String newTag = "cannot load table 'fuzzed' under a new tag: every free automatic tag has been used so much";
        assertDoesNotThrow(() -> SnapshotFuzzTest.checkCapacityExceeded(new CapacityExceededException(newTag), true));
        assertThrows(AssertionError.class,
                () -> SnapshotFuzzTest.checkCapacityExceeded(new CapacityExceededException(newTag), false));
        assertThrows(AssertionError.class, () -> SnapshotFuzzTest.checkCapacityExceeded(
                new CapacityExceededException("table 'fuzzed' is full: 1 record(s) requested"), true));
        String memory = "table 'fuzzed' could not allocate 16 blocks (%d bytes of native memory); it holds %d bytes in"
                + " blocks";
        OutOfMemoryError oom = new OutOfMemoryError("Cannot reserve direct memory");
        assertDoesNotThrow(() -> SnapshotFuzzTest.checkCapacityExceeded(new CapacityExceededException(
                memory.formatted(1L << 50, 1L << 30), oom), false), "a petabyte: more than any machine here has");
        AssertionError small = assertThrows(AssertionError.class, () -> SnapshotFuzzTest.checkCapacityExceeded(
                new CapacityExceededException(memory.formatted(262_144, 0), oom), false));
        assertTrue(small.getMessage().contains("asking for 262144 bytes"), small.getMessage());
    }

    /**
     * The seed writer is a tool ({@link FuzzSeedInputs#main}), not a test: it writes a passing
     * seeded run per target and configuration (every committed storage seed among them, by
     * name), and snapshot seeds that load.
     */
    @Test
    void theSeedWriter_writesTheCommittedSeedsNames_fromPassingRuns_andSnapshotSeedsThatLoad(@TempDir Path dir)
            throws IOException {
        FuzzSeedInputs.Written storage = FuzzSeedInputs.writeStorageSeeds(dir, 300, 1);
        assertEquals(0, storage.failing(), "every seeded run passes");
        int expected = Arrays.stream(StorageFuzzTest.Target.values()).mapToInt(t -> t.configs).sum();
        assertEquals(expected, storage.files().size());
        for (Path written : storage.files()) {
            assertTrue(Files.size(written) > 300, written + ": " + Files.size(written) + " bytes for 300 steps");
        }
        try (Stream<Path> committed = Files.walk(RESOURCES.resolve("StorageFuzzTestInputs"))) {
            List<Path> seeds = committed.filter(p -> p.getFileName().toString().startsWith("seed-")).toList();
            assertTrue(seeds.size() > 20, seeds.toString());
            for (Path seed : seeds) {
                assertTrue(storage.files().contains(dir.resolve(RESOURCES.relativize(seed))), "not written: " + seed);
            }
        }
        List<Path> snapshots = FuzzSeedInputs.writeSnapshotSeeds(dir);
        assertEquals(10, snapshots.size(), snapshots.toString());
        for (Path seed : snapshots) {
            if (!seed.getFileName().toString().startsWith("seed-") || seed.toString().contains("components")) {
                continue;
            }
            byte[] input = Files.readAllBytes(seed);
            FuzzTags.forgetClosedTables();
            try (Table loaded = SnapshotBytes.load(Arrays.copyOfRange(input, 1, input.length), null,
                    Snapshots.LoadOption.NEW_TAG)) {
                assertTrue(loaded.size() > 100, seed + ": " + loaded.size() + " records");
            }
        }
    }
}
