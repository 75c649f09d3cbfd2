package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ConcurrentModificationException;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Table#cancelAdd(long)}: the table's structure returns to exactly what it was before the
 * add (stats, capacity, the slot the next add takes), while the cancelled handle stays stale.
 */
class CancelAddTest {
    static Stream<Arguments> tables() {
        return Stream.of(
                Arguments.of("bulk SOA FIFO", (TableFactory) s -> BulkTable.builder(s).build(), RecordLayout.SOA),
                Arguments.of("bulk AOS LIFO", (TableFactory) s -> BulkTable.builder(s).reuseOrder(ReuseOrder.LIFO)
                        .build(), RecordLayout.AOS),
                Arguments.of("bulk SOA SWEEP", (TableFactory) s -> BulkTable.builder(s).reuseOrder(ReuseOrder.SWEEP)
                        .build(), RecordLayout.SOA),
                Arguments.of("packed SOA", (TableFactory) s -> PackedTable.of(s), RecordLayout.SOA),
                Arguments.of("packed AOS", (TableFactory) s -> PackedTable.of(s), RecordLayout.AOS));
    }

    interface TableFactory {
        Table open(Schema schema);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_onANewTable_leavesNoBlockNoHoleAndNoSlot(String name, TableFactory factory, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (Table table = factory.open(schema)) {
            TableStats before = table.stats();
            int capacity = table.capacity();
            long h = table.add();
            assertEquals(1, table.stats().blocks());
            assertTrue(table.cancelAdd(h));
            assertEquals(before, table.stats(), "stats equal before the add and after its cancel");
            assertEquals(capacity, table.capacity());
            assertFalse(table.contains(h));
            assertThrows(InvalidHandleException.class, () -> table.get(h, schema.floatField("t")));
            // The next add takes the same slot, with a newer generation, reusing the spare block.
            long again = table.add();
            HandleLayout handles = table.handleLayout();
            assertEquals(handles.slot(h), handles.slot(again));
            assertNotEquals(handles.generation(h), handles.generation(again));
            assertFalse(table.contains(h));
            assertEquals(1, table.stats().blocks());
            assertEquals(schema.blockBytes(), table.stats().nativeBytes());
            assertEquals(0f, table.get(again, schema.floatField("t")));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_onATableWithHoles_putsTheSlotBackWhereAddTookIt(String name, TableFactory factory, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        FloatField t = schema.floatField("t");
        try (Table table = factory.open(schema)) {
            long[] handles = new long[1500];
            table.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                table.set(handles[i], t, i);
            }
            table.removeAll(new long[] {handles[10], handles[700], handles[20]});
            TableStats before = table.stats();
            long h = table.add();
            table.set(h, t, 42f);
            assertTrue(table.cancelAdd(h));
            assertEquals(before, table.stats());
            long next = table.add();
            assertEquals(table.handleLayout().slot(h), table.handleLayout().slot(next),
                    "the next add takes the slot the cancelled add took");
            assertEquals(0f, table.get(next, t), "the cancelled record was wiped");
            for (int i = 0; i < handles.length; i++) {
                if (i != 10 && i != 700 && i != 20) {
                    assertEquals(i, table.get(handles[i], t), "record " + i);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_afterAnotherChange_removesTheRecordOrIgnoresAStaleHandle(String name, TableFactory factory,
                                                                          RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (Table table = factory.open(schema)) {
            long a = table.add();
            long b = table.add();
            assertFalse(table.cancelAdd(a), "not the last add: removed like remove()");
            assertFalse(table.contains(a));
            assertTrue(table.contains(b));
            TableStats before = table.stats();
            assertFalse(table.cancelAdd(a), "a stale handle is ignored");
            assertFalse(table.cancelAdd(Handles.NULL));
            assertEquals(before, table.stats());
            long c = table.add();
            table.remove(c); // the initialiser removed its own record
            TableStats afterRemove = table.stats();
            assertFalse(table.cancelAdd(c));
            assertEquals(afterRemove, table.stats());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_whileIterating_orAfterClose_throws(String name, TableFactory factory, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        Table table = factory.open(schema);
        long h = table.add();
        try (ChunkIteration ignored = table.iterate()) {
            assertThrows(ConcurrentModificationException.class, () -> table.cancelAdd(h));
        }
        assertTrue(table.contains(h));
        table.close();
        assertThrows(IllegalStateException.class, () -> table.cancelAdd(h));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_atTheSlotsLastGeneration_retiresItAndSaysSo(String name, TableFactory factory, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        Table table = factory.open(schema);
        table.close();
        try (Table tiny = table instanceof PackedTable
                ? PackedTable.builder(schema).handleLayout(HandleLayout.of(8, 1)).build()
                : BulkTable.builder(schema).handleLayout(HandleLayout.of(8, 1)).build()) {
            long h = tiny.add();
            int floor = tiny.handleLayout().generation(h);
            if (floor == tiny.handleLayout().maxGeneration()) {
                assertFalse(tiny.cancelAdd(h));
                assertEquals(1, tiny.stats().retired());
                return;
            }
            tiny.remove(h);
            long last = tiny.add();
            assertEquals(tiny.handleLayout().maxGeneration(), tiny.handleLayout().generation(last));
            assertFalse(tiny.cancelAdd(last), "the slot cannot go back: its generation is used up");
            assertEquals(1, tiny.stats().retired());
            assertFalse(tiny.contains(last));
        }
    }

    /**
     * REGRESSION: after a clear, a take from the free list must not be undone as if it came
     * from the sweep (LIFO takes the list first, so an earlier sweep take must not leak).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void cancelAdd_ofAListTake_afterASweepTake_putsTheSlotBackAtTheListHead(String name, TableFactory factory,
                                                                            RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (Table table = factory.open(schema)) {
            long[] h = new long[100];
            table.addAll(h);
            table.clear();                 // every slot in the sweep
            long fromSweep = table.add();  // a sweep take
            long[] more = new long[10];
            table.addAll(more);
            table.remove(more[5]);         // one hole linked in the list
            TableStats before = table.stats();
            long next = table.add();       // LIFO: from the list; FIFO: from the sweep
            assertTrue(table.cancelAdd(next));
            assertEquals(before, table.stats());
            TableAudit.check(table);
            long again = table.add();      // takes the cancelled add's slot again
            HandleLayout handles = table.handleLayout();
            assertEquals(handles.slot(next), handles.slot(again), "the next add takes the same slot");
            assertTrue(table.contains(fromSweep));
            TableAudit.check(table);
        }
    }
}
