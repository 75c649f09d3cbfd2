package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What is particular to stable slots: reuse order, the free list, wiping, memory per record. */
class BulkTableTest {

    private static long[] indices(Table table, long... handles) {
        long[] out = new long[handles.length];
        for (int i = 0; i < handles.length; i++) {
            out[i] = table.handleLayout().slot(handles[i]);
        }
        return out;
    }

    /**
     * Holes made at h[3], h[7], h[1] (in that order) are reused: FIFO in the order they were
     * made, LIFO the other way round, SWEEP in slot order.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"SOA, FIFO, 3 7 1", "AOS, FIFO, 3 7 1", "SOA, LIFO, 1 7 3", "AOS, LIFO, 1 7 3",
            "SOA, SWEEP, 1 3 7", "AOS, SWEEP, 1 3 7"})
    void reuseOrder_decidesWhichHolesTheNextAddsTake(RecordLayout layout, ReuseOrder order, String expected) {
        try (BulkTable table = BulkTable.builder(TestSchemas.particles(layout)).reuseOrder(order).build()) {
            long[] h = new long[10];
            table.addAll(h);
            table.remove(h[3]);
            table.remove(h[7]);
            table.remove(h[1]);
            assertEquals(order, table.reuseOrder());
            long[] reused = java.util.Arrays.stream(expected.split(" ")).mapToLong(i -> h[Integer.parseInt(i)]).toArray();
            assertArrayEquals(indices(table, reused), indices(table, table.add(), table.add(), table.add()));
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void defaultReuseOrder_isSweep(RecordLayout layout) {
        try (BulkTable table = BulkTable.of(TestSchemas.particles(layout))) {
            assertEquals(ReuseOrder.SWEEP, table.reuseOrder());
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void holes_areReusedBeforeTheTableGrows(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (BulkTable table = BulkTable.of(schema)) {
            long[] h = new long[schema.slotsPerBlock() - 1]; // exactly fills block 0 (slot 0 is the header)
            table.addAll(h);
            assertEquals(1, table.stats().blocks());
            assertEquals(0, table.capacity() - table.size());
            table.removeAll(h, 0, 100);
            long[] again = new long[100];
            table.addAll(again);
            assertEquals(1, table.stats().blocks(), "all 100 went into holes");
            table.add();
            assertEquals(2, table.stats().blocks(), "only a full table grows");
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void slotZero_isTheFreeListHeader_andNeverHandedOut(RecordLayout layout) {
        try (BulkTable table = BulkTable.of(TestSchemas.narrow(layout))) {
            long[] h = new long[5000];
            table.addAll(h);
            table.removeAll(h);
            table.addAll(h);
            for (long handle : h) {
                assertTrue(table.handleLayout().slot(handle) > 0);
            }
            TableAudit.check(table);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void reusedSlots_handOutAllZeroRecords_afterRemoveAndAfterClear(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (BulkTable table = BulkTable.of(schema)) {
            long[] h = new long[8];
            table.addAll(h);
            for (long handle : h) {
                for (Field f : schema.fields()) {
                    Values.set(table, handle, f, Float.floatToRawIntBits(1.25f));
                }
            }
            table.remove(h[4]);
            long reused = table.add();
            assertEquals(table.handleLayout().slot(h[4]), table.handleLayout().slot(reused), "the hole is reused");
            for (Field f : schema.fields()) {
                assertEquals(0, Values.get(table, reused, f), "a reused record starts at zero: " + f);
            }
            table.clear();
            long[] again = new long[8];
            table.addAll(again);
            for (long handle : again) {
                for (Field f : schema.fields()) {
                    assertEquals(0, Values.get(table, handle, f), "a record after clear starts at zero: " + f);
                }
            }
            TableAudit.check(table);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void memoryPerRecord_isTheRecordSize_forPowerOfTwoRecords(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (BulkTable table = BulkTable.of(schema)) {
            long[] h = new long[512 * 20 - 1];
            table.addAll(h);
            TableStats stats = table.stats();
            assertEquals(20, stats.blocks());
            assertEquals(20 * 16384L, stats.nativeBytes());
            assertEquals(32.0, stats.nativeBytes() / (double) (stats.live() + 1), 1e-9);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void capacity_countsLiveHolesAndUnusedSlotsOfAllocatedBlocks(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (BulkTable table = BulkTable.of(schema)) {
            assertEquals(0, table.capacity());
            long h = table.add();
            assertEquals(schema.slotsPerBlock() - 1, table.capacity());
            table.remove(h);
            assertEquals(schema.slotsPerBlock() - 1, table.capacity());
        }
    }
}
