package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link BulkTable} chunk without holes answers {@code liveBits} and {@code nextLive} from its
 * live count, without reading the bitmap; those and {@code isLive}, the accessors and
 * {@code forEach} are checked against a model (live slot to value) through random adds and removals that fill
 * chunks and open holes in them again, on schemas whose slots per block are a multiple of 64
 * (512, 256) and fewer than 64 (8: the last bitmap word partly used).
 */
class FullChunkTest {
    static Stream<Arguments> schemas() {
        return Stream.of(
                Arguments.of(TestSchemas.particles(RecordLayout.SOA), 512, "t"),
                Arguments.of(TestSchemas.particles(RecordLayout.AOS), 512, "t"),
                Arguments.of(TestSchemas.mixed(RecordLayout.SOA), 8, "l"),
                Arguments.of(Schema.builder("wide").add(FieldType.LONG, "t", "a", "b", "c", "d", "e").build(), 256, "t"));
    }

    @ParameterizedTest(name = "{1} slots per block: {0}")
    @MethodSource("schemas")
    void chunkAnswers_equalTheModel_asChunksFillAndOpenHoles(Schema schema, int slotsPerBlock, String fieldName) {
        assertEquals(slotsPerBlock, schema.slotsPerBlock());
        long seed = Seeds.seed("FullChunkTest", 0xF011_C4A4L);
        try {
            run(schema, schema.field(fieldName), seed);
        } catch (Throwable t) {
            throw new AssertionError(Seeds.replay(seed) + " (" + schema.name() + "): " + t.getMessage(), t);
        }
    }

    private static void run(Schema schema, Field field, long seed) {
        Random random = new Random(seed);
        int perBlock = schema.slotsPerBlock();
        try (BulkTable table = BulkTable.of(schema)) {
            TreeMap<Long, Long> model = new TreeMap<>();      // slot -> value (a live record)
            Map<Long, Long> handles = new HashMap<>();        // slot -> handle
            List<Long> slots = new ArrayList<>();
            int fullSeen = 0;
            int holes = 0;
            for (int round = 0; round < 40; round++) {
                // Fill up to a few blocks, then open a few holes: chunks turn full and back.
                // Every third round refills every hole first (SWEEP's adds take holes before
                // fresh slots): then every chunk but the first (slot 0) and the last is full.
                int adds = (round % 3 == 2 ? holes : 0) + random.nextInt(perBlock * 3 + 2);
                holes = Math.max(0, holes - adds);
                for (int i = 0; i < adds; i++) {
                    long handle = table.add();
                    long slot = HandleLayout.DEFAULT.slot(handle);
                    long value = random.nextInt(1000);
                    set(table, handle, field, value);
                    model.put(slot, value);
                    handles.put(slot, handle);
                    slots.add(slot);
                }
                fullSeen += check(table, field, model, handles);
                int removes = random.nextInt(Math.max(1, slots.size() / 8) + 1);
                for (int i = 0; i < removes && !slots.isEmpty(); i++) {
                    long slot = slots.remove(random.nextInt(slots.size()));
                    table.remove(handles.remove(slot));
                    model.remove(slot);
                    holes++;
                }
                fullSeen += check(table, field, model, handles);
            }
            assertTrue(fullSeen > 0, "no chunk was ever full: the test did not reach the path it is for");
        }
    }

    private static void set(Table table, long handle, Field field, long value) {
        if (field instanceof FloatField f) {
            table.set(handle, f, value);
        } else {
            table.set(handle, (LongField) field, value);
        }
    }

    private static long get(Chunk chunk, int slot, Field field) {
        return field instanceof FloatField f ? (long) chunk.get(slot, f) : chunk.get(slot, (LongField) field);
    }

    /** Checks every chunk against the model; returns how many were full. */
    private static int check(BulkTable table, Field field, TreeMap<Long, Long> model, Map<Long, Long> handles) {
        int full = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0; c < chunks.count(); c++) {
                Chunk chunk = chunks.chunk(c);
                int n = chunk.slotCount();
                long first = (long) c * n;
                int live = model.subMap(first, first + n).size();
                assertEquals(live, chunk.liveCount(), "live count of chunk " + c);
                if (live == n) {
                    full++;
                }
                for (int w = 0; w < chunk.liveWordCount(); w++) {
                    long bits = 0;
                    for (int b = 0; b < 64 && w * 64 + b < n; b++) {
                        if (model.containsKey(first + w * 64 + b)) {
                            bits |= 1L << b;
                        }
                    }
                    assertEquals(bits, chunk.liveBits(w), "bitmap word " + w + " of chunk " + c);
                }
                for (int s = 0; s < n; s++) {
                    Long value = model.get(first + s);
                    assertEquals(value != null, chunk.isLive(s), "isLive(" + s + ") of chunk " + c);
                    Long next = model.ceilingKey(first + s);
                    int expected = next == null || next >= first + n ? -1 : (int) (next - first);
                    assertEquals(expected, chunk.nextLive(s), "nextLive(" + s + ") of chunk " + c);
                    int hole = s;
                    while (hole < n && model.containsKey(first + hole)) {
                        hole++;
                    }
                    assertEquals(hole, chunk.nextHole(s), "nextHole(" + s + ") of chunk " + c);
                    if (value != null) {
                        assertEquals(value, get(chunk, s, field), "slot " + s + " of chunk " + c);
                        assertEquals(handles.get(first + s), chunk.handle(s));
                    } else {
                        int dead = s;
                        assertThrows(IllegalArgumentException.class, () -> get(chunk, dead, field));
                    }
                }
                assertEquals(-1, chunk.nextLive(n));
                assertEquals(n, chunk.nextHole(n));
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.nextHole(-1));
                assertThrows(IndexOutOfBoundsException.class, () -> get(chunk, n, field));
                assertThrows(IndexOutOfBoundsException.class, () -> get(chunk, -1, field));
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.isLive(n));
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.nextLive(-1));
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.liveBits(chunk.liveWordCount()));
            }
        }
        List<Long> visited = new ArrayList<>();
        table.forEach((chunk, slot) -> visited.add((long) chunk.index() * chunk.slotCount() + slot));
        assertEquals(new ArrayList<>(model.keySet()), visited, "forEach's slots");
        return full;
    }

    @Test
    void aFullChunk_keptPastItsIteration_stillThrows() {
        Schema schema = TestSchemas.mixed(RecordLayout.SOA);
        FloatField t = schema.floatField("f");
        try (BulkTable table = BulkTable.of(schema)) {
            table.addAll(new long[3 * schema.slotsPerBlock()]);
            Chunk kept;
            try (ChunkIteration chunks = table.iterate()) {
                kept = chunks.chunk(1);
                assertEquals(kept.slotCount(), kept.liveCount(), "chunk 1 is full");
                assertEquals(0f, kept.get(0, t));
            }
            assertThrows(IllegalStateException.class, () -> kept.get(0, t));
            assertThrows(IllegalStateException.class, () -> kept.liveBits(0));
            assertThrows(IllegalStateException.class, () -> kept.nextLive(0));
            assertThrows(IllegalStateException.class, () -> kept.nextHole(0));
            assertThrows(IllegalStateException.class, () -> kept.isLive(0));
        }
    }
}
