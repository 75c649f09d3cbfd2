package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A handle of a closed table is never accepted by a later table, however many tables were
 * opened and closed since and whatever their kinds and handle layouts; when the tags are worn
 * out for a layout, opening fails with {@link CapacityExceededException}.
 *
 * <p>The scenarios that wear out every tag of the process-wide registry run in a child JVM
 * ({@link Child}), leaving this JVM's registry to the other tests; the others run here: the
 * message that names the closed table, and what happens while every automatic tag is held.
 */
class TagReuseTest {
    /** More than twice the tags there are: every tag is reused at least twice. */
    static final int TABLES = 2 * HandleLayout.MAX_TAG + 400;

    @Test
    void keptHandlesOfClosedTables_areRejectedByEveryLaterTable_inAChildJvm() throws Exception {
        ChildJvm.Result result = ChildJvm.run(Child.class, 300, Integer.toString(TABLES));
        assertEquals(0, result.exitCode(), result::output);
        assertTrue(result.output().contains("reuse: " + TABLES + " tables"), result::output);
        assertTrue(result.output().contains("repro: rejected"), result::output);
        assertTrue(result.output().contains("worn out: CapacityExceededException"), result::output);
    }

    // ---------------------------------------------------------------------------------------
    // In this JVM: fixed tags 4050, 4051 and 4057, used by no other test

    private static Schema schema(String name) {
        return Schema.builder(name).add(FieldType.INT, "a").add(FieldType.LONG, "b").build();
    }

    /**
     * A handle of a closed table whose tag another table holds again (here a fixed tag, reused
     * at once) is CLOSED to every table: not FOREIGN to the new holder, which never made it.
     * The message names the closed table.
     */
    @Test
    void aClosedTablesHandle_isClosedToEveryLaterTable_whileItsTagIsHeldAgain() {
        int tag = 4050;
        long orphan;
        try (BulkTable gone = BulkTable.builder(schema("tag_gone")).tag(tag).build()) {
            orphan = gone.add();
        }
        try (BulkTable heir = BulkTable.builder(schema("tag_heir")).tag(tag).build();
             BulkTable third = BulkTable.of(schema("tag_third"))) {
            heir.add();
            third.add();
            InvalidHandleException byHeir = assertThrows(InvalidHandleException.class, () -> heir.remove(orphan));
            assertEquals(InvalidHandleException.Reason.CLOSED, byHeir.reason(), byHeir.getMessage());
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> third.remove(orphan));
            assertEquals(InvalidHandleException.Reason.CLOSED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("'tag_gone'"), e.getMessage());
        }
    }

    /**
     * After a second table used and closed the same tag, a later table still rejects the first
     * table's handle as CLOSED (no open table holds the tag; its last table is closed), naming
     * the last closed table that held the tag.
     */
    @Test
    void aClosedTablesHandle_namesTheLastClosedHolder_afterTheTagWasReusedAndClosedAgain() {
        int tag = 4051;
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
            assertEquals(InvalidHandleException.Reason.CLOSED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("'tag_second'"), e.getMessage());
            assertFalse(e.getMessage().contains("tag_later#"), "formatted with the rejecting table's name: " + e.getMessage());
        }
    }

    /**
     * Automatic tags are 1 to 3,839, fixed ones 3,840 to 4,095; with every automatic tag held,
     * opening throws CapacityExceededException (an IllegalStateException); a fixed tag still
     * opens, and closing frees the tags.
     */
    @Test
    void noAutomaticTagLeft_throwsCapacityExceeded_andAutomaticTagsStayBelowTheFixedRange() {
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
                assertNotEquals("tag_hog", dev.bulkdata.storage.internal.tags.TagRegistry.nameOf(tag),
                        "an automatic table took fixed tag " + tag);
            }
            try (BulkTable fixed = BulkTable.builder(s).tag(4057).build()) {
                assertEquals(4057, Handles.tag(fixed.add()), "a fixed tag still opens");
            }
        } finally {
            open.forEach(Table::close);
        }
        try (BulkTable again = BulkTable.of(s)) {
            assertFalse(again.isClosed(), "closing frees the tags");
        }
    }

    /**
     * Handles made only by batch adds (after clears, so at generations above the first) count
     * for the tag's floor like single adds: a later table on the same tag, refilled the same
     * way, never hands out one of them again.
     */
    @Test
    void handlesOfBatchAdds_areNeverHandedOutAgain_byALaterTableOnTheSameTag() {
        int tag = 4058;
        java.util.HashSet<Long> gone = new java.util.HashSet<>();
        for (int round = 0; round < 3; round++) {
            try (BulkTable table = BulkTable.builder(schema("tag_batch")).tag(tag).build()) {
                long[] handles = new long[100];
                for (int fill = 0; fill < 3; fill++) {
                    table.clear();
                    table.addAll(handles);
                    for (long h : handles) {
                        assertFalse(gone.contains(h), "round " + round + " handed out " + Handles.format(h) + " again");
                    }
                    for (long h : handles) {
                        gone.add(h);
                    }
                }
                for (long h : gone) {
                    assertEquals(Arrays.stream(handles).anyMatch(x -> x == h), table.contains(h), Handles.format(h));
                }
            }
        }
        assertEquals(900, gone.size());
    }

    /** The child: each scenario throws {@link AssertionError} on the first handle wrongly accepted. */
    static final class Child {
        private static final Schema ACCOUNTS = Schema.builder("accounts").add(FieldType.LONG, "balance").build();
        private static final Schema OTHER = Schema.builder("other").add(FieldType.LONG, "balance").build();
        private static final LongField ACCOUNT_BALANCE = ACCOUNTS.longField("balance");
        private static final LongField OTHER_BALANCE = OTHER.longField("balance");
        /** Layouts whose tables share tags: the floors must hold across layouts too. */
        private static final HandleLayout[] LAYOUTS = {
                HandleLayout.DEFAULT, HandleLayout.of(24, 20), HandleLayout.of(32, 12), HandleLayout.of(20, 16)};

        public static void main(String[] args) {
            repro();
            wornOut();
            reuse(Integer.parseInt(args[0]));
        }

        /** The report's scenario: open tables until one gets the closed table's tag. */
        static void repro() {
            Table accounts = BulkTable.of(ACCOUNTS);
            long kept = accounts.add();
            accounts.set(kept, ACCOUNT_BALANCE, 100);
            accounts.close();
            Table other;
            int opened = 0;
            while (true) {
                other = BulkTable.of(OTHER);
                long h = other.add();
                opened++;
                if (Handles.tag(h) == Handles.tag(kept)) {
                    break;
                }
                other.close();
            }
            check(!other.contains(kept), "a later table under the same tag accepts a closed table's handle");
            Table same = other;
            InvalidHandleException e = expectInvalid(() -> same.get(kept, OTHER_BALANCE));
            check(e.getMessage().contains("'accounts'"), "the message should name the closed table: " + e.getMessage());
            expectInvalid(() -> same.set(kept, OTHER_BALANCE, 7));
            expectInvalid(() -> same.remove(kept));
            other.close();
            System.out.println("repro: rejected after " + opened + " tables: " + e.getMessage());
        }

        /**
         * Opens and closes {@code tables} tables of both kinds and several layouts, keeping a
         * handle of each (after moving its slot's generation a little), and checks that every
         * later table rejects every kept handle.
         */
        static void reuse(int tables) {
            long[] kept = new long[tables];
            int sameTag = 0;
            for (int i = 0; i < tables; i++) {
                TableKind kind = TableKind.values()[i % 2];
                HandleLayout layout = LAYOUTS[(i / 2) % LAYOUTS.length];
                Table table = kind.build(OTHER, layout, Integer.MAX_VALUE);
                long h = table.add();
                for (int churn = i % 4; churn > 0; churn--) {
                    table.remove(h);
                    h = table.add();
                }
                long second = table.add();
                table.set(h, OTHER_BALANCE, i);
                table.set(second, OTHER_BALANCE, -i);
                int tag = table.handleLayout().tag(h);
                for (int j = 0; j < i; j++) {
                    if (table.contains(kept[j])) {
                        throw new AssertionError("table " + i + " (" + kind + ", " + layout + ", tag " + tag
                                + ") accepts handle " + Long.toHexString(kept[j]) + " of closed table " + j);
                    }
                    if (HandleLayout.DEFAULT.tag(kept[j]) == tag) {
                        sameTag++;
                        long old = kept[j];
                        expectInvalid(() -> table.get(old, OTHER_BALANCE));
                    }
                }
                check(table.get(h, OTHER_BALANCE) == i && table.get(second, OTHER_BALANCE) == -i,
                        "table " + i + " lost its own records");
                kept[i] = i % 2 == 0 ? h : second;
                table.close();
            }
            check(sameTag >= tables / 2, "too few same-tag checks: " + sameTag);
            System.out.printf(Locale.ROOT, "reuse: %d tables, %d same-tag rejections, distinct tags %d%n", tables,
                    sameTag, Arrays.stream(kept).map(HandleLayout.DEFAULT::tag).distinct().count());
        }

        /**
         * With one generation bit every slot can be used twice under a tag, so tags wear out:
         * opening must then fail with {@link CapacityExceededException}, never alias.
         */
        static void wornOut() {
            HandleLayout tiny = HandleLayout.of(4, 1);
            long[] kept = new long[4 * HandleLayout.MAX_TAG];
            int n = 0;
            try {
                while (n < kept.length) {
                    Table table = BulkTable.builder(OTHER).handleLayout(tiny).build();
                    for (int j = 0; j < n; j++) {
                        check(!table.contains(kept[j]), "a worn tag's table accepts an old handle");
                    }
                    kept[n++] = table.add();
                    table.close();
                }
                throw new AssertionError(n + " tables with one generation bit opened without wearing out a tag");
            } catch (CapacityExceededException e) {
                check(e.getMessage().contains("generation bits"), "the message should say what to do: " + e.getMessage());
                System.out.println("worn out: CapacityExceededException after " + n + " tables: " + e.getMessage());
            }
            // Other layouts may still find a usable tag.
            try (Table table = BulkTable.of(OTHER)) {
                long h = table.add();
                for (long old : Arrays.copyOf(kept, n)) {
                    check(!table.contains(old), "a later default-layout table accepts an old handle");
                }
                check(table.contains(h), "the new table works");
            }
        }

        private static InvalidHandleException expectInvalid(Runnable call) {
            try {
                call.run();
            } catch (InvalidHandleException e) {
                return e;
            }
            throw new AssertionError("expected InvalidHandleException");
        }

        private static void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(message);
            }
        }
    }
}
