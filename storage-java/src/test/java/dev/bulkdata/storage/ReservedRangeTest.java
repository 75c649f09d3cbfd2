package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.AddressSpace;
import dev.bulkdata.storage.internal.memory.BlockArena;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A table's blocks in one reserved range ({@link AddressSpace}): where the module has native
 * access (this suite runs with it) on Linux, block {@code b} of a table is at byte
 * {@code b * 16 KiB} of one range that lookups by handle read from; without native access
 * (a child JVM on the class path) the same tables allocate their blocks one by one, print no
 * warning, and behave the same.
 */
class ReservedRangeTest {
    private static boolean linux() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
    }

    @Test
    void everyBlockOfABulkTableLiesInTheReservedRange() {
        assumeTrue(linux(), "reservations are made on Linux only");
        assertTrue(AddressSpace.AVAILABLE, "this suite runs with --enable-native-access=dev.bulkdata.storage");
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        FloatField t = schema.floatField("t");
        try (BulkTable table = BulkTable.of(schema)) {
            int n = 5 * schema.slotsPerBlock() + 7;
            long[] handles = new long[n];
            for (int i = 0; i < n; i++) {
                handles[i] = table.add();
                table.set(handles[i], t, i);
            }
            BulkTableImpl impl = (BulkTableImpl) table;
            assertNotNull(impl.region, "the first block reserved the table's range");
            assertTrue(impl.regionRecords > n, "records in the range: " + impl.regionRecords);
            for (int b = 0; b < impl.blockCount(); b++) {
                assertEquals(impl.region.address() + ((long) b << BlockArena.BLOCK_SHIFT), impl.segments[b].address(),
                        "block " + b);
            }
            // Writes by handle land where the chunk views read, and the other way round.
            table.forEachChunk(chunk -> {
                for (int s = 0; s < chunk.slotCount(); s++) {
                    if (chunk.isLive(s)) {
                        chunk.set(s, t, chunk.get(s, t) + 0.5f);
                    }
                }
            });
            for (int i = 0; i < n; i++) {
                assertEquals(i + 0.5f, table.get(handles[i], t), "record " + i);
            }
        }
    }

    @Test
    void packedRowsLieInTheReservedRange() {
        assumeTrue(linux());
        Schema schema = TestSchemas.mixed(RecordLayout.AOS);
        LongField l = schema.longField("l");
        try (PackedTable table = PackedTable.of(schema)) {
            int n = 10 * schema.slotsPerBlock() + 3;
            long[] handles = new long[n];
            for (int i = 0; i < n; i++) {
                handles[i] = table.add();
                table.set(handles[i], l, 1000L + i);
            }
            for (int i = 0; i < n; i += 3) {
                table.remove(handles[i]); // moves the last rows into the holes
            }
            PackedTableImpl impl = (PackedTableImpl) table;
            assertNotNull(impl.region);
            for (int i = 0; i < n; i++) {
                if (i % 3 != 0) {
                    assertEquals(1000L + i, table.get(handles[i], l), "record " + i);
                }
            }
        }
    }

    @Test
    void aClosedTableRefusesLookupsWithoutReadingItsUnmappedRange() {
        assumeTrue(linux());
        Schema schema = TestSchemas.particles(RecordLayout.AOS);
        FloatField t = schema.floatField("t");
        BulkTable table = BulkTable.of(schema);
        long handle = table.add();
        table.set(handle, t, 2f);
        MemorySegment block = ((BulkTableImpl) table).region;
        table.close();
        assertThrows(IllegalStateException.class, () -> table.get(handle, t));
        assertThrows(IllegalStateException.class, () -> block.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, 0),
                "the range is unmapped with the table's arena");
    }

    @Test
    void aLargeTableAsksForHugePages() throws IOException {
        assumeTrue(linux() && Files.isReadable(Path.of("/proc/self/smaps")));
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        try (BulkTable table = BulkTable.of(schema)) {
            table.addAll(new long[200 * schema.slotsPerBlock()]); // 200 blocks: 3.1 MiB
            long base = ((BulkTableImpl) table).region.address();
            String flags = vmFlags(base);
            assertTrue(flags.contains(" hg"), "VmFlags of the range at 0x" + Long.toHexString(base) + ":" + flags);
        }
    }

    /** The VmFlags line of the mapping of this process that holds {@code address}. */
    private static String vmFlags(long address) throws IOException {
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (!line.isEmpty() && Character.digit(line.charAt(0), 16) >= 0 && line.indexOf('-') > 0
                    && line.indexOf(' ') > line.indexOf('-')) {
                String[] range = line.substring(0, line.indexOf(' ')).split("-");
                inside = Long.parseUnsignedLong(range[0], 16) <= address && address < Long.parseUnsignedLong(range[1], 16);
            } else if (inside && line.startsWith("VmFlags:")) {
                return line.substring("VmFlags:".length());
            }
        }
        throw new AssertionError("no mapping holds 0x" + Long.toHexString(address));
    }

    @Test
    void withoutNativeAccessTablesAllocateBlockByBlockAndPrintNoWarning() throws Exception {
        ChildJvm.Result result = ChildJvm.run(WithoutNativeAccess.class, 300, Long.toString(Seeds.fromProperty(42)));
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("model ok"), result.output());
        assertFalse(result.output().contains("WARNING"), result.output());
    }

    /** Run on the class path without {@code --enable-native-access}: the tables' fallback, checked against a map. */
    static final class WithoutNativeAccess {
        public static void main(String[] args) {
            long seed = Long.parseLong(args[0]);
            if (AddressSpace.AVAILABLE) {
                throw new AssertionError("reservations available without native access");
            }
            Random random = new Random(seed);
            for (Schema schema : List.of(TestSchemas.particles(RecordLayout.SOA), TestSchemas.mixed(RecordLayout.AOS))) {
                Field field = schema.fields().getFirst();
                for (boolean packed : new boolean[] {false, true}) {
                    try (Table table = packed ? PackedTable.of(schema) : BulkTable.of(schema)) {
                        Map<Long, Integer> model = new HashMap<>();
                        List<Long> live = new java.util.ArrayList<>();
                        for (int op = 0; op < 20_000; op++) {
                            if (live.isEmpty() || random.nextInt(3) > 0) {
                                long h = table.add();
                                int v = random.nextInt(100);
                                write(table, field, h, v);
                                model.put(h, v);
                                live.add(h);
                            } else {
                                long h = live.remove(random.nextInt(live.size()));
                                table.remove(h);
                                model.remove(h);
                            }
                        }
                        AbstractTable impl = (AbstractTable) table;
                        if (impl.region != null) {
                            throw new AssertionError("a range was reserved without native access");
                        }
                        for (Map.Entry<Long, Integer> e : model.entrySet()) {
                            if (read(table, field, e.getKey()) != e.getValue()) {
                                throw new AssertionError("seed " + seed + ": " + schema.name() + " packed=" + packed
                                        + " handle " + e.getKey() + " reads " + read(table, field, e.getKey())
                                        + ", model " + e.getValue());
                            }
                        }
                        if (table.size() != model.size()) {
                            throw new AssertionError("seed " + seed + ": size " + table.size() + ", model " + model.size());
                        }
                    }
                }
            }
            System.out.println("model ok");
        }

        private static void write(Table table, Field field, long handle, int value) {
            switch (field) {
                case FloatField f -> table.set(handle, f, value);
                case ByteField f -> table.set(handle, f, (byte) value);
                default -> throw new AssertionError(field);
            }
        }

        private static int read(Table table, Field field, long handle) {
            return switch (field) {
                case FloatField f -> (int) table.get(handle, f);
                case ByteField f -> table.get(handle, f);
                default -> throw new AssertionError(field);
            };
        }
    }
}
