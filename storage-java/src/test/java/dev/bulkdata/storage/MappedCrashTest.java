package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash safety of mapped tables: a child JVM writes, checkpoints and keeps writing, and is
 * killed ({@link Process#destroyForcibly()}, SIGKILL on Linux) at a random moment; the parent
 * reopens the file and checks it against what the child reported at its last checkpoint, then
 * changes the table itself and closes it for the next child. Rounds per kind: 6, or the system
 * property {@code bulkdata.crashRounds} for a longer run.
 *
 * <p>The rule checked: the structure (live handles with their generations, iteration order,
 * free list, counts) is exactly that of the last completed checkpoint (or of the one being
 * made when the child died, if its "done" line is missing); every field of a record live at
 * that checkpoint holds its value then or a value stored later into its place: every value the
 * child writes carries the number of the write (the long field {@code w << 32 | w}, so a torn
 * one would show two numbers; the int field {@code BASE + w}), so "later" means a number above
 * the checkpoint's; zero (a later add's record) and, in a BulkTable's int field (the link
 * word), a slot number (a later removal's free-list link) are allowed too.
 */
class MappedCrashTest {
    @TempDir
    Path dir;

    static final int BASE = 1 << 30;
    static final Schema SCHEMA = Schema.builder("crash").add(FieldType.INT, "w").add(FieldType.LONG, "both").build();

    static TableBuilder<?, ?, ? extends MappedTable> builder(String kind) {
        return kind.equals("BULK") ? BulkTable.builder(SCHEMA).tag(4020) : PackedTable.builder(SCHEMA).tag(4022);
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void killedAtRandomMoments_reopensToTheLastCheckpoint(TableKind kind) throws Exception {
        int rounds = Integer.getInteger("bulkdata.crashRounds", 6);
        long seed = Seeds.seed("MappedCrashTest", 0xC4A5_4000L);
        SplittableRandom random = new SplittableRandom(seed);
        Path file = dir.resolve("crash-" + kind + ".bulk");
        int checked = 0;
        for (int round = 0; round < rounds; round++) {
            Path log = dir.resolve("child-" + round + ".log");
            Process child = ChildJvm.start(Child.class, "-Xmx128m", log, kind.name(), file.toString(),
                    Long.toString(random.nextLong()), Long.toString((round + 1) * 20_000_000L));
            // Let it open the file and run a while: from 0.3 to 1.5 s after its first checkpoint report.
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.readString(log, StandardCharsets.ISO_8859_1).contains("DONE 0")) {
                assertTrue(child.isAlive(), "child ended: " + tail(log));
                assertTrue(System.nanoTime() < deadline, "child did not start");
                Thread.sleep(10);
            }
            Thread.sleep(300 + random.nextInt(1200));
            child.destroyForcibly().waitFor();
            String output = Files.readString(log, StandardCharsets.ISO_8859_1);
            Report[] last = lastReports(output);
            try (MappedTable t = builder(kind.name()).mapped(file)) {
                Report matched = null;
                StringBuilder why = new StringBuilder();
                for (Report r : last) {
                    if (r == null) {
                        continue;
                    }
                    try {
                        check(t, r, kind);
                        matched = r;
                        break;
                    } catch (AssertionError e) {
                        why.append("\n  checkpoint ").append(r.number).append(": ").append(e.getMessage());
                    }
                }
                if (matched == null) {
                    throw new AssertionError("seed " + seed + ", round " + round + ": the reopened file matches no"
                            + " checkpoint the child reported:" + why);
                }
                TableAudit.check(t);
                // The reopened table works: add, remove, and the next child starts from here.
                long[] more = new long[10];
                t.addAll(more);
                t.remove(more[3]);
                checked++;
            }
        }
        assertEquals(rounds, checked);
    }

    private static String tail(Path log) throws java.io.IOException {
        String s = Files.readString(log, StandardCharsets.ISO_8859_1);
        return s.substring(Math.max(0, s.length() - 2000));
    }

    /** What the child reported before a checkpoint: the write counter and the structure. */
    record Report(int number, long counter, List<long[]> records, List<Integer> free, List<Integer> stats) {
    }

    /**
     * The last report with its "done" line, and the one after it if the child died making that
     * checkpoint (its report line is complete, its "done" line missing): the file holds one of
     * them. Newest first.
     */
    private static Report[] lastReports(String output) {
        Report done = null;
        Report pending = null;
        for (String line : output.split("\n")) {
            if (line.startsWith("CP ") && line.endsWith(" END")) {
                pending = parse(line);
            } else if (line.startsWith("DONE ") && pending != null
                    && Integer.parseInt(line.substring(5).trim()) == pending.number) {
                done = pending;
                pending = null;
            }
        }
        return new Report[] {pending, done};
    }

    private static Report parse(String line) {
        String[] parts = line.split(" ");
        int number = Integer.parseInt(parts[1]);
        long counter = Long.parseLong(parts[2]);
        List<long[]> records = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        List<Integer> stats = new ArrayList<>();
        int i = 3;
        for (; !parts[i].equals("F"); i++) {
            String[] r = parts[i].split(",");
            records.add(new long[] {Long.parseUnsignedLong(r[0], 16), Long.parseLong(r[1]), Long.parseLong(r[2])});
        }
        for (i++; !parts[i].equals("S"); i++) {
            free.add(Integer.parseInt(parts[i]));
        }
        for (i++; !parts[i].equals("END"); i++) {
            stats.add(Integer.parseInt(parts[i]));
        }
        return new Report(number, counter, records, free, stats);
    }

    private static void check(Table t, Report r, TableKind kind) {
        IntField w = SCHEMA.intField("w");
        LongField both = SCHEMA.longField("both");
        List<Long> order = new ArrayList<>();
        Map<Long, long[]> values = new HashMap<>();
        t.forEach((chunk, slot) -> {
            long h = chunk.handle(slot);
            order.add(h);
            values.put(h, new long[] {chunk.get(slot, w), chunk.get(slot, both)});
        });
        List<Long> expectedOrder = r.records.stream().map(x -> x[0]).toList();
        if (kind == TableKind.PACKED) {
            assertSameList(expectedOrder, order, "row order");
        } else {
            assertSameList(expectedOrder.stream().sorted().toList(), order.stream().sorted().toList(), "live handles");
        }
        List<Integer> free = new ArrayList<>();
        for (int s : TableAudit.freeSlots(t)) {
            free.add(s);
        }
        assertSameList(r.free, free, "free list");
        // A PackedTable's rows take other records' bytes when records move (swap-and-pop): any
        // value some record had at the checkpoint may be in a row after it.
        java.util.Set<Long> anyW = new java.util.HashSet<>();
        java.util.Set<Long> anyBoth = new java.util.HashSet<>();
        for (long[] rec : r.records) {
            anyW.add(rec[1]);
            anyBoth.add(rec[2]);
        }
        TableStats st = t.stats();
        assertEquals(r.stats, List.of(st.live(), st.holes(), st.retired(), st.blocks()), "counts");
        for (long[] rec : r.records) {
            long[] v = values.get(rec[0]);
            long wv = v[0];
            long bv = v[1];
            boolean wOk = wv == rec[1] || wv == 0 || wv > BASE + r.counter
                    || (kind == TableKind.BULK && wv > 0 && wv < BASE) || (kind == TableKind.PACKED && anyW.contains(wv));
            long hi = bv >>> 32;
            long lo = bv & 0xFFFF_FFFFL;
            boolean bOk = bv == rec[2] || bv == 0 || (hi == lo && lo > r.counter)
                    || (kind == TableKind.PACKED && anyBoth.contains(bv));
            assertTrue(wOk && bOk, "record " + t.format(rec[0]) + ": w " + wv + ", both 0x" + Long.toHexString(bv)
                    + " against checkpoint values " + rec[1] + ", 0x" + Long.toHexString(rec[2]) + " at write "
                    + r.counter);
        }
    }

    private static <E> void assertSameList(List<E> expected, List<E> actual, String what) {
        if (!expected.equals(actual)) {
            int i = 0;
            while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) {
                i++;
            }
            throw new AssertionError(what + ": " + actual.size() + " entries, expected " + expected.size()
                    + "; first difference at " + i + ": " + (i < actual.size() ? actual.get(i) : "none")
                    + ", expected " + (i < expected.size() ? expected.get(i) : "none"));
        }
    }

    @Test
    void aTableFourTimesLargerThanTheHeap_inAChildJvm() throws Exception {
        Path file = dir.resolve("large.bulk");
        ChildJvm.Result result = ChildJvm.run(Large.class, "-Xmx64m", 300, file.toString());
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("LARGE OK"), result.output());
    }

    /** Fills a mapped table of 1M 256-byte records (256 MiB, 4x its 64 MiB heap), reopens it and checks every record. */
    public static final class Large {
        public static void main(String[] args) throws Exception {
            String[] pad = new String[31];
            for (int i = 0; i < pad.length; i++) {
                pad[i] = "pad" + i;
            }
            Schema schema = Schema.builder("large").add(FieldType.LONG, "id").add(FieldType.LONG, pad).build();
            LongField id = schema.longField("id");
            int n = 1 << 20;
            Path file = Path.of(args[0]);
            try (MappedBulkTable t = BulkTable.builder(schema).tag(4021).mapped(file)) {
                long[] hs = new long[n];
                t.addAll(hs);
                for (int i = 0; i < n; i++) {
                    t.set(hs[i], id, hs[i]);
                }
            }
            long heap = Runtime.getRuntime().maxMemory();
            long bytes;
            try (MappedBulkTable t = BulkTable.builder(schema).tag(4021).mapped(file)) {
                bytes = t.stats().nativeBytes();
                long[] count = {0};
                t.forEach((chunk, slot) -> {
                    if (chunk.get(slot, id) != chunk.handle(slot)) {
                        throw new AssertionError("record " + t.format(chunk.handle(slot)) + " reads "
                                + chunk.get(slot, id));
                    }
                    count[0]++;
                });
                if (count[0] != n) {
                    throw new AssertionError(count[0] + " records, not " + n);
                }
            }
            if (bytes < 4 * heap) {
                throw new AssertionError(bytes + " bytes of records, heap " + heap);
            }
            System.out.println("LARGE OK: " + bytes + " bytes of records, max heap " + heap + " ("
                    + (bytes / heap) + "x)");
        }
    }

    /**
     * The child: opens the table, reports its state as checkpoint 0, then writes at random
     * until killed, reporting the state before each checkpoint and "DONE n" after it.
     * Arguments: kind, file, seed, the first write number.
     */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            String kind = args[0];
            SplittableRandom random = new SplittableRandom(Long.parseLong(args[2]));
            long counter = Long.parseLong(args[3]);
            IntField w = SCHEMA.intField("w");
            LongField both = SCHEMA.longField("both");
            PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                    StandardCharsets.ISO_8859_1);
            MappedTable t = builder(kind).mapped(Path.of(args[1]));
            List<Long> live = new ArrayList<>();
            t.forEach((chunk, slot) -> live.add(chunk.handle(slot)));
            int number = 0;
            report(out, t, number, counter);
            out.println("DONE " + number);
            out.flush();
            while (true) {
                int op = random.nextInt(1000);
                if (op < 400 && live.size() < 3_000 || live.isEmpty()) {
                    long h = t.add();
                    counter++;
                    t.set(h, w, (int) (BASE + counter));
                    t.set(h, both, counter << 32 | counter);
                    live.add(h);
                } else if (op < 650) {
                    t.remove(live.remove(random.nextInt(live.size())));
                } else if (op < 995) {
                    long h = live.get(random.nextInt(live.size()));
                    counter++;
                    if (random.nextBoolean()) {
                        t.set(h, w, (int) (BASE + counter));
                    } else {
                        t.set(h, both, counter << 32 | counter);
                    }
                } else if (op < 998) {
                    if (random.nextInt(20) == 0) {
                        t.clear();
                        live.clear();
                    }
                } else {
                    number++;
                    report(out, t, number, counter);
                    t.checkpoint();
                    out.println("DONE " + number);
                    out.flush();
                }
            }
        }

        private static void report(PrintStream out, Table t, int number, long counter) {
            StringBuilder line = new StringBuilder("CP ").append(number).append(' ').append(counter);
            IntField w = SCHEMA.intField("w");
            LongField both = SCHEMA.longField("both");
            t.forEach((chunk, slot) -> line.append(' ').append(Long.toHexString(chunk.handle(slot))).append(',')
                    .append(chunk.get(slot, w)).append(',').append(chunk.get(slot, both)));
            line.append(" F");
            for (int s : TableAudit.freeSlots(t)) {
                line.append(' ').append(s);
            }
            TableStats st = t.stats();
            line.append(" S ").append(st.live()).append(' ').append(st.holes()).append(' ').append(st.retired())
                    .append(' ').append(st.blocks()).append(" END");
            out.println(line);
            out.flush();
        }
    }
}
