package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The export read by {@link CConsumer}, a foreign consumer that sees only the C structs. */
class ArrowExportTest {
    static final long SEED = Long.getLong("bulkdata.seed", 20260611L);

    static Random random(String test) {
        System.out.println(test + ": seed " + SEED + " (-Dbulkdata.seed=" + SEED + " to repeat)");
        return new Random(SEED);
    }

    /** Reads the whole stream: every valid row's values by handle; checks the schema. Releases all. */
    private static int readAll(Table t, ArrowStream stream, Arena arena, Set<Long> handlesSeen) throws Throwable {
        MemorySegment s = CConsumer.stream(stream.address());
        MemorySegment schema = arena.allocate(CConsumer.SCHEMA_BYTES, 8);
        assertEquals(0, CConsumer.getSchema(s, schema));
        List<CConsumer.Column> cols = CConsumer.columns(schema);
        assertEquals("+s", CConsumer.column(schema).format());
        assertEquals(t.name(), CConsumer.column(schema).name());
        assertEquals(Map.of("bulkdata.table", t.name()), CConsumer.column(schema).metadata());
        List<Field> fields = stream.export().fields();
        boolean handles = stream.export().handleColumn() != null;
        assertEquals(fields.size() + (handles ? 1 : 0), cols.size());
        if (handles) {
            assertEquals(new CConsumer.Column(stream.export().handleColumn(), "l",
                    Map.of("bulkdata.handle.target", t.name()), 2), cols.get(0));
        }
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            CConsumer.Column c = cols.get(i + (handles ? 1 : 0));
            assertEquals(f.name(), c.name());
            assertEquals(CData.format(f.type()), c.format());
            assertEquals(f.type() == FieldType.HANDLE ? Map.of("bulkdata.handle.target", "others") : Map.of(),
                    c.metadata());
        }
        assertTrue(CConsumer.releaseSchema(schema));
        int arrays = 0;
        MemorySegment array = arena.allocate(CConsumer.ARRAY_BYTES, 8);
        while (true) {
            assertEquals(0, CConsumer.getNext(s, array));
            if (CConsumer.released(array, 64)) {
                break;
            }
            arrays++;
            long length = CConsumer.length(array);
            assertEquals(0, CConsumer.nullCount(array));
            MemorySegment first = CConsumer.child(array, 0);
            for (long row = 0; row < length; row++) {
                if (!CConsumer.valid(first, row)) {
                    continue;
                }
                long h;
                if (handles) {
                    h = CConsumer.value(first, "l", row);
                    assertTrue(handlesSeen.add(h), "handle twice");
                    assertTrue(t.contains(h));
                } else {
                    h = 0;
                }
                for (int i = 0; i < fields.size(); i++) {
                    MemorySegment child = CConsumer.child(array, i + (handles ? 1 : 0));
                    assertTrue(CConsumer.valid(child, row));
                    if (handles) {
                        assertEquals(Tables.get(t, h, fields.get(i)),
                                CConsumer.value(child, cols.get(i + 1).format(), row), fields.get(i).name());
                    }
                }
            }
            assertTrue(CConsumer.releaseArray(array));
        }
        assertTrue(CConsumer.releaseStream(s));
        return arrays;
    }

    @ParameterizedTest
    @CsvSource({"SOA, false", "SOA, true", "AOS, false", "AOS, true"})
    void everyTypeRoundTrips(RecordLayout layout, boolean packed) throws Throwable {
        Random random = random("everyTypeRoundTrips " + layout + " " + packed);
        try (Table t = Tables.open(Tables.everyType(layout), packed); Arena arena = Arena.ofConfined()) {
            Tables.fill(t, 3000, 30, random);
            Set<Long> seen = new HashSet<>();
            ArrowStream stream = ArrowExport.of(t).withHandles("id").open();
            int arrays = readAll(t, stream, arena, seen);
            assertEquals(t.size(), seen.size());
            assertTrue(stream.isReleased());
            assertEquals(arrays, stream.arrayCount());
            t.add();                                    // writable again
        }
    }

    @Test
    void soaColumnsAreTheBlocksMemory() throws Throwable {
        Random random = random("soaColumnsAreTheBlocksMemory");
        Schema schema = Tables.everyType(RecordLayout.SOA);
        try (Table t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            Tables.fill(t, 5000, 10, random);
            List<Field> fields = schema.fields();
            ArrowStream stream = ArrowExport.of(t).open();
            MemorySegment s = CConsumer.stream(stream.address());
            MemorySegment array = arena.allocate(CConsumer.ARRAY_BYTES, 8);
            long expectedCopy = 0;
            try (ChunkIteration chunks = t.iterate()) {
                for (Chunk chunk : chunks) {
                    if (chunk.liveCount() == 0) {
                        continue;
                    }
                    assertEquals(0, CConsumer.getNext(s, array));
                    long length = CConsumer.length(array);
                    for (int i = 0; i < fields.size(); i++) {
                        Field f = fields.get(i);
                        MemorySegment child = CConsumer.child(array, i);
                        if (f.type() == FieldType.BOOLEAN) {
                            assertNotEquals(chunk.column(f).address(), CConsumer.buffer(child, 1));
                        } else {
                            assertEquals(chunk.column(f).address(), CConsumer.buffer(child, 1), f.name());
                        }
                    }
                    long words = CConsumer.nullCount(CConsumer.child(array, 0)) > 0 ? (length + 63) / 64 : 0;
                    expectedCopy += words * 8 + (length + 7) / 8;       // validity, booleans
                    assertTrue(CConsumer.releaseArray(array));
                }
            }
            assertEquals(0, CConsumer.getNext(s, array));
            assertTrue(CConsumer.released(array, 64));
            assertEquals(expectedCopy, stream.bytesCopied());
            assertTrue(CConsumer.releaseStream(s));
            assertTrue(stream.isReleased());
        }
    }

    @Test
    void fullChunksHaveNoValidityAndNothingIsCopied() throws Throwable {
        Schema schema = Schema.builder("floats").add(FieldType.FLOAT, "x", "y").build();
        FloatField x = schema.floatField("x");
        try (PackedTable packed = PackedTable.of(schema); BulkTable bulk = BulkTable.of(schema);
             Arena arena = Arena.ofConfined()) {
            long[] hs = new long[3000];
            for (int i = 0; i < hs.length; i++) {
                hs[i] = packed.add();
                packed.set(hs[i], x, i);
                bulk.set(bulk.add(), x, i);
            }
            for (int i = 0; i < hs.length; i += 2) {
                packed.remove(hs[i]);                   // rows stay dense
            }
            for (Table t : List.of(packed, bulk)) {
                ArrowStream stream = ArrowExport.of(t).open();
                MemorySegment s = CConsumer.stream(stream.address());
                MemorySegment array = arena.allocate(CConsumer.ARRAY_BYTES, 8);
                long rows = 0;
                for (assertEquals(0, CConsumer.getNext(s, array)); !CConsumer.released(array, 64);
                        assertEquals(0, CConsumer.getNext(s, array))) {
                    for (int c = 0; c < 2; c++) {
                        MemorySegment child = CConsumer.child(array, c);
                        boolean first = rows == 0 && t == bulk;   // slot 0 of a BulkTable is never used
                        assertEquals(first ? 1 : 0, CConsumer.nullCount(child));
                        assertEquals(first, CConsumer.buffer(child, 0) != 0);
                    }
                    rows += CConsumer.length(array);
                    CConsumer.releaseArray(array);
                }
                CConsumer.releaseStream(s);
                assertEquals(t.size() + (t == bulk ? 1 : 0), rows);
                assertEquals(t == bulk ? schema.slotsPerBlock() / 8 : 0, stream.bytesCopied());   // chunk 0's validity
            }
        }
    }

    @Test
    void fieldSelectionAndBadInput() throws Throwable {
        Schema schema = Tables.everyType(RecordLayout.SOA);
        Schema other = Tables.everyType(RecordLayout.SOA);
        try (Table t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            Tables.fill(t, 700, 20, random("fieldSelectionAndBadInput"));
            ArrowExport export = ArrowExport.of(t).fields(schema.doubleField("d"), schema.byteField("b"))
                    .withHandles("handle");
            assertEquals(List.of(schema.doubleField("d"), schema.byteField("b")), export.fields());
            Set<Long> seen = new HashSet<>();
            readAll(t, export.open(), arena, seen);
            assertEquals(t.size(), seen.size());

            ArrowExport all = ArrowExport.of(t);
            assertThrows(IllegalArgumentException.class, () -> all.fields(new Field[0]));
            assertThrows(IllegalArgumentException.class, () -> all.fields((Field) null));
            assertThrows(IllegalArgumentException.class, () -> all.fields(other.intField("i")));
            assertThrows(IllegalArgumentException.class, () -> all.fields(schema.intField("i"), schema.intField("i")));
            assertThrows(IllegalArgumentException.class, () -> all.withHandles("i"));
            assertThrows(IllegalArgumentException.class, () -> all.withHandles(""));
            assertThrows(IllegalArgumentException.class, () -> all.withHandles("l").fields(schema.longField("l")));
            assertThrows(IllegalArgumentException.class, () -> ArrowExport.of(null));
            assertThrows(IllegalArgumentException.class, () -> all.open(null, 0));
            assertThrows(IllegalArgumentException.class, () -> all.open(ChangeFilter.of(other.intField("i")), 0));
            assertThrows(IllegalArgumentException.class, () -> all.openInto(arena.allocate(16), null, 0));
            t.add();                                    // no failed call left the table held
        }
        Table closed = BulkTable.of(schema);
        closed.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ArrowExport.of(closed).open());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void incrementalExportHasOnlyTheChangedChunks() throws Throwable {
        Schema schema = Schema.builder("frames").add(FieldType.FLOAT, "x", "y").build();
        FloatField x = schema.floatField("x");
        FloatField y = schema.floatField("y");
        try (BulkTable t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            int n = schema.slotsPerBlock();             // 2048 8-byte records per chunk
            long[] hs = new long[n * 10];               // slot 0 is never used: 11 chunks
            for (int i = 0; i < hs.length; i++) {
                hs[i] = t.add();
            }
            int since = t.markVersion();
            t.set(hs[3 * n + 7], x, 1f);                // chunk 3
            t.set(hs[7 * n + 100], x, 2f);              // chunk 7
            t.set(hs[5 * n], y, 3f);                    // chunk 5, another field
            ArrowExport export = ArrowExport.of(t).withHandles("h");
            Set<Long> seen = new HashSet<>();
            ArrowStream stream = export.open(ChangeFilter.of(x), since);
            assertEquals(2, readAll(t, stream, arena, seen));
            assertEquals(2 * n, seen.size());
            assertTrue(seen.contains(hs[3 * n + 7]) && seen.contains(hs[7 * n + 100]));

            seen.clear();
            assertEquals(3, readAll(t, export.open(ChangeFilter.of(x, y), since), arena, seen));
            seen.clear();
            assertEquals(0, readAll(t, export.open(ChangeFilter.of(x), t.markVersion()), arena, seen));
            seen.clear();                               // a version of no table counts everything as changed
            assertEquals(11, readAll(t, export.open(ChangeFilter.of(x), since - 1_000_000_000), arena, seen));
            assertEquals(t.size(), seen.size());
        }
    }

    @Test
    void anOpenExportHoldsTheTable() throws Throwable {
        Schema schema = Schema.builder("held").add(FieldType.FLOAT, "x").build();
        FloatField x = schema.floatField("x");
        BulkTable t = BulkTable.of(schema);
        long h = t.add();
        ArrowStream stream = ArrowExport.of(t).open();
        assertFalse(stream.isReleased());
        assertThrows(java.util.ConcurrentModificationException.class, t::add);
        assertThrows(java.util.ConcurrentModificationException.class, () -> t.remove(h));
        assertThrows(java.util.ConcurrentModificationException.class, t::clear);
        t.set(h, x, 5f);                                // field writes stay allowed
        for (int i = 0; i < 2; i++) {                   // reported on every close, table unchanged
            IllegalStateException e = assertThrows(IllegalStateException.class, t::close);
            assertTrue(e.getMessage().contains("Arrow export #") && e.getMessage().contains("not yet released"),
                    e.getMessage());
            assertFalse(t.isClosed());
            assertEquals(5f, t.get(h, x));
        }
        stream.close();                                 // nobody took it: released from Java
        assertTrue(stream.isReleased());
        stream.close();
        t.remove(h);
        t.close();
    }

    @Test
    void aMovedStreamIsNotReleasedByClose() throws Throwable {
        Schema schema = Schema.builder("moved").add(FieldType.INT, "k").build();
        try (BulkTable t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            t.add();
            ArrowStream stream = ArrowExport.of(t).open();
            MemorySegment mine = CConsumer.move(CConsumer.stream(stream.address()), 40, 24, arena);
            stream.close();                             // the consumer owns it now
            assertFalse(stream.isReleased());
            assertThrows(java.util.ConcurrentModificationException.class, t::add);
            MemorySegment array = arena.allocate(CConsumer.ARRAY_BYTES, 8);
            assertEquals(0, CConsumer.getNext(mine, array));
            assertEquals(2, CConsumer.length(array));
            assertTrue(CConsumer.releaseStream(mine));
            assertFalse(stream.isReleased());           // the array is still out
            assertTrue(CConsumer.releaseArray(array));
            assertTrue(stream.isReleased());
            t.add();
        }
    }

    /** Releases in a random order: moved children first, parents, double releases; each frees once. */
    @Test
    void releasesInAnyOrderOnceEach() throws Throwable {
        Random random = random("releasesInAnyOrderOnceEach");
        Schema schema = Tables.everyType(RecordLayout.SOA);
        for (int round = 0; round < 30; round++) {
            try (Table t = BulkTable.of(schema); Arena arena = Arena.ofShared()) {
                Tables.fill(t, 512 * 4, 20, random);
                ArrowStream stream = ArrowExport.of(t).withHandles("id").open();
                MemorySegment s = CConsumer.stream(stream.address());
                List<MemorySegment> structs = new ArrayList<>();
                List<Long> releaseAt = new ArrayList<>();
                MemorySegment schemaOut = arena.allocate(CConsumer.SCHEMA_BYTES, 8);
                assertEquals(0, CConsumer.getSchema(s, schemaOut));
                structs.add(schemaOut);
                releaseAt.add(56L);
                if (random.nextBoolean()) {             // a child schema moved out
                    MemorySegment child = CConsumer.childSchema(schemaOut, random.nextInt(10));
                    structs.add(CConsumer.move(child, CConsumer.SCHEMA_BYTES, 56, arena));
                    releaseAt.add(56L);
                }
                int n = 1 + random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    MemorySegment a = arena.allocate(CConsumer.ARRAY_BYTES, 8);
                    assertEquals(0, CConsumer.getNext(s, a));
                    structs.add(a);
                    releaseAt.add(64L);
                    if (random.nextBoolean()) {         // a child array moved out
                        MemorySegment child = CConsumer.child(a, random.nextInt(10));
                        structs.add(CConsumer.move(child, CConsumer.ARRAY_BYTES, 64, arena));
                        releaseAt.add(64L);
                    }
                }
                structs.add(s);
                releaseAt.add(24L);
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < structs.size(); i++) {
                    order.add(i);
                }
                java.util.Collections.shuffle(order, random);
                for (int k = 0; k < order.size(); k++) {
                    assertFalse(stream.isReleased(), "released before the last struct");
                    assertThrows(java.util.ConcurrentModificationException.class, t::add);
                    int i = order.get(k);
                    assertTrue(CConsumer.release(structs.get(i), releaseAt.get(i)));
                    assertFalse(CConsumer.release(structs.get(i), releaseAt.get(i)));   // once
                }
                assertTrue(stream.isReleased());
                t.add();
            }
        }
    }

    @Test
    void releaseOnAnotherThread() throws Throwable {
        Schema schema = Schema.builder("threads").add(FieldType.DOUBLE, "v").build();
        try (BulkTable t = BulkTable.of(schema); Arena arena = Arena.ofShared()) {
            for (int i = 0; i < 2000; i++) {
                t.add();
            }
            ArrowStream stream = ArrowExport.of(t).open();
            MemorySegment s = CConsumer.stream(stream.address());
            List<MemorySegment> arrays = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                MemorySegment a = arena.allocate(CConsumer.ARRAY_BYTES, 8);
                assertEquals(0, CConsumer.getNext(s, a));
                arrays.add(a);
            }
            Throwable[] failure = new Throwable[1];
            Thread other = new Thread(() -> {
                try {
                    for (MemorySegment a : arrays) {
                        CConsumer.releaseArray(a);
                    }
                    CConsumer.releaseStream(s);
                } catch (Throwable e) {
                    failure[0] = e;
                }
            });
            other.start();
            other.join();
            assertEquals(null, failure[0]);
            assertTrue(stream.isReleased());
            t.add();
        }
    }

    @Test
    void aConsumerThatFailsHalfway() throws Throwable {
        Schema schema = Schema.builder("halfway").add(FieldType.INT, "k").build();
        try (BulkTable t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < schema.slotsPerBlock() * 6; i++) {
                t.add();
            }
            ArrowStream stream = ArrowExport.of(t).open();
            MemorySegment s = CConsumer.stream(stream.address());
            MemorySegment a = arena.allocate(CConsumer.ARRAY_BYTES, 8);
            MemorySegment b = arena.allocate(CConsumer.ARRAY_BYTES, 8);
            assertEquals(0, CConsumer.getNext(s, a));
            assertEquals(0, CConsumer.getNext(s, b));
            assertTrue(CConsumer.releaseStream(s));     // gives up after two of seven arrays
            assertFalse(stream.isReleased());
            assertThrows(IllegalStateException.class, t::close);
            assertTrue(CConsumer.releaseArray(b));
            assertTrue(CConsumer.releaseArray(a));
            assertTrue(stream.isReleased());
            t.add();
        }
    }

    @Test
    void aStreamWrittenIntoTheConsumersStruct() throws Throwable {
        Schema schema = Schema.builder("into").add(FieldType.LONG, "v").build();
        try (BulkTable t = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            t.add();
            MemorySegment mine = arena.allocate(CConsumer.STREAM_BYTES, 8);
            ArrowStream stream = ArrowExport.of(t).openInto(mine, null, 0);
            assertEquals(mine.address(), stream.address());
            MemorySegment a = arena.allocate(CConsumer.ARRAY_BYTES, 8);
            assertEquals(0, CConsumer.getNext(mine, a));
            assertEquals(2, CConsumer.length(a));
            assertTrue(CConsumer.releaseArray(a));
            assertEquals(0, CConsumer.getNext(mine, a));
            assertTrue(CConsumer.released(a, 64));      // the end
            assertEquals(null, CConsumer.lastError(mine));
            assertTrue(CConsumer.releaseStream(mine));
            assertTrue(stream.isReleased());
        }
    }
}
