package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.format.FileFormat;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Fuzzes opening a mapped table's file ({@link TableBuilder#mapped(Path)}): the input is a mode
 * byte and a list of patches, each 5 bytes (a 4-byte file offset, taken modulo the file's
 * length, and the byte to write there), applied to a valid file made once per JVM: a mapped
 * {@link BulkTable} (mode bit 1 clear) or {@link PackedTable} (set) after a seeded run of adds,
 * removals, sets and three checkpoints, so that both header slots, both metadata areas, a free
 * list and the regions hold real data. Mode bit 0 recomputes the checksums of both header
 * slots and their metadata after patching, so that mutations reach the checks behind them.
 * Committed inputs: {@code src/test/resources/dev/bulkdata/storage/MappedFuzzTestInputs/open/}.
 *
 * <p>Every input must end in one of two ways: a {@link StorageFileException} naming the file, or
 * a table that passes its invariant audit, takes adds, removals and a checkpoint, and reopens
 * to an equal table. Either way the file is then neither locked nor mapped: the pristine file
 * written to the same path opens again. Anything else (another exception, an
 * {@code OutOfMemoryError}, a crash) is a failure.
 */
class MappedFuzzTest {
    static final String CI_BUDGET = "10s";
    static final Schema SCHEMA = Schema.builder("mappedFuzz").add(FieldType.LONG, "id").add(FieldType.FLOAT, "x")
            .add(FieldType.BYTE, "flag").build();
    private static final int BULK_TAG = 3990;
    private static final int PACKED_TAG = 3991;

    /** The pristine files, made once per JVM. */
    private static final class Pristine {
        static final Path DIR = tempDir();
        static final byte[] BULK = make(false);
        static final byte[] PACKED = make(true);

        private static Path tempDir() {
            try {
                Path dir = Files.createTempDirectory("mapped-fuzz");
                dir.toFile().deleteOnExit();
                return dir;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static byte[] make(boolean packed) {
            Path file = DIR.resolve(packed ? "pristine-packed.bulk" : "pristine-bulk.bulk");
            try (MappedTable t = open(file, packed)) {
                FloatField x = SCHEMA.floatField("x");
                LongField id = SCHEMA.longField("id");
                java.util.SplittableRandom random = new java.util.SplittableRandom(packed ? 7 : 5);
                java.util.List<Long> live = new java.util.ArrayList<>();
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < 700; i++) {
                        long h = t.add();
                        t.set(h, id, random.nextLong());
                        t.set(h, x, random.nextInt(1000));
                        live.add(h);
                    }
                    for (int i = 0; i < 250; i++) {
                        t.remove(live.remove(random.nextInt(live.size())));
                    }
                    t.checkpoint();
                }
                t.remove(live.remove(0));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                byte[] bytes = Files.readAllBytes(file);
                Files.delete(file);
                return bytes;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static MappedTable open(Path file, boolean packed) throws IOException {
        return packed ? PackedTable.builder(SCHEMA).tag(PACKED_TAG).mapped(file)
                : BulkTable.builder(SCHEMA).tag(BULK_TAG).mapped(file);
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void open(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        int mode = input[0];
        boolean packed = (mode & 2) != 0;
        byte[] pristine = packed ? Pristine.PACKED : Pristine.BULK;
        byte[] file = pristine.clone();
        for (int at = 1; at + 5 <= input.length; at += 5) {
            int offset = ByteBuffer.wrap(input, at, 4).getInt() & Integer.MAX_VALUE;
            file[offset % file.length] = input[at + 4];
        }
        if ((mode & 1) != 0) {
            reseal(file);
        }
        Path path = Pristine.DIR.resolve(packed ? "fuzzed-packed.bulk" : "fuzzed-bulk.bulk");
        Files.write(path, file);
        MappedTable table = null;
        try {
            table = open(path, packed);
        } catch (StorageFileException e) {
            if (!e.getMessage().contains(path.toString()) || e.reason() == null) {
                throw new AssertionError("unclear message: " + e.getMessage(), e);
            }
        }
        if (table != null) {
            TableSnapshot before;
            try (MappedTable t = table) {
                TableAudit.check(t);
                long h = t.add();
                t.set(h, SCHEMA.floatField("x"), 1f);
                t.remove(h);
                t.checkpoint();
                TableAudit.check(t);
                before = TableSnapshot.of(t);
            }
            try (Table again = open(path, packed)) {
                TableSnapshot after = TableSnapshot.of(again);
                if (!after.equals(before)) {
                    throw new AssertionError("a reopened table differs:\n" + before + "\n" + after);
                }
            }
        }
        // Neither locked nor mapped any more: the pristine file at the same path opens again.
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.WRITE)) {
            FileLock lock = c.tryLock();
            if (lock == null) {
                throw new AssertionError("the file is still locked");
            }
            lock.release();
        }
        Files.write(path, pristine);
        try (MappedTable t = open(path, packed)) {
            TableAudit.check(t);
        }
    }

    /**
     * Recomputes, in both header slots of a mapped table's file, the metadata's CRC32C (where
     * the header's offset and length lie in the file) and the header's own.
     */
    static void reseal(byte[] file) {
        for (int slot : new int[] {0, FileFormat.SLOT_B}) {
            if (file.length < slot + FileFormat.HEADER_BYTES) {
                continue;
            }
            ByteBuffer h = ByteBuffer.wrap(file, slot, FileFormat.HEADER_BYTES).slice().order(ByteOrder.nativeOrder());
            long length = h.getLong(FileFormat.AT_META_LENGTH);
            long offset = h.getLong(FileFormat.AT_METADATA_OFFSET);
            if (offset >= 0 && length >= 0 && offset + length <= file.length) {
                CRC32C crc = new CRC32C();
                crc.update(file, (int) offset, (int) length);
                h.putInt(FileFormat.AT_META_CRC, (int) crc.getValue());
            }
            h.putInt(FileFormat.AT_HEADER_CRC, 0);
            CRC32C crc = new CRC32C();
            crc.update(file, slot, FileFormat.HEADER_BYTES);
            h.putInt(FileFormat.AT_HEADER_CRC, (int) crc.getValue());
        }
    }
}
