package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.util.ConcurrentModificationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChunkIteration#holdClose}: the table's close() refuses while a holding iteration is open. */
class HoldCloseTest {
    private static final Schema SCHEMA = Schema.builder("held").add(FieldType.FLOAT, "x").build();
    private static final FloatField X = SCHEMA.floatField("x");

    @Test
    void closeRefusesWhileHeldAndChangesNothing() {
        for (Table t : new Table[] {BulkTable.of(SCHEMA), PackedTable.of(SCHEMA)}) {
            long h = t.add();
            t.set(h, X, 3f);
            ChunkIteration chunks = t.iterate();
            assertSame(chunks, chunks.holdClose("reader A"));
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
    void badUse() {
        try (BulkTable t = BulkTable.of(SCHEMA)) {
            ChunkIteration chunks = t.iterate();
            assertThrows(IllegalArgumentException.class, () -> chunks.holdClose(null));
            chunks.holdClose("once");
            assertThrows(IllegalStateException.class, () -> chunks.holdClose("twice"));
            chunks.close();
            chunks.close();                             // closing twice releases once
            assertThrows(IllegalStateException.class, () -> chunks.holdClose("closed"));
            ChunkIteration a = t.iterate().holdClose("same");
            ChunkIteration b = t.iterate().holdClose("same");
            a.close();
            assertThrows(IllegalStateException.class, t::close);   // b still holds it
            b.close();
        }
    }
}
