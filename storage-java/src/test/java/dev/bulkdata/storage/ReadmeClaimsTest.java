package dev.bulkdata.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.bulkdata.storage.InvalidHandleException.Reason;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concrete claims of the README's "Errors", "Saving and loading" (with "References between
 * tables" and "Mapped tables"), "Threads" and "Observability" sections that no other test
 * asserted directly.
 */
class ReadmeClaimsTest {
    /** Fixed tags of this class: FIXED to FIXED + 9, used by no other test. */
    private static final int FIXED = 4050;

    @TempDir
    Path dir;

    private static Schema schema(String name) {
        return Schema.builder(name).add(FieldType.INT, "a").add(FieldType.LONG, "b").build();
    }

    // ---------------------------------------------------------------------------------------
    // Errors

    /** Errors, row 1: every reason's message names the table; stale and never-reached ones the slot and both generations. */
    @Test
    void errors_invalidHandleMessages_nameTableSlotAndGenerations() {
        Schema s = schema("msg_table");
        try (BulkTable t = BulkTable.of(s)) {
            long a = t.add();
            long b = t.add();
            t.remove(b);                                               // slot 2 at generation 1
            HandleLayout l = t.handleLayout();
            int tag = l.tag(a);
            InvalidHandleException stale = assertThrows(InvalidHandleException.class, () -> t.get(b, s.intField("a")));
            assertEquals(Reason.STALE, stale.reason());
            assertTrue(stale.getMessage().contains("'msg_table'") && stale.getMessage().contains("slot 2")
                    && stale.getMessage().contains("handle generation 0")
                    && stale.getMessage().contains("slot generation 1"), stale.getMessage());
            long ahead = l.pack(tag, 5, l.index(a));
            InvalidHandleException forged = assertThrows(InvalidHandleException.class, () -> t.remove(ahead));
            assertEquals(Reason.FORGED, forged.reason());
            assertTrue(forged.getMessage().contains("'msg_table'") && forged.getMessage().contains("slot 1")
                    && forged.getMessage().contains("handle generation 5")
                    && forged.getMessage().contains("slot generation 0"), forged.getMessage());
            long outside = l.pack(tag, 0, 77);
            InvalidHandleException range = assertThrows(InvalidHandleException.class, () -> t.remove(outside));
            assertEquals(Reason.OUT_OF_RANGE, range.reason());
            assertTrue(range.getMessage().contains("'msg_table'") && range.getMessage().contains("slot 77")
                    && range.getMessage().contains("generation 0"), range.getMessage());
            InvalidHandleException none = assertThrows(InvalidHandleException.class, () -> t.remove(Handles.NULL));
            assertEquals(Reason.NULL, none.reason());
            assertTrue(none.getMessage().contains("'msg_table'"), none.getMessage());
            assertEquals("msg_table", none.table());
        }
    }

    /** Errors, row 1: a null handle's message names the table (a null handle names no slot). */
    @Test
    void errors_nullHandleMessage_namesTheTable() {
        try (BulkTable t = BulkTable.of(schema("null_msg"))) {
            t.add();
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> t.remove(Handles.NULL));
            assertEquals(Reason.NULL, e.reason());
            assertTrue(e.getMessage().contains("'null_msg'"), e.getMessage());
        }
    }

    /** Errors, row 3: a handle of a closed table is FORGED, naming the closed table (its tag not reused). */
    @Test
    void errors_handleOfAClosedTable_isForgedNamingTheClosedTable() {
        long orphan;
        try (BulkTable gone = BulkTable.of(schema("gone_table"))) {
            orphan = gone.add();
        }
        try (BulkTable later = BulkTable.of(schema("later_table"))) {
            later.add();
            assertFalse(later.contains(orphan));
            InvalidHandleException e = assertThrows(InvalidHandleException.class,
                    () -> later.get(orphan, later.schema().intField("a")));
            assertEquals(Reason.FORGED, e.reason());
            assertTrue(e.getMessage().contains("'gone_table'"), e.getMessage());
        }
    }

    /**
     * Errors, row 3: a handle of a closed table is FORGED by every later table, also when another
     * table holds its tag again (here a fixed tag, reused at once): not FOREIGN to the new
     * holder, which never made it. The message names the closed table.
     */
    @Test
    void errors_handleOfAClosedTable_isForgedByEveryLaterTable_evenWhenItsTagIsHeldAgain() {
        int tag = FIXED;
        long orphan;
        try (BulkTable gone = BulkTable.builder(schema("tag_gone")).tag(tag).build()) {
            orphan = gone.add();
        }
        try (BulkTable heir = BulkTable.builder(schema("tag_heir")).tag(tag).build();
             BulkTable third = BulkTable.of(schema("tag_third"))) {
            heir.add();
            third.add();
            InvalidHandleException byHeir = assertThrows(InvalidHandleException.class, () -> heir.remove(orphan));
            assertEquals(Reason.FORGED, byHeir.reason(), byHeir.getMessage());
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> third.remove(orphan));
            assertEquals(Reason.FORGED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("'tag_gone'"), e.getMessage());
        }
    }

    /**
     * Errors, row 3: after a second table used and closed the same tag, a later table still
     * rejects the first table's handle as FORGED, naming the last closed table that held the tag.
     */
    @Test
    void errors_handleOfAClosedTable_namesTheLastClosedHolder_afterTheTagWasReusedAndClosedAgain() {
        int tag = FIXED + 1;
        long orphan;
        try (BulkTable first = BulkTable.builder(schema("tag_first")).tag(tag).build()) {
            orphan = first.add();
        }
        try (BulkTable second = BulkTable.builder(schema("tag_second")).tag(tag).build()) {
            second.add();
        }
        try (BulkTable later = BulkTable.of(schema("tag_later"))) {
            later.add();
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> later.remove(orphan));
            assertEquals(Reason.FORGED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("'tag_second'"), e.getMessage());
            assertFalse(e.getMessage().contains("tag_later#"), "formatted with the rejecting table's name: " + e.getMessage());
        }
    }

    /**
     * Errors, row 6 and the tag paragraph: automatic tags are 1 to 3,839, fixed ones 3,840 to
     * 4,095; with every automatic tag held, opening throws CapacityExceededException (an
     * IllegalStateException); a fixed tag still opens.
     */
    @Test
    void errors_noTableTagLeft_throwsCapacityExceeded_andAutomaticTagsStayBelowTheFixedRange() {
        assertEquals(3840, HandleLayout.MIN_FIXED_TAG);
        assertEquals(4095, HandleLayout.MAX_TAG);
        Schema s = schema("tag_hog");
        List<Table> open = new ArrayList<>();
        try {
            CapacityExceededException e = null;
            for (int i = 0; i < HandleLayout.MIN_FIXED_TAG && e == null; i++) {
                try {
                    open.add(BulkTable.of(s));
                } catch (CapacityExceededException full) {
                    e = full;
                }
            }
            assertTrue(e != null, "opened " + open.size() + " tables without running out of tags");
            assertTrue(e instanceof IllegalStateException);
            assertTrue(open.size() <= HandleLayout.MIN_FIXED_TAG - 1, "more tables than automatic tags: " + open.size());
            for (int tag = HandleLayout.MIN_FIXED_TAG; tag <= HandleLayout.MAX_TAG; tag++) {
                assertNotEquals("tag_hog", dev.bulkdata.storage.internal.TagRegistry.nameOf(tag),
                        "an automatic table took fixed tag " + tag);
            }
            try (BulkTable fixed = BulkTable.builder(s).tag(FIXED + 7).build()) {
                assertEquals(FIXED + 7, Handles.tag(fixed.add()), "a fixed tag still opens");
            }
        } finally {
            open.forEach(Table::close);
        }
        try (BulkTable again = BulkTable.of(s)) {
            assertFalse(again.isClosed(), "closing frees the tags");
        }
    }

    /**
     * Errors, last row, and Threads: a structural change that starts while another thread's
     * change runs throws ConcurrentModificationException naming the table and that thread, and
     * changes nothing; the table carries on afterwards.
     */
    @Test
    void errorsAndThreads_aChangeWhileAnotherThreadsChangeRuns_isRefusedNamingTableAndThread() throws Exception {
        for (TableKind kind : TableKind.values()) {
            Schema s = schema("raced_" + kind);
            try (Table t = kind.of(s)) {
                long[] hs = new long[100];
                t.addAll(hs);
                t.remove(hs[10]);
                t.set(hs[3], s.intField("a"), 33);
                TableSnapshot before = TableSnapshot.of(t);
                CountDownLatch inside = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = new Thread(() -> {
                    try {
                        long me = ((AbstractTable) t).beginChange("test a change of");
                        inside.countDown();
                        assertTrue(release.await(30, TimeUnit.SECONDS));
                        ((AbstractTable) t).endChange(me);
                    } catch (Throwable e) {
                        failure.set(e);
                        inside.countDown();
                    }
                }, "the-other-writer");
                writer.start();
                assertTrue(inside.await(30, TimeUnit.SECONDS));
                try {
                    List<org.junit.jupiter.api.function.Executable> changes = List.of(t::add,
                            () -> t.remove(hs[0]), t::clear, () -> t.cancelAdd(hs[1]),
                            () -> t.removeAll(new long[] {hs[2]}));
                    for (var change : changes) {
                        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, change);
                        assertTrue(e.getMessage().contains("'raced_" + kind + "'"), e.getMessage());
                        assertTrue(e.getMessage().contains("the-other-writer"), e.getMessage());
                    }
                } finally {
                    release.countDown();
                    writer.join(30_000);
                }
                assertEquals(null, failure.get());
                assertEquals(before, TableSnapshot.of(t), "a refused change changes nothing");
                long h = t.add();
                assertTrue(t.contains(h), "the table carries on");
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Saving and loading

    /**
     * Saving, "Exact": reuse order, handle layout, capacity limit, tag and schema come back; the
     * loaded table is an ordinary in-memory table (checkpoint refuses it: not mapped).
     */
    @Test
    void saving_exact_keepsReuseOrderLayoutCapacityLimitTagAndSchema() throws IOException {
        Schema s = schema("exact_opts");
        HandleLayout layout = HandleLayout.of(20, 8);
        int tag = FIXED + 2;
        Path file = dir.resolve("exact.bulk");
        long[] next = new long[10];
        TableSnapshot before;
        TableStats stats;
        try (BulkTable t = BulkTable.builder(s).reuseOrder(ReuseOrder.LIFO).handleLayout(layout).maxCapacity(100)
                .tag(tag).build()) {
            long[] hs = new long[100];
            t.addAll(hs);
            for (int i = 0; i < 100; i += 10) {
                t.remove(hs[i]);
            }
            before = TableSnapshot.of(t);
            stats = t.stats();
            Snapshots.save(t, file);
            t.addAll(next);                                           // fills the 10 holes, LIFO
            assertThrows(CapacityExceededException.class, t::add);
        }
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, null)) {
            assertEquals(ReuseOrder.LIFO, loaded.reuseOrder());
            assertEquals(layout, loaded.handleLayout());
            assertEquals(s.toString(), loaded.schema().toString());
            assertEquals(stats, loaded.stats());
            long[] again = new long[10];
            loaded.addAll(again);
            assertEquals(java.util.Arrays.toString(next), java.util.Arrays.toString(again), "same handles, LIFO");
            assertEquals(tag, Handles.tag(again[0]));
            assertThrows(CapacityExceededException.class, loaded::add, "the capacity limit of 100 is kept");
            IllegalStateException notMapped = assertThrows(IllegalStateException.class, loaded::checkpoint);
            assertTrue(notMapped.getMessage().contains("not mapped"), notMapped.getMessage());
        }
        try (Table loaded = Snapshots.load(file, s)) {
            assertSame(s, loaded.schema(), "the expected schema itself is used");
            assertEquals(before, TableSnapshot.of(loaded));
        }
    }

    /** Saving, "Not kept": the add that cancelAdd could undo exactly is a plain remove after a load. */
    @Test
    void saving_notKept_cancelAddOfTheLastAddBeforeTheSave_isAPlainRemoveAfterLoad() throws IOException {
        Schema s = schema("cancel_kept");
        Path file = dir.resolve("cancel.bulk");
        int tag = FIXED + 3;
        long last;
        try (BulkTable t = BulkTable.builder(s).tag(tag).build()) {
            t.addAll(new long[5]);
            last = t.add();
            Snapshots.save(t, file);
            TableStats beforeAdd = new TableStats("cancel_kept", 5, 0, 0, t.stats().capacity(), t.stats().blocks(),
                    t.stats().nativeBytes());
            assertTrue(t.cancelAdd(last), "in the original the add is undone exactly");
            assertEquals(beforeAdd, t.stats());
        }
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, s)) {
            assertTrue(loaded.contains(last));
            assertFalse(loaded.cancelAdd(last), "after a load it is a remove");
            assertFalse(loaded.contains(last));
            assertEquals(5, loaded.size());
            assertEquals(1, loaded.stats().holes(), "the slot is a hole, as after remove");
        }
    }

    /** Saving, "Not kept": a PackedTable's last defragment order; the loaded table starts fragmented. */
    @Test
    void saving_notKept_aLoadedPackedTableStartsFragmented() throws IOException {
        Schema s = schema("packed_order");
        IntField a = s.intField("a");
        Path file = dir.resolve("packed.bulk");
        int tag = FIXED + 4;
        AtomicReference<Table> current = new AtomicReference<>();
        AtomicLong comparisons = new AtomicLong();
        RecordOrder byA = (x, y) -> {
            comparisons.incrementAndGet();
            return Integer.compare(current.get().get(x, a), current.get().get(y, a));
        };
        try (PackedTable t = PackedTable.builder(s).tag(tag).build()) {
            current.set(t);
            long[] hs = new long[300];
            t.addAll(hs);
            for (int i = 0; i < hs.length; i++) {
                t.set(hs[i], a, (i * 7919) % 300);
            }
            t.markFragmented();
            while (t.defragment(byA, Long.MAX_VALUE) > 0) {
                // until a pass completes
            }
            comparisons.set(0);
            assertEquals(0, t.defragment(byA, Long.MAX_VALUE));
            assertEquals(0, comparisons.get(), "after a completed pass the same order returns at once");
            Snapshots.save(t, file);
        }
        try (PackedTable loaded = Snapshots.load(file, PackedTable.class, s)) {
            current.set(loaded);
            comparisons.set(0);
            assertEquals(0, loaded.defragment(byA, Long.MAX_VALUE), "the rows are in order");
            assertTrue(comparisons.get() > 0, "the loaded table is fragmented: defragment makes a pass");
        }
    }

    /**
     * Saving, "Costs": a save holds the table's iteration guard: adds and removes meanwhile throw
     * ConcurrentModificationException; the saved file is the table before them.
     */
    @Test
    void saving_aSaveHoldsTheIterationGuard() throws IOException {
        for (TableKind kind : TableKind.values()) {
            Schema s = schema("save_guard_" + kind);
            try (Table t = kind.of(s)) {
                long h = t.add();
                int[] refused = {0};
                WritableByteChannel sneaky = SnapshotBytes.discardingChannel(() -> {
                    assertThrows(ConcurrentModificationException.class, t::add);
                    assertThrows(ConcurrentModificationException.class, () -> t.remove(h));
                    assertThrows(ConcurrentModificationException.class, t::clear);
                    refused[0]++;
                });
                Snapshots.save(t, sneaky);
                assertTrue(refused[0] > 0);
                assertEquals(1, t.size());
                t.remove(h);                                         // after the save: allowed again
                assertEquals(0, t.size());
            }
        }
    }

    /** Saving, "Costs": save(table, path) writes a temporary file and moves it into place; nothing else is left. */
    @Test
    void saving_toAPath_replacesTheFile_andLeavesNoTemporaryFile() throws IOException {
        Path file = dir.resolve("replace.bulk");
        Files.writeString(file, "an older file");
        try (BulkTable t = BulkTable.of(schema("replace"))) {
            t.addAll(new long[3]);
            Snapshots.save(t, file);
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList());
        }
        try (Table loaded = Snapshots.load(file, Snapshots.LoadOption.NEW_TAG)) {
            assertEquals(3, loaded.size());
        }
    }

    /** References, "Dangling references": counts and changes nothing. */
    @Test
    void references_danglingReferences_changesNothing() {
        Schema sounds = Schema.builder("d_sounds").add(FieldType.FLOAT, "volume").build();
        Schema voices = Schema.builder("d_voices").addHandle("sound", "d_sounds").build();
        HandleField sound = voices.handleField("sound");
        try (BulkTable s = BulkTable.of(sounds); BulkTable v = BulkTable.of(voices)) {
            long live = s.add();
            long gone = s.add();
            s.remove(gone);
            v.set(v.add(), sound, live);
            v.set(v.add(), sound, gone);
            v.add();                                                  // the null handle: never dangling
            TableSnapshot before = TableSnapshot.of(v);
            TableSnapshot soundsBefore = TableSnapshot.of(s);
            assertEquals(1, Snapshots.danglingReferences(v, s));
            assertEquals(2, Snapshots.danglingReferences(v), "no target given: both non-null values");
            assertEquals(before, TableSnapshot.of(v));
            assertEquals(soundsBefore, TableSnapshot.of(s));
            assertTrue(v.add() != 0, "no iteration guard left held");
        }
    }

    /** Mapped tables, "Reopening": another capacity limit throws SnapshotException naming the file. */
    @Test
    void mapped_reopeningWithAnotherCapacityLimit_isRefused() throws IOException {
        Schema s = schema("mapped_cap");
        Path file = dir.resolve("cap.bulk");
        int tag = FIXED + 5;
        try (BulkTable t = BulkTable.builder(s).tag(tag).maxCapacity(50).mapped(file)) {
            t.addAll(new long[50]);
        }
        for (int other : new int[] {0, 51}) {
            BulkTable.Builder b = BulkTable.builder(s).tag(tag);
            if (other > 0) {
                b.maxCapacity(other);
            }
            SnapshotException e = assertThrows(SnapshotException.class, () -> b.mapped(file));
            assertEquals(SnapshotException.Reason.SCHEMA_MISMATCH, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        try (BulkTable t = BulkTable.builder(s).tag(tag).maxCapacity(50).mapped(file)) {
            assertEquals(50, t.size());
            assertThrows(CapacityExceededException.class, t::add, "the limit holds after reopening");
        }
    }

    /** Mapped tables: "The file is created if absent", and reopens as the empty table it holds. */
    @Test
    void mapped_fileIsCreatedIfAbsent_andReopensEmpty() throws IOException {
        Schema s = schema("mapped_new");
        Path file = dir.resolve("sub-absent.bulk");
        assertFalse(Files.exists(file));
        int tag = FIXED + 6;
        try (PackedTable t = PackedTable.builder(s).tag(tag).mapped(file)) {
            assertTrue(Files.exists(file));
            assertEquals(0, t.size());
        }
        try (PackedTable t = PackedTable.builder(s).tag(tag).mapped(file)) {
            assertEquals(0, t.size());
            long h = t.add();
            assertEquals(tag, Handles.tag(h));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Observability

    /**
     * Observability: the four events are in the category "bulkdata" with the fields the table
     * lists; TableStatistics is periodic, every second by default.
     */
    @Test
    void observability_eventsHaveTheCategoryAndFieldsTheReadmeLists() throws Exception {
        Map<String, Set<String>> expected = Map.of(
                "dev.bulkdata.TableOpen", Set.of("table", "tag", "kind"),
                "dev.bulkdata.BlockAllocation", Set.of("table", "tag", "kind", "bytes", "blocks", "nativeBytes"),
                "dev.bulkdata.TableClose", Set.of("table", "tag", "kind", "blocks", "nativeBytes", "reclaimed"),
                "dev.bulkdata.TableStatistics", Set.of("table", "tag", "kind", "live", "holes", "retired",
                        "capacity", "blocks", "nativeBytes"));
        try (Recording recording = new Recording()) {
            for (String name : expected.keySet()) {
                recording.enable(name);
            }
            recording.enable("dev.bulkdata.TableStatistics").withPeriod(Duration.ofMillis(20));
            recording.start();
            BulkTable t = BulkTable.of(schema("jfr_claims"));
            int tag = Handles.tag(t.add());
            List<RecordedEvent> events = List.of();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (events.stream().noneMatch(e -> e.getEventType().getName().equals("dev.bulkdata.TableStatistics"))) {
                assertTrue(System.nanoTime() < deadline, "no statistics event");
                Thread.sleep(50);
                events = dump(recording, tag);
            }
            t.close();
            recording.stop();
            events = dump(recording, tag);
            for (Map.Entry<String, Set<String>> entry : expected.entrySet()) {
                RecordedEvent event = events.stream().filter(e -> e.getEventType().getName().equals(entry.getKey()))
                        .findFirst().orElseGet(() -> fail("no " + entry.getKey() + " event"));
                EventType type = event.getEventType();
                assertEquals(List.of("bulkdata"), type.getCategoryNames(), entry.getKey());
                Set<String> fields = type.getFields().stream().map(ValueDescriptor::getName).collect(Collectors.toSet());
                assertTrue(fields.containsAll(entry.getValue()), entry.getKey() + " fields " + fields);
                assertEquals("jfr_claims", event.getString("table"));
                assertEquals("BulkTable", event.getString("kind"));
            }
        }
        EventType statistics = FlightRecorder.getFlightRecorder().getEventTypes().stream()
                .filter(e -> e.getName().equals("dev.bulkdata.TableStatistics")).findFirst().orElseThrow();
        String period = statistics.getSettingDescriptors().stream().filter(d -> d.getName().equals("period"))
                .map(SettingDescriptor::getDefaultValue).findFirst().orElseThrow();
        assertEquals("1 s", period, "every second by default");
    }

    private List<RecordedEvent> dump(Recording recording, int tag) throws IOException {
        Path file = dir.resolve("claims-" + System.nanoTime() + ".jfr");
        recording.dump(file);
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.bulkdata.") && e.getInt("tag") == tag)
                .toList();
        Files.delete(file);
        return events;
    }
}
