package dev.bulkdata.storage.kotlin;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.InvalidHandleException;
import dev.bulkdata.storage.Table;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plain Java using a table declared in Kotlin ({@link Particles}): it declares nothing itself,
 * reaches the declaration and its columns statically, and works through the core Java API.
 */
class JavaInteropTest {
    private static final FloatField X = Particles.X.getField();
    private static final FloatField VX = Particles.VX.getField();

    @Test
    void kotlinDeclaredTable_endToEnd_fromJava() {
        try (TypedTable<Particles> typed = Particles.INSTANCE.open()) {
            Table table = typed.core();
            assertEquals("particles", table.name());

            long[] handles = new long[1000];
            for (int i = 0; i < handles.length; i++) {
                long h = table.add();
                table.set(h, X, i);
                table.set(h, VX, 1f);
                table.set(h, Particles.AGE.getField(), i);
                handles[i] = h;
            }
            assertEquals(7f, table.get(handles[7], X));

            try (ChunkIteration chunks = table.iterate()) {
                for (Chunk chunk : chunks) {
                    for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                        chunk.set(s, X, chunk.get(s, X) + chunk.get(s, VX));
                    }
                }
            }
            assertEquals(8f, table.get(handles[7], X));

            long removed = handles[7];
            table.remove(removed);
            assertFalse(table.contains(removed));
            InvalidHandleException stale = assertThrows(InvalidHandleException.class, () -> table.get(removed, X));
            assertEquals(InvalidHandleException.Reason.STALE, stale.reason());
            assertEquals(999, table.size());
            assertTrue(table.contains(handles[8]));
            assertEquals(9f, table.get(handles[8], X));
        }
    }

    @Test
    void columnsAndDeclaration_areStatic_andNamedPlainly() {
        assertEquals("particles", Particles.INSTANCE.getName());
        assertEquals("x", Particles.X.getName());
        assertEquals(Particles.INSTANCE.getSchema().floatField("x"), X);
        try (TypedTable<Particles> typed = Particles.INSTANCE.open()) {
            assertEquals("null", typed.core().format(0L));
        }
    }
}
