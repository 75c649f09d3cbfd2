package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Semantics at the edges: empty chunks, NaN and signed zeros, and every error leaving the table as it was. */
class KernelsEdgeTest {
    static Schema schema(RecordLayout layout) {
        return Schema.builder("edge").layout(layout).add(FieldType.FLOAT, "x", "y").add(FieldType.INT, "n").build();
    }

    static Table table(RecordLayout layout, float... xs) {
        Schema schema = schema(layout);
        Table table = BulkTable.of(schema);
        for (float x : xs) {
            table.set(table.add(), schema.floatField("x"), x);
        }
        return table;
    }

    static float min(Table t) {
        return Kernels.min(t, t.schema().floatField("x"));
    }

    static float max(Table t) {
        return Kernels.max(t, t.schema().floatField("x"));
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void minAndMaxFollowMathMinAndMax(RecordLayout layout) {
        try (Table t = table(layout, 0.0f, -0.0f, 3f)) {
            assertEquals(-0.0f, min(t));                        // -0.0 below 0.0, bit for bit
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(min(t)));
            assertEquals(3f, max(t));
        }
        try (Table t = table(layout, -0.0f, 0.0f)) {
            assertEquals(Float.floatToRawIntBits(0.0f), Float.floatToRawIntBits(max(t)));
        }
        try (Table t = table(layout, 1f, Float.NaN, -5f)) {
            assertTrue(Float.isNaN(min(t)));
            assertTrue(Float.isNaN(max(t)));
            assertTrue(Double.isNaN(Kernels.sum(t, t.schema().floatField("x"))));
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void emptyTablesAndChunksGiveTheIdentities(RecordLayout layout) {
        try (Table t = table(layout, 1f, 2f, 3f)) {
            FloatField x = t.schema().floatField("x");
            IntField n = t.schema().intField("n");
            assertEquals(6.0, Kernels.sum(t, x));
            long[] all = new long[3];
            assertEquals(3, Kernels.handlesLessThan(t, x, 10f, all));
            t.removeAll(all);                                   // one chunk, no live record
            try (ChunkIteration chunks = t.iterate()) {
                Chunk chunk = chunks.chunk(0);
                assertEquals(0, chunk.liveCount());
                assertEquals(0f, Kernels.sum(chunk, x));
                assertEquals(Float.POSITIVE_INFINITY, Kernels.min(chunk, x));
                assertEquals(Float.NEGATIVE_INFINITY, Kernels.max(chunk, x));
                assertEquals(Integer.MAX_VALUE, Kernels.min(chunk, n));
                assertEquals(Integer.MIN_VALUE, Kernels.max(chunk, n));
                assertEquals(0L, Kernels.sum(chunk, n));
                long[] mask = new long[chunk.liveWordCount() + 1];
                java.util.Arrays.fill(mask, -1L);
                mask[chunk.liveWordCount()] = 7L;
                assertEquals(0, Kernels.lessThan(chunk, x, Float.POSITIVE_INFINITY, mask));
                for (int w = 0; w < chunk.liveWordCount(); w++) {
                    assertEquals(0L, mask[w]);
                }
                assertEquals(7L, mask[chunk.liveWordCount()]);   // words past the chunk's: left alone
            }
            Kernels.fill(t, x, 9f);
            long h = t.add();                                   // reuses a hole: all zero
            assertEquals(0f, t.get(h, x));
        }
        try (Table empty = PackedTable.of(schema(layout))) {    // no chunk at all
            assertEquals(0.0, Kernels.sum(empty, empty.schema().floatField("x")));
            assertEquals(Float.POSITIVE_INFINITY, min(empty));
            Kernels.axpy(empty, empty.schema().floatField("x"), empty.schema().floatField("y"), 2f);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void badInputThrowsAndChangesNothing(RecordLayout layout) {
        try (Table t = table(layout, 1f, -1f, 2f); Table other = table(layout, 5f)) {
            FloatField x = t.schema().floatField("x");
            FloatField foreign = other.schema().floatField("x");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Kernels.axpy(t, x, foreign, 2f));
            assertTrue(e.getMessage().contains("belongs to schema"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Kernels.fill(t, foreign, 2f));
            long[] small = new long[2];
            assertThrows(IllegalArgumentException.class, () -> Kernels.handlesLessThan(t, x, 10f, small));
            assertEquals(0L, small[0]);
            Chunk kept;
            try (ChunkIteration chunks = t.iterate()) {
                Chunk chunk = chunks.chunk(0);
                kept = chunk;
                assertThrows(IllegalArgumentException.class, () -> Kernels.scale(chunk, foreign, 0f));
                assertThrows(IllegalArgumentException.class, () -> Kernels.lessThan(chunk, x, 0f, new long[0]));
                long[] mask = new long[chunk.liveWordCount()];
                mask[0] = 1L << 200 % 64;                          // slot 8: never added
                long[] out = new long[4];
                assertThrows(IllegalArgumentException.class, () -> Kernels.handles(chunk, mask, out, 0));
                assertEquals(1, Kernels.lessThan(chunk, x, 0f, mask));
                assertThrows(IllegalArgumentException.class, () -> Kernels.handles(chunk, mask, out, 4));
                assertEquals(0L, out[0]);
                assertEquals(1, Kernels.handles(chunk, mask, out, 0));
                assertEquals(-1f, t.get(out[0], x));
            }
            assertThrows(IllegalStateException.class, () -> Kernels.fill(kept, x, 0f));
            float[] values = new float[3];
            t.forEach((chunk, slot) -> values[slot - 1] = chunk.get(slot, x));
            assertEquals(1f, values[0]);
            assertEquals(-1f, values[1]);
            assertEquals(2f, values[2]);
        }
    }

    @Test
    void aPackedTableIsWrittenUpToItsLastRowOnly() {
        Schema schema = schema(RecordLayout.SOA);
        FloatField x = schema.floatField("x");
        try (PackedTable t = PackedTable.of(schema)) {
            for (int i = 0; i < schema.slotsPerBlock() + 5; i++) {  // a full chunk and 5 rows
                t.add();
            }
            Kernels.fill(t, x, 4f);
            Kernels.axpy(t, x, x, 1f);
            assertEquals(8.0 * t.size(), Kernels.sum(t, x));
            long h = t.add();                                     // the next row was never written
            assertEquals(0f, t.get(h, x));
        }
    }
}
