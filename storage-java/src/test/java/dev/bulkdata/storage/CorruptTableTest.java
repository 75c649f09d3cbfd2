package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ConcurrentModificationException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table marked corrupt (its structural-change claim was taken from a running change, or a
 * change failed in a way only a broken structure explains) says so on every call but close,
 * never reads a record, and still frees its memory on close.
 */
class CorruptTableTest {
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void corruptTable_throwsIllegalStateOnEveryCallButClose(TableKind kind) {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        FloatField t = schema.floatField("t");
        Table table = kind.of(schema);
        long h = table.add();
        table.set(h, t, 1f);
        // A change is running (it holds the claim) while an iteration is open elsewhere...
        long me = ((AbstractTable) table).beginChange("test");
        ChunkIteration open = table.iterate();
        Chunk chunk = open.chunk(0);
        // ...and finds its claim gone at its end.
        ((AbstractTable) table).poison("two threads changed its structure at the same time");
        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class,
                () -> ((AbstractTable) table).guard.endChange(me));
        assertTrue(e.getMessage().contains("'particles'"), e.getMessage());
        List<Executable> calls = List.of(
                () -> table.get(h, t),
                () -> table.set(h, t, 2f),
                table::add,
                () -> table.remove(h),
                table::clear,
                table::size,
                table::stats,
                table::iterate,
                () -> table.forEach((c, s) -> { }),
                () -> chunk.get(0, t),
                chunk::liveCount);
        for (Executable call : calls) {
            IllegalStateException thrown = assertThrows(IllegalStateException.class, call);
            assertTrue(thrown.getMessage().contains("corrupt"), thrown.getMessage());
        }
        assertFalse(table.contains(h), "a corrupt table reads no record");
        open.close();
        table.close();
        assertTrue(table.isClosed());
        assertEquals(0, table.stats().nativeBytes());
    }
}
