package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.AddressSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native-memory budgets: a table's own ({@link TableBuilder#memoryBudget(long)}) and the
 * process-wide one ({@link MemoryBudget}). This suite runs with native access, so its tables
 * reserve their ranges (blocks counted as they are handed out, before they are touched); the
 * child JVMs run the same checks on the class path without native access, where blocks are
 * allocated one by one, and with the process-wide budget from the system property.
 *
 * <p>The checks are plain code throwing {@link AssertionError} (the child JVMs have no JUnit on
 * their class path).
 */
class MemoryBudgetTest {
    private static final Schema PARTICLES = TestSchemas.particles(RecordLayout.SOA);
    private static final FloatField T = PARTICLES.floatField("t");

    @Test
    void aTablesOwnBudget_refusesTheAddThatPassesIt_andLeavesTheTableAsItWas() {
        assertTrue(AddressSpace.AVAILABLE, "this suite runs with --enable-native-access: tables reserve ranges");
        Checks.tableBudget(false);
        Checks.tableBudget(true);
    }

    @Test
    void theProcessWideBudget_refusesTheAddThatPassesIt_andAClosedTableGivesItsBytesBack() {
        long before = MemoryBudget.setLimitForTests(Long.MAX_VALUE);
        try {
            // Other tests' tables may still count (until their cleaners run): the limit is set above them.
            MemoryBudget.setLimitForTests(MemoryBudget.inUse() + 5L * PARTICLES.blockBytes());
            Checks.processBudget(false, null);
            Checks.processBudget(true, null);
        } finally {
            MemoryBudget.setLimitForTests(before);
        }
    }

    @Test
    void aTableDroppedWithoutClose_givesItsBytesBackWhenTheBudgetIsFull() {
        long before = MemoryBudget.setLimitForTests(Long.MAX_VALUE);
        try {
            MemoryBudget.setLimitForTests(MemoryBudget.inUse() + 3L * PARTICLES.blockBytes());
            fillAndDrop();
            try (BulkTable table = BulkTable.of(PARTICLES)) {
                // The refused block lets the dropped table's cleaner run (a gc, retries); a busy
                // machine may need more than one try.
                long h = 0;
                for (int attempt = 0; attempt < 10 && h == 0; attempt++) {
                    try {
                        h = table.add();
                    } catch (CapacityExceededException e) {
                        // the cleaner has not run yet
                    }
                }
                assertTrue(table.contains(h), "the dropped table's blocks were given back");
            }
        } finally {
            MemoryBudget.setLimitForTests(before);
        }
    }

    /** Fills the whole budget with a table that is never closed and becomes unreachable. */
    private static void fillAndDrop() {
        BulkTable dropped = BulkTable.of(PARTICLES);
        long[] handles = new long[3 * PARTICLES.slotsPerBlock() - 1];
        dropped.addAll(handles, 0, handles.length);
        assertThrows(CapacityExceededException.class, () -> BulkTable.of(PARTICLES).add());
    }

    @Test
    void aBadBudget_isRefusedByTheBuilder() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BulkTable.builder(PARTICLES).memoryBudget(0));
        assertTrue(e.getMessage().contains("memoryBudget=0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PackedTable.builder(PARTICLES).memoryBudget(-5));
    }

    @Test
    void aBudgetOfLessThanABlock_refusesTheFirstAdd_andTheTableStaysEmpty() {
        try (BulkTable table = BulkTable.builder(PARTICLES).memoryBudget(PARTICLES.blockBytes() - 1).build()) {
            CapacityExceededException e = assertThrows(CapacityExceededException.class, table::add);
            assertTrue(e.getMessage().contains("'particles'"), e.getMessage());
            assertEquals(0, table.size());
            assertEquals(new TableStats("particles", 0, 0, 0, 0, 0, 0), table.stats());
        }
    }

    @Test
    void aMappedTable_countsAgainstNoBudget(@TempDir Path dir) throws IOException {
        long before = MemoryBudget.setLimitForTests(Long.MAX_VALUE);
        try (MappedBulkTable table = BulkTable.builder(PARTICLES).memoryBudget(1).mapped(dir.resolve("p.bulk"))) {
            long inUse = MemoryBudget.inUse();
            MemoryBudget.setLimitForTests(inUse); // no room at all for a table in memory
            long[] handles = new long[3 * PARTICLES.slotsPerBlock()];
            table.addAll(handles, 0, handles.length); // file pages: neither budget counts them
            assertEquals(handles.length, table.size());
            assertTrue(MemoryBudget.inUse() <= inUse, "a mapped table's blocks are not counted");
            assertThrows(CapacityExceededException.class, () -> {
                try (BulkTable other = BulkTable.of(PARTICLES)) {
                    other.add();
                }
            });
        } finally {
            MemoryBudget.setLimitForTests(before);
        }
    }

    @Test
    void aLoadOverTheBudget_throws_andHoldsNothing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("p.snap");
        try (BulkTable table = BulkTable.of(PARTICLES)) {
            long[] handles = new long[10 * PARTICLES.slotsPerBlock()];
            table.addAll(handles, 0, handles.length);
            Snapshots.save(table, file);
        }
        long before = MemoryBudget.setLimitForTests(Long.MAX_VALUE);
        try {
            long inUse = MemoryBudget.inUse();
            MemoryBudget.setLimitForTests(inUse + 4L * PARTICLES.blockBytes());
            CapacityExceededException e = assertThrows(CapacityExceededException.class,
                    () -> Snapshots.load(file, PARTICLES, Snapshots.LoadOption.NEW_TAG));
            assertTrue(e.getMessage().contains("process-wide memory budget"), e.getMessage());
            assertTrue(MemoryBudget.inUse() <= inUse, "the failed load gave back what it took: " + MemoryBudget.inUse()
                    + " > " + inUse);
        } finally {
            MemoryBudget.setLimitForTests(before);
        }
    }

    @Test
    void withoutNativeAccess_blocksAllocatedOneByOne_obeyTheSameBudgets() throws Exception {
        long budget = 6L * PARTICLES.blockBytes();
        ChildJvm.Result result = ChildJvm.run(Child.class, List.of("-Xmx256m", "-Dbulkdata.memoryBudget=" + budget),
                120, "blockByBlock", Long.toString(budget));
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("budget ok"), result.output());
    }

    @Test
    void withNativeAccess_theSystemPropertySetsTheProcessWideBudget() throws Exception {
        ChildJvm.Result result = ChildJvm.run(Child.class, List.of("-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-Dbulkdata.memoryBudget=96k"), 120, "reserved", Long.toString(96 << 10));
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("budget ok"), result.output());
    }

    @Test
    void withoutTheProperty_theBudgetIsTheJvmsDirectMemoryLimit() throws Exception {
        ChildJvm.Result byDefault = ChildJvm.run(Child.class, List.of("-Xmx96m"), 120, "default");
        assertEquals(0, byDefault.exitCode(), byDefault.output());
        assertTrue(byDefault.output().contains("default ok"), byDefault.output());
        ChildJvm.Result direct = ChildJvm.run(Child.class, List.of("-Xmx96m", "-XX:MaxDirectMemorySize=40m"), 120,
                "direct", Long.toString(40L << 20));
        assertEquals(0, direct.exitCode(), direct.output());
        assertTrue(direct.output().contains("direct ok"), direct.output());
        ChildJvm.Result bad = ChildJvm.run(Child.class, List.of("-Xmx96m", "-Dbulkdata.memoryBudget=lots"), 120, "bad");
        assertEquals(0, bad.exitCode(), bad.output());
        assertTrue(bad.output().contains("bad ok"), bad.output());
    }

    /** A child JVM's checks: the mode, then what to expect. */
    static final class Child {
        public static void main(String[] args) {
            switch (args[0]) {
                case "blockByBlock", "reserved" -> {
                    boolean reserved = args[0].equals("reserved");
                    check(AddressSpace.AVAILABLE == reserved, "reservations available: " + AddressSpace.AVAILABLE);
                    long budget = Long.parseLong(args[1]);
                    check(MemoryBudget.limit() == budget, "limit " + MemoryBudget.limit() + ", expected " + budget);
                    Checks.tableBudget(false);
                    Checks.tableBudget(true);
                    Checks.processBudget(false, "-Dbulkdata.memoryBudget=");
                    Checks.processBudget(true, "-Dbulkdata.memoryBudget=");
                    System.out.println("budget ok");
                }
                case "default" -> {
                    check(MemoryBudget.limit() == Runtime.getRuntime().maxMemory(), "limit " + MemoryBudget.limit()
                            + ", largest heap " + Runtime.getRuntime().maxMemory());
                    System.out.println("default ok");
                }
                case "direct" -> {
                    check(MemoryBudget.limit() == Long.parseLong(args[1]), "limit " + MemoryBudget.limit());
                    System.out.println("direct ok");
                }
                case "bad" -> {
                    try {
                        BulkTable.of(PARTICLES);
                        throw new AssertionError("a bad bulkdata.memoryBudget was accepted");
                    } catch (IllegalArgumentException e) {
                        check(e.getMessage().contains("bulkdata.memoryBudget=lots"), e.getMessage());
                    }
                    System.out.println("bad ok");
                }
                default -> throw new AssertionError(args[0]);
            }
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** The checks, run here and in the child JVMs. */
    static final class Checks {
        private Checks() {
        }

        /** A table with a budget of 3 blocks: adds until refused, a batch refused whole, the table as it was. */
        static void tableBudget(boolean packed) {
            long budget = 3L * PARTICLES.blockBytes() + 100;
            Supplier<Table> make = () -> packed ? PackedTable.builder(PARTICLES).memoryBudget(budget).build()
                    : BulkTable.builder(PARTICLES).memoryBudget(budget).build();
            try (Table table = make.get()) {
                CapacityExceededException refused = fillUntilRefused(table);
                String m = refused.getMessage();
                check(m.contains("'particles'") && m.contains("memory budget") && m.contains(Long.toString(budget))
                        && m.contains(Long.toString(3L * PARTICLES.blockBytes())), "message: " + m);
                check(table.size() == table.stats().capacity() && table.size() >= 3 * PARTICLES.slotsPerBlock() - 1,
                        "size " + table.size() + ", " + table.stats());
                check(table.stats().blocks() == 3, "blocks " + table.stats().blocks());
                // A batch that needs room is refused as a whole, and a hole freed makes room for one add.
                checkBatchRefused(table);
                long victim = liveHandles(table).get(7);
                table.remove(victim);
                int full = table.size() + 1;
                long again = table.add();
                check(table.contains(again) && table.size() == full, "add into the hole");
                checkRefusedAndUnchanged(table, () -> table.add());
            }
        }

        /**
         * The process-wide budget, which the caller set to leave room for 5 or 6 blocks of
         * particles (the child JVMs by the system property, whose source the message names if
         * {@code source} is not null): tables fill it, the one that passes it is refused and
         * unchanged, and closing a table gives its bytes back.
         */
        static void processBudget(boolean packed, String source) {
            Supplier<Table> make = () -> packed ? PackedTable.of(PARTICLES) : BulkTable.of(PARTICLES);
            long limit = MemoryBudget.limit();
            Table first = make.get();
            Table second = make.get();
            try {
                long[] two = new long[2 * PARTICLES.slotsPerBlock() - 1]; // slot 0 of a BulkTable holds no record
                first.addAll(two, 0, two.length);
                check(first.stats().blocks() == 2, "first holds 2 blocks");
                CapacityExceededException refused = fillUntilRefused(second);
                String m = refused.getMessage();
                check(m.contains("'particles'") && m.contains("process-wide memory budget is " + limit + " bytes")
                        && m.contains("tables hold "), "message: " + m);
                check(source == null || m.contains(source), "message names " + source + ": " + m);
                long held = Long.parseLong(m.replaceAll(".*tables hold (\\d+) bytes.*", "$1"));
                check(held + PARTICLES.blockBytes() > limit && held <= limit, "refused only when full: " + held + " of "
                        + limit);
                checkBatchRefused(second);
                int secondBlocks = second.stats().blocks();
                long inUse = MemoryBudget.inUse();
                first.close();
                check(MemoryBudget.inUse() <= inUse - 2L * PARTICLES.blockBytes(), "close gave back 2 blocks: "
                        + MemoryBudget.inUse() + " of " + inUse);
                long[] more = new long[2 * PARTICLES.slotsPerBlock()];
                second.addAll(more, 0, more.length); // the room the first table gave back
                check(second.stats().blocks() == secondBlocks + 2, "second grew into the room");
            } finally {
                first.close();
                second.close();
            }
        }

        /** Adds one by one (writing each record) until the table refuses; checks the refused add changed nothing. */
        private static CapacityExceededException fillUntilRefused(Table table) {
            for (int i = 0; i < 100 * PARTICLES.slotsPerBlock(); i++) {
                TableStats stats = table.stats();
                long h;
                try {
                    h = table.add();
                } catch (CapacityExceededException e) {
                    check(table.stats().equals(stats), "stats after a refused add: " + table.stats() + ", before "
                            + stats);
                    checkRefusedAndUnchanged(table, table::add);
                    return e;
                }
                table.set(h, T, i);
            }
            throw new AssertionError("no budget refused " + 100 * PARTICLES.slotsPerBlock() + " adds");
        }

        /** An addAll of more records than fit is refused as a whole; the table and the output array unchanged. */
        private static void checkBatchRefused(Table table) {
            long[] out = new long[PARTICLES.slotsPerBlock() + 3];
            Arrays.fill(out, 42);
            checkRefusedAndUnchanged(table, () -> table.addAll(out, 1, out.length));
            for (long h : out) {
                check(h == 42, "a refused addAll wrote a handle");
            }
        }

        /** Runs {@code change}, which must be refused for the budget, and checks the table is as it was. */
        private static void checkRefusedAndUnchanged(Table table, Runnable change) {
            TableStats stats = table.stats();
            List<Long> live = liveHandles(table);
            float[] values = new float[live.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = table.get(live.get(i), T);
            }
            long inUse = MemoryBudget.inUse();
            try {
                change.run();
                throw new AssertionError("not refused");
            } catch (CapacityExceededException e) {
                check(e.getMessage().contains("nothing was changed"), e.getMessage());
            }
            check(table.stats().equals(stats), "stats " + table.stats() + ", before " + stats);
            check(table.size() == live.size(), "size");
            check(liveHandles(table).equals(live), "the live handles changed");
            for (int i = 0; i < values.length; i++) {
                check(table.get(live.get(i), T) == values[i], "record " + i + " changed");
            }
            check(MemoryBudget.inUse() <= inUse, "a refused change counted bytes");
        }

        private static List<Long> liveHandles(Table table) {
            List<Long> live = new ArrayList<>();
            table.forEach((chunk, slot) -> live.add(chunk.handle(slot)));
            return live;
        }
    }
}
