package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every table kind and layout must share: every test here runs once per
 * {@link Kind}, and is reported per kind.
 */
@ParameterizedClass(name = "{0}")
@EnumSource
class TableContractTest {
    /** The tables the contract runs on: each kind with both layouts, and a BulkTable reusing holes LIFO. */
    enum Kind {
        /** A {@link BulkTable} with the default SOA layout and SWEEP reuse. */
        BULK_SOA(RecordLayout.SOA, BulkTable::of),
        /** A {@link BulkTable} with the AOS layout. */
        BULK_AOS(RecordLayout.AOS, BulkTable::of),
        /** A {@link BulkTable} reusing holes last-in first-out. */
        BULK_LIFO(RecordLayout.SOA, schema -> BulkTable.builder(schema).reuseOrder(ReuseOrder.LIFO).build()),
        /** A {@link PackedTable} with the default SOA layout. */
        PACKED_SOA(RecordLayout.SOA, PackedTable::of),
        /** A {@link PackedTable} with the AOS layout. */
        PACKED_AOS(RecordLayout.AOS, PackedTable::of);

        final RecordLayout layout;
        final Function<Schema, Table> build;

        Kind(RecordLayout layout, Function<Schema, Table> build) {
            this.layout = layout;
            this.build = build;
        }
    }

    @Parameter
    Kind kind;

    /** The layout this run uses. */
    RecordLayout layout() {
        return kind.layout;
    }

    /** A new, empty table of the kind under test. */
    Table newTable(Schema schema) {
        return kind.build.apply(schema);
    }

    // ---- add, get, set ---------------------------------------------------------------------

    @Test
    void add_returnsDistinctNonNullHandles_whoseRecordsReadZero() {
        Schema schema = TestSchemas.mixed(layout());
        try (Table table = newTable(schema)) {
            Set<Long> handles = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                long h = table.add();
                assertNotEquals(Handles.NULL, h);
                assertTrue(handles.add(h), "handle handed out twice: " + table.format(h));
                for (Field f : schema.fields()) {
                    assertEquals(0L, Values.get(table, h, f), f + " of a new record");
                }
            }
            assertEquals(100, table.size());
        }
    }

    @Test
    void set_thenGet_roundTripsEveryTypeIncludingExtremes() {
        Schema schema = TestSchemas.mixed(layout());
        try (Table table = newTable(schema)) {
            long a = table.add();
            long b = table.add();
            table.set(a, schema.byteField("b"), Byte.MIN_VALUE);
            table.set(a, schema.longField("l"), Long.MIN_VALUE);
            table.set(a, schema.shortField("s"), Short.MAX_VALUE);
            table.set(a, schema.charField("c"), '\uffff');
            table.set(a, schema.intField("i"), -1);
            table.set(a, schema.floatField("f"), -0.0f);
            table.set(a, schema.doubleField("d"), Double.NaN);
            table.set(a, schema.booleanField("z"), true);
            table.set(b, schema.doubleField("d"), Double.MAX_VALUE);

            assertEquals(Byte.MIN_VALUE, table.get(a, schema.byteField("b")));
            assertEquals(Long.MIN_VALUE, table.get(a, schema.longField("l")));
            assertEquals(Short.MAX_VALUE, table.get(a, schema.shortField("s")));
            assertEquals('\uffff', table.get(a, schema.charField("c")));
            assertEquals(-1, table.get(a, schema.intField("i")));
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(table.get(a, schema.floatField("f"))));
            assertTrue(Double.isNaN(table.get(a, schema.doubleField("d"))));
            assertTrue(table.get(a, schema.booleanField("z")));
            // Neighbours are untouched: every field of b except d is still zero.
            assertEquals(Double.MAX_VALUE, table.get(b, schema.doubleField("d")));
            for (Field f : schema.fields()) {
                if (!f.name().equals("d")) {
                    assertEquals(0L, Values.get(table, b, f), f + " of the neighbour");
                }
            }
        }
    }

    @Test
    void records_spanningManyBlocks_keepTheirOwnValues() {
        Schema schema = TestSchemas.particles(layout());
        FloatField t = schema.floatField("t");
        FloatField pz = schema.floatField("pz");
        try (Table table = newTable(schema)) {
            long[] handles = new long[5000];
            for (int i = 0; i < handles.length; i++) {
                handles[i] = table.add();
                table.set(handles[i], t, i);
                table.set(handles[i], pz, -i);
            }
            for (int i = 0; i < handles.length; i++) {
                assertEquals(i, table.get(handles[i], t));
                assertEquals(-i, table.get(handles[i], pz));
            }
            assertTrue(table.stats().blocks() >= 5000 / schema.slotsPerBlock());
        }
    }

    // ---- remove ------------------------------------------------------------------------------

    @Test
    void remove_makesEveryCopyOfTheHandleStale() {
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            long keep = table.add();
            long gone = table.add();
            table.remove(gone);
            assertFalse(table.contains(gone));
            assertTrue(table.contains(keep));
            assertEquals(1, table.size());
            InvalidHandleException e = assertThrows(InvalidHandleException.class,
                    () -> table.get(gone, schema.floatField("t")));
            assertEquals(InvalidHandleException.Reason.STALE, e.reason());
        }
    }

    @Test
    void remove_thenAdd_reusesTheHoleWithANewGeneration_andWipedValues() {
        Schema schema = TestSchemas.mixed(layout());
        try (Table table = newTable(schema)) {
            List<Long> handles = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long h = table.add();
                for (Field f : schema.fields()) {
                    Values.set(table, h, f, -1L);
                }
                handles.add(h);
            }
            int blocks = table.stats().blocks();
            long victim = handles.get(7);
            table.remove(victim);
            long reborn = table.add();
            HandleLayout layout = table.handleLayout();
            assertEquals(layout.slot(victim), layout.slot(reborn), "the hole is reused");
            assertEquals(layout.generation(victim) + 1, layout.generation(reborn));
            assertFalse(table.contains(victim));
            assertEquals(blocks, table.stats().blocks(), "reusing a hole allocates nothing");
            for (Field f : schema.fields()) {
                assertEquals(0L, Values.get(table, reborn, f), f + " of the reused slot");
            }
        }
    }

    @Test
    void addAll_ofNothing_onANewTable_changesNothing() {
        // Found by the fuzz tests: an empty addAll on a PackedTable with no block yet asked for
        // back-link pages up to element -1, which ran out of memory.
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            TableStats before = table.stats();
            table.addAll(new long[0]);
            table.removeAll(new long[0]);
            assertEquals(before, table.stats());
            long h = table.add();
            assertTrue(table.contains(h));
        }
    }

    @Test
    void addAll_andRemoveAll_workInBulk() {
        Schema schema = TestSchemas.particles(layout());
        FloatField t = schema.floatField("t");
        try (Table table = newTable(schema)) {
            long[] handles = new long[1500];
            table.addAll(handles);
            assertEquals(1500, table.size());
            assertEquals(1500, new HashSet<>(java.util.Arrays.stream(handles).boxed().toList()).size());
            for (int i = 0; i < handles.length; i++) {
                table.set(handles[i], t, i);
            }
            table.removeAll(handles, 0, 1000);
            assertEquals(500, table.size());
            for (int i = 0; i < handles.length; i++) {
                assertEquals(i >= 1000, table.contains(handles[i]));
            }
            long[] more = new long[10];
            table.addAll(more, 2, 7);
            assertEquals(0L, more[0]);
            assertEquals(0L, more[9]);
            for (int i = 2; i < 7; i++) {
                assertTrue(table.contains(more[i]));
            }
            assertEquals(505, table.size());
        }
    }

    // ---- clear -------------------------------------------------------------------------------

    @Test
    void clear_makesAllHandlesStale_keepsCapacity_andStartsOverAtTheFirstSlot() {
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            long[] handles = new long[2000];
            table.addAll(handles);
            table.set(handles[0], schema.floatField("vx"), 3f);
            TableStats before = table.stats();
            table.clear();
            assertEquals(0, table.size());
            assertTrue(table.isEmpty());
            for (long h : handles) {
                assertFalse(table.contains(h));
            }
            assertEquals(before.blocks(), table.stats().blocks());
            assertEquals(before.nativeBytes(), table.stats().nativeBytes());
            long first = table.add();
            assertEquals(table.handleLayout().slot(handles[0]), table.handleLayout().slot(first));
            assertEquals(0f, table.get(first, schema.floatField("vx")));
            assertEquals(1, countLive(table));
        }
    }

    // ---- iteration ---------------------------------------------------------------------------

    @Test
    void forEach_visitsExactlyTheLiveRecords_skippingHoles() {
        Schema schema = TestSchemas.particles(layout());
        FloatField t = schema.floatField("t");
        try (Table table = newTable(schema)) {
            long[] handles = new long[3000];
            table.addAll(handles);
            Set<Long> expected = new HashSet<>();
            for (int i = 0; i < handles.length; i++) {
                table.set(handles[i], t, i);
                if (i % 3 == 0 || (i > 1000 && i < 1700)) {
                    table.remove(handles[i]);
                } else {
                    expected.add(handles[i]);
                }
            }
            Set<Long> seen = new HashSet<>();
            table.forEach((chunk, slot) -> {
                long h = chunk.handle(slot);
                assertTrue(seen.add(h), "visited twice: " + table.format(h));
                assertEquals(table.get(h, t), chunk.get(slot, t));
            });
            assertEquals(expected, seen);
        }
    }

    @Test
    void chunks_reportLiveCounts_bitmaps_andNextLive_consistently() {
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            long[] handles = new long[1300];
            table.addAll(handles);
            for (int i = 0; i < handles.length; i += 2) {
                table.remove(handles[i]);
            }
            int total = 0;
            try (ChunkIteration chunks = table.iterate()) {
                int index = 0;
                for (Chunk chunk : chunks) {
                    assertEquals(index++, chunk.index());
                    assertEquals(schema.slotsPerBlock(), chunk.slotCount());
                    assertSame(schema, chunk.schema());
                    int fromBits = 0;
                    for (int w = 0; w < chunk.liveWordCount(); w++) {
                        long bits = chunk.liveBits(w);
                        fromBits += Long.bitCount(bits);
                        while (bits != 0) {
                            int s = w * 64 + Long.numberOfTrailingZeros(bits);
                            bits &= bits - 1;
                            assertTrue(chunk.isLive(s));
                        }
                    }
                    int fromNext = 0;
                    int last = -1;
                    for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                        assertTrue(s > last);
                        last = s;
                        fromNext++;
                    }
                    assertEquals(chunk.liveCount(), fromBits);
                    assertEquals(chunk.liveCount(), fromNext);
                    assertEquals(-1, chunk.nextLive(chunk.slotCount()));
                    total += chunk.liveCount();
                }
                assertEquals(index, chunks.count());
            }
            assertEquals(table.size(), total);
        }
    }

    @Test
    void chunkSetters_areSeenThroughHandles() {
        Schema schema = TestSchemas.mixed(layout());
        try (Table table = newTable(schema)) {
            long[] handles = new long[50];
            table.addAll(handles);
            table.forEach((chunk, slot) -> {
                for (Field f : schema.fields()) {
                    Values.set(chunk, slot, f, chunk.handle(slot) ^ f.index());
                }
            });
            for (long h : handles) {
                for (Field f : schema.fields()) {
                    assertEquals(Values.normalize(f.type(), h ^ f.index()), Values.get(table, h, f));
                }
            }
        }
    }

    @Test
    void forEachChunk_visitsEveryChunkOnce() {
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            long[] handles = new long[2 * schema.slotsPerBlock() + 5];
            table.addAll(handles);
            List<Integer> indices = new ArrayList<>();
            table.forEachChunk(chunk -> indices.add(chunk.index()));
            assertEquals(table.stats().blocks(), indices.size());
            for (int i = 0; i < indices.size(); i++) {
                assertEquals(i, indices.get(i));
            }
        }
    }

    @Test
    void records_isAZeroCopyViewOfTheBlock() {
        Schema schema = TestSchemas.particles(layout());
        FloatField py = schema.floatField("py");
        try (Table table = newTable(schema)) {
            long h = table.add();
            table.set(h, py, 42.5f);
            try (ChunkIteration chunks = table.iterate()) {
                Chunk chunk = chunks.chunk(0);
                int slot = chunk.nextLive(0);
                while (chunk.handle(slot) != h) {
                    slot = chunk.nextLive(slot + 1);
                }
                MemorySegment read = chunk.records();
                assertEquals(schema.blockBytes(), read.byteSize());
                long at = py.blockOffset() + (long) slot * py.slotStride();
                assertEquals(42.5f, read.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at));
                assertThrows(IllegalArgumentException.class, () -> read.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, 7f),
                        "records() is for reading");
                MemorySegment block = chunk.writableRecords();
                assertEquals(schema.blockBytes(), block.byteSize());
                block.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, 7f);
                assertEquals(7f, read.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at), "the same memory");
            }
            assertEquals(7f, table.get(h, py));
        }
    }

    // ---- handles, stats ----------------------------------------------------------------------

    @Test
    void handles_formatWithTheTableName_andTablesHaveDistinctTags() {
        Schema schema = TestSchemas.particles(layout());
        try (Table one = newTable(schema); Table two = newTable(schema)) {
            long h = one.add();
            long g = two.add();
            String expected = "particles#" + one.handleLayout().slot(h) + "@0";
            assertEquals(expected, one.format(h));
            assertEquals(expected, Handles.format(h));
            assertNotEquals(one.handleLayout().tag(h), two.handleLayout().tag(g));
            assertFalse(one.contains(g));
            assertFalse(two.contains(h));
            assertEquals("null", one.format(Handles.NULL));
        }
    }

    @Test
    void stats_accountNativeBytesPerBlock_andCountHoles() {
        Schema schema = TestSchemas.particles(layout());
        try (Table table = newTable(schema)) {
            assertEquals(0, table.stats().nativeBytes(), "no memory before the first add");
            long[] handles = new long[1000];
            table.addAll(handles);
            table.removeAll(handles, 0, 100);
            TableStats stats = table.stats();
            assertEquals(900, stats.live());
            // A BulkTable keeps the 100 removed slots as holes; a PackedTable's rows never have one.
            assertEquals(table instanceof PackedTable ? 0 : 100, stats.holes());
            assertEquals((long) stats.blocks() * schema.blockBytes(), stats.nativeBytes());
            assertEquals(table.capacity(), stats.capacity());
            assertTrue(stats.capacity() >= 1000);
            assertEquals(0, stats.retired());
            assertEquals(16384, schema.blockBytes(), "32-byte records fill a 16 KiB block exactly");
            long refill = table.add();
            assertEquals(table instanceof PackedTable ? 0 : 99, table.stats().holes(), "an add reuses a hole");
            table.remove(refill);
            table.clear();
            TableStats cleared = table.stats();
            assertEquals(0, cleared.live());
            assertEquals(table instanceof PackedTable ? 0 : 1000, cleared.holes(), "clear turns every record into a hole");
            assertEquals(stats.blocks(), cleared.blocks(), "clear keeps the blocks");
        }
    }

    @Test
    void closedTable_freesItsMemory_andRefusesUse() {
        Schema schema = TestSchemas.particles(layout());
        Table table = newTable(schema);
        long h = table.add();
        table.close();
        assertTrue(table.isClosed());
        assertFalse(table.contains(h));
        assertThrows(IllegalStateException.class, () -> table.get(h, schema.floatField("t")));
        assertThrows(IllegalStateException.class, table::add);
        table.close();
    }

    private static int countLive(Table table) {
        int[] n = {0};
        table.forEach((chunk, slot) -> n[0]++);
        return n[0];
    }
}
