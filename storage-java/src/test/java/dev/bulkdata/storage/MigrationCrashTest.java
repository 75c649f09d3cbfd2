package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mapped file's migration to another schema ({@link TableBuilder#mapped}, "Schema changes")
 * killed at random moments: a child JVM reopens a file of schema v1 under v2, which migrates
 * it, and is killed ({@link Process#destroyForcibly()}, SIGKILL on Linux) after a random delay
 * up to the length of a whole run. The file must then be either exactly the v1 file (every byte)
 * or the migrated one, complete; either way a v2 open gives every record. The seed is
 * {@code -Dbulkdata.seed} or a fixed one, printed.
 */
class MigrationCrashTest {
    static final int TAG = 4030;
    static final int RECORDS = 300_000;

    @TempDir
    Path dir;

    static Schema v1() {
        return Schema.builder("migrating").add(FieldType.INT, "id").add(FieldType.DOUBLE, "x").build();
    }

    static Schema v2() {
        return Schema.builder("migrating").layout(RecordLayout.AOS).add(FieldType.DOUBLE, "x")
                .add(FieldType.SHORT, "level").loadDefault("level", 7).add(FieldType.INT, "id").build();
    }

    /** The child: reopens the file under v2 (a migration), closes it, says so. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            try (MappedBulkTable t = BulkTable.builder(v2()).tag(TAG).mapped(Path.of(args[0]))) {
                System.out.println("OPENED " + t.size());
            }
            System.out.println("CLOSED");
        }
    }

    @Test
    void killedDuringAMigration_leavesTheOldFileOrTheMigratedOne() throws Exception {
        long seed = Seeds.seed("MigrationCrashTest", 0x316A_7E00L);
        SplittableRandom random = new SplittableRandom(seed);
        Path pristine = dir.resolve("pristine.bulk");
        long[] hs = new long[RECORDS];
        try (MappedBulkTable t = BulkTable.builder(v1()).tag(TAG).mapped(pristine)) {
            t.addAll(hs);
            Schema s = t.schema();
            for (int i = 0; i < RECORDS; i++) {
                t.set(hs[i], s.intField("id"), i);
                t.set(hs[i], s.doubleField("x"), i / 2.0);
            }
            for (int i = 0; i < RECORDS; i += 7) {
                t.remove(hs[i]);
            }
        }
        byte[] before = Files.readAllBytes(pristine);
        Path file = dir.resolve("work.bulk");
        // Round 0 runs to the end and measures how long a run takes; the others are killed within that.
        long runNanos = 0;
        int untouched = 0;
        int migrated = 0;
        int midway = 0;
        for (int round = 0; round < 8; round++) {
            Files.copy(pristine, file, StandardCopyOption.REPLACE_EXISTING);
            Path log = dir.resolve("child-" + round + ".log");
            long start = System.nanoTime();
            Process child = ChildJvm.start(Child.class, "-Xmx256m", log, file.toString());
            if (round == 0) {
                assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child did not finish");
                runNanos = System.nanoTime() - start;
                assertTrue(Files.readString(log).contains("CLOSED"), Files.readString(log));
            } else {
                Thread.sleep(random.nextLong(runNanos / 1_000_000 + 1));
                child.destroyForcibly().waitFor();
                midway += Files.exists(dir.resolve("work.bulk.migrating")) ? 1 : 0;   // killed while it wrote
            }
            String what = Seeds.replay(seed) + ", round " + round;
            boolean wasMigrated;
            try (MappedBulkTable t = BulkTable.builder(v2()).tag(TAG).exactSchema(true).mapped(file)) {
                wasMigrated = true;
                check(t, hs, what + ", migrated");
            } catch (StorageFileException e) {
                assertEquals(Reason.SCHEMA_MISMATCH, e.reason(), what + ": " + e.getMessage());
                wasMigrated = false;
                assertArrayEquals(before, Files.readAllBytes(file), what + ": the old file changed");
            }
            if (wasMigrated) {
                migrated++;
            } else {
                untouched++;
                try (MappedBulkTable t = BulkTable.builder(v2()).tag(TAG).mapped(file)) {   // migrates now
                    assertTrue(t.openedCheckpoint().detail().contains("migrated"), t.openedCheckpoint().detail());
                    check(t, hs, what + ", migrated after the crash");
                }
            }
            assertFalse(Files.exists(dir.resolve("work.bulk.migrating")), what + ": a migration file was left");
        }
        System.out.println("[MigrationCrashTest] " + Seeds.replay(seed) + ": " + untouched + " kills left the old"
                + " file (" + midway + " while the new file was written), " + migrated + " runs the migrated one (a run takes "
                + runNanos / 1_000_000 + " ms)");
        assertTrue(migrated >= 1 && untouched + migrated == 8);
    }

    private static void check(BulkTable t, long[] hs, String what) {
        Schema s = t.schema();
        assertEquals(RECORDS - (RECORDS + 6) / 7, t.size(), what);
        for (int i = 0; i < RECORDS; i++) {
            if (i % 7 == 0) {
                assertFalse(t.contains(hs[i]), what);
                continue;
            }
            assertEquals(i, t.get(hs[i], s.intField("id")), what);
            assertEquals(i / 2.0, t.get(hs[i], s.doubleField("x")), what);
            assertEquals(7, t.get(hs[i], s.shortField("level")), what);
        }
        TableAudit.check(t);
    }
}
