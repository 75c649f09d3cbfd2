package dev.bulkdata.storage.kotlin;

import dev.bulkdata.storage.schema.StorageFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Plain Java catches what the Kotlin layer's file operations throw. A Kotlin function declares
 * no checked exception unless it says {@code @Throws}, and javac rejects a {@code catch} of a
 * checked exception that the call cannot throw: this class compiles only while {@code load},
 * {@code loadComponents}, {@code open(file)}, both {@code save}s and {@code checkpoint} declare
 * {@link IOException} (of which {@link StorageFileException} is one), and while {@code open()}
 * of an in-memory table declares none (it is called outside any {@code try}).
 */
class CheckedExceptionsFromJavaTest {
    @Test
    void loadOfABadFile_isCaughtAsAStorageFileException(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.bulk"), "not a snapshot");
        try {
            Bullets.INSTANCE.load(bad).close();
            fail("loaded a file that is no snapshot");
        } catch (StorageFileException e) {
            assertEquals(StorageFileException.Reason.NOT_A_SNAPSHOT, e.reason());
            assertTrue(e.getMessage().contains(bad.toString()), e.getMessage());
        }
        try {
            Bullets.INSTANCE.load(dir.resolve("absent.bulk")).close();
            fail("loaded a file that does not exist");
        } catch (NoSuchFileException e) {
            assertTrue(e.getMessage().contains("absent.bulk"), e.getMessage());
        } catch (IOException e) {
            fail("an absent file should be NoSuchFileException: " + e);
        }
    }

    @Test
    void loadComponentsOfABadFile_isCaughtAsAStorageFileException(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(dir.resolve("bad-components.bulk"), "not a snapshot either");
        try (TypedTable<Particles> entities = Particles.openTable()) {
            try {
                Position.INSTANCE.loadComponents(bad, entities).close();
                fail("loaded a file that is no snapshot");
            } catch (StorageFileException e) {
                assertEquals(StorageFileException.Reason.NOT_A_SNAPSHOT, e.reason());
            }
        }
    }

    @Test
    void saveIntoAMissingDirectory_isCaughtAsAnIOException(@TempDir Path dir) {
        Path nowhere = dir.resolve("no-such-directory").resolve("table.bulk");
        try (TypedTable<Particles> entities = Particles.openTable();
             TypedComponentTable<Particles, Position> positions = Position.INSTANCE.openComponents(entities)) {
            positions.core().add(entities.add());
            try {
                entities.save(nowhere);
                fail("saved into a directory that does not exist");
            } catch (IOException e) {
                assertTrue(e.getMessage().contains("no-such-directory"), e.getMessage());
            }
            try {
                positions.save(nowhere);
                fail("saved into a directory that does not exist");
            } catch (IOException e) {
                assertTrue(e.getMessage().contains("no-such-directory"), e.getMessage());
            }
        }
    }

    @Test
    void openOfABadMappedFile_isCaughtAsAStorageFileException_andOpenAndCheckpointDeclareIOException(@TempDir Path dir)
            throws IOException {
        Path bad = Files.writeString(dir.resolve("bad-mapped.bulk"), "not a mapped table's file, and long enough"
                + " not to be taken for an empty one".repeat(200));
        try {
            MappedShips.INSTANCE.open(bad).close();
            fail("opened a file that is no mapped table's file");
        } catch (StorageFileException e) {
            assertTrue(e.getMessage().contains(bad.toString()), e.getMessage());
        }
        Path good = dir.resolve("mapped.bulk");
        try (TypedMappedTable<MappedShips> mapped = MappedShips.INSTANCE.open(good)) {
            mapped.add();
            mapped.checkpoint();
        } catch (IOException e) {
            fail("a new mapped file in a temporary directory: " + e);
        }
        try (TypedTable<MappedShips> reopened = MappedShips.INSTANCE.open(good)) {
            assertEquals(1, reopened.size());
        } catch (IOException e) {
            fail("reopening the file: " + e);
        }
    }

    /** An in-memory table opens from Java with no try/catch: {@code open()} declares no checked exception. */
    @Test
    void openingAnInMemoryTable_needsNoTry() {
        TypedTable<Bullets> plain = Bullets.INSTANCE.open();
        assertEquals(0, plain.size());
        plain.close();
    }
}
