package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chunk is valid only while an iteration of its table is open: kept after the iteration ends
 * (after {@link ChunkIteration#close()}, after {@code forEach}/{@code forEachChunk} returns, after
 * the table is closed), every access throws {@link IllegalStateException} instead of reaching a
 * slot whose record may have changed.
 */
class ChunkValidityTest {
    static Stream<Arguments> kindsAndLayouts() {
        return Stream.of(TableKind.values())
                .flatMap(kind -> Stream.of(RecordLayout.values()).map(layout -> Arguments.of(kind, layout)));
    }

    /** Every accessor of a chunk, each expected to throw IllegalStateException on a kept chunk. */
    private static List<Executable> everyAccess(Chunk chunk, Schema schema) {
        FloatField t = schema.floatField("t");
        List<Executable> calls = new ArrayList<>(List.of(
                () -> chunk.get(0, t),
                () -> chunk.set(0, t, 1f),
                () -> chunk.handle(0),
                chunk::records,
                chunk::writableRecords,
                () -> chunk.changedSince(t, 0),
                () -> chunk.structureChangedSince(0),
                () -> chunk.liveBits(0),
                chunk::liveWordCount,
                chunk::liveCount,
                () -> chunk.isLive(0),
                () -> chunk.nextLive(0),
                () -> chunk.nextHole(0),
                chunk::slotCount,
                chunk::schema,
                chunk::index));
        if (schema.layout() == RecordLayout.SOA) {
            calls.add(() -> chunk.column(t));
            calls.add(() -> chunk.writableColumn(t));
        }
        return calls;
    }

    private static void assertEveryAccessThrows(Chunk chunk, Schema schema, String why) {
        for (Executable call : everyAccess(chunk, schema)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call, why);
            assertTrue(e.getMessage().contains("'" + schema.name() + "'"), e::getMessage);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkKeptAfterIterationClose_throwsAndNeverWritesTheRecordNowInItsSlot(TableKind kind, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        FloatField t = schema.floatField("t");
        try (Table table = kind.of(schema)) {
            long first = table.add();
            table.set(first, t, 1f);
            Chunk kept;
            int slot;
            try (ChunkIteration chunks = table.iterate()) {
                kept = chunks.chunk(0);
                slot = kept.nextLive(0);
                assertEquals(1f, kept.get(slot, t), "valid while the iteration is open");
            }
            assertEveryAccessThrows(kept, schema, "after ChunkIteration.close()");
            // The slot is reused by another record: the kept chunk must not reach it.
            table.remove(first);
            long second = table.add();
            table.set(second, t, 2f);
            assertThrows(IllegalStateException.class, () -> kept.set(slot, t, 99f));
            assertEquals(2f, table.get(second, t), "the new record is untouched");
            // Another iteration makes chunks usable again, but only while it is open.
            try (ChunkIteration chunks = table.iterate()) {
                assertEquals(2f, chunks.chunk(0).get(slot, t));
            }
            assertEveryAccessThrows(kept, schema, "after the second iteration ended");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkKeptFromForEachOrForEachChunk_throwsAfterTheCallReturns(TableKind kind, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (Table table = kind.of(schema)) {
            table.addAll(new long[1000]);
            List<Chunk> fromForEach = new ArrayList<>();
            table.forEach((chunk, slot) -> {
                if (slot == 0) {
                    fromForEach.add(chunk);
                }
            });
            List<Chunk> fromForEachChunk = new ArrayList<>();
            table.forEachChunk(fromForEachChunk::add);
            assertEquals(table.stats().blocks(), fromForEachChunk.size());
            assertFalse(fromForEach.isEmpty());
            for (Chunk chunk : fromForEach) {
                assertEveryAccessThrows(chunk, schema, "after forEach returned");
            }
            for (Chunk chunk : fromForEachChunk) {
                assertEveryAccessThrows(chunk, schema, "after forEachChunk returned");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void close_withAnIterationOpen_freesTheMemory_andEndsTheIteration(TableKind kind, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        Table table = kind.of(schema);
        table.addAll(new long[2000]);
        ChunkIteration forgotten = table.iterate(); // no try-with-resources: a forgotten iteration
        Chunk chunk = forgotten.chunk(0);
        MemorySegment records = chunk.records();
        table.close(); // must not throw, must free the blocks
        assertTrue(table.isClosed());
        assertEquals(new TableStats(schema.name(), 0, 0, 0, 0, 0, 0), table.stats(),
                "a closed table holds no native memory");
        assertFalse(records.scope().isAlive(), "the blocks are freed");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> chunk.get(0, schema.floatField("t")));
        assertTrue(e.getMessage().contains("closed"), e::getMessage);
        assertEveryAccessThrows(chunk, schema, "after the table closed");
        assertThrows(IllegalStateException.class, () -> forgotten.chunk(0));
        forgotten.close(); // ending it afterwards is harmless
        forgotten.close();
        assertThrows(IllegalStateException.class, table::iterate);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkOfAComponentTable_keptAfterForEachChunk_throws(TableKind kind, RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        try (Table entities = kind.of(Schema.builder("entities").add(FieldType.INT, "id").build());
             ComponentTable components = ComponentTable.of(entities, schema)) {
            long e = entities.add();
            components.add(e);
            List<Chunk> kept = new ArrayList<>();
            components.forEachChunk(kept::add);
            assertEquals(1, kept.size());
            assertEveryAccessThrows(kept.get(0), schema, "after ComponentTable.forEachChunk returned");
        }
    }
}
