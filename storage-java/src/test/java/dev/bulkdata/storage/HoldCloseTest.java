package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;

import java.util.ConcurrentModificationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChunkIteration#holding}: the table's close() refuses while a holding iteration is open. */
class HoldCloseTest {
    private static final Schema SCHEMA = Schema.builder("held").add(FieldType.FLOAT, "x").build();
    private static final FloatField X = SCHEMA.floatField("x");

    @Test
    void closeRefusesWhileHeldAndChangesNothing() {
        for (Table t : new Table[] {BulkTable.of(SCHEMA), PackedTable.of(SCHEMA)}) {
            long h = t.add();
            t.set(h, X, 3f);
            ChunkIteration chunks = ChunkIteration.holding(t, null, 0, "reader A");
            try (ChunkIteration plain = t.iterate()) {
                plain.chunk(0);
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, t::close);
            assertTrue(e.getMessage().contains("reader A"), e.getMessage());
            assertFalse(t.isClosed());
            Chunk chunk = chunks.chunk(0);
            assertEquals(3f, chunk.get(chunk.nextLive(0), X));           // memory not freed
            assertThrows(ConcurrentModificationException.class, t::add);
            chunks.close();
            t.add();
            t.close();
            assertTrue(t.isClosed());
        }
    }

    @Test
    void filteredAndBadUse() {
        Schema other = Schema.builder("other").add(FieldType.FLOAT, "x").build();
        try (BulkTable t = BulkTable.of(SCHEMA)) {
            long h = t.add();
            int since = t.markVersion();
            try (ChunkIteration none = ChunkIteration.holding(t, ChangeFilter.of(X), since, "filtered")) {
                assertFalse(none.iterator().hasNext());
                t.set(h, X, 1f);
                assertTrue(none.iterator().hasNext());
            }
            assertThrows(IllegalArgumentException.class, () -> ChunkIteration.holding(t, null, 0, null));
            assertThrows(IllegalArgumentException.class, () -> ChunkIteration.holding(null, null, 0, "x"));
            assertThrows(IllegalArgumentException.class,
                    () -> ChunkIteration.holding(t, ChangeFilter.of(other.floatField("x")), 0, "x"));
            ChunkIteration a = ChunkIteration.holding(t, null, 0, "same");
            ChunkIteration b = ChunkIteration.holding(t, null, 0, "same");
            a.close();
            a.close();                                  // closing twice releases once
            assertThrows(IllegalStateException.class, t::close);   // b still holds it
            b.close();
            t.add();                                    // no failed call left an iteration open
        }
        BulkTable closed = BulkTable.of(SCHEMA);
        closed.close();
        assertThrows(IllegalStateException.class, () -> ChunkIteration.holding(closed, null, 0, "x"));
    }
}
