package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.AccessGuard;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;

import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AccessGuard} on its own table: the iteration counter and the writer claim.
 * {@code ConcurrentWritersTest}, {@code CorruptTableTest} and {@code ChunkValidityTest} check
 * them through the tables' operations.
 */
class AccessGuardTest {
    private static AbstractTable table(String name) {
        return (AbstractTable) BulkTable.of(Schema.builder(name).add(FieldType.INT, "a").build());
    }

    @Test
    void chunksMayBeUsed_onlyWhileAnIterationIsOpen_andAChangeThenThrows() {
        try (AbstractTable t = table("guard_iter")) {
            AccessGuard guard = t.guard;
            assertThrows(IllegalStateException.class, guard::checkChunkAccess);
            guard.beginIteration();
            guard.beginIteration();
            guard.checkChunkAccess();
            ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class,
                    () -> guard.beginChange("add to"));
            assertTrue(e.getMessage().contains("2 iteration(s)"), e.getMessage());
            guard.endIteration();
            guard.checkChunkAccess();
            guard.endIteration();
            IllegalStateException after = assertThrows(IllegalStateException.class, guard::recheckChunkAccess);
            assertTrue(after.getMessage().contains("after its iteration ended"), after.getMessage());
            long me = guard.beginChange("add to");
            guard.endChange(me);
        }
    }

    @Test
    void aChangeInsideAChange_isRefused_andTheFirstStillEnds() {
        try (AbstractTable t = table("guard_nested")) {
            AccessGuard guard = t.guard;
            long me = guard.beginChange("add to");
            ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class,
                    () -> guard.beginChange("remove from"));
            assertTrue(e.getMessage().contains("already changing it"), e.getMessage());
            guard.endChange(me);
            guard.endChange(guard.beginChange("clear"));
        }
    }

    @Test
    void anotherThread_takesTheTableOverBetweenChanges_butNotDuringOne() throws Exception {
        try (AbstractTable t = table("guard_handoff")) {
            AccessGuard guard = t.guard;
            guard.endChange(guard.beginChange("add to"));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    guard.endChange(guard.beginChange("add to"));
                } catch (Throwable x) {
                    failure.set(x);
                }
            }, "guard-other");
            other.start();
            other.join();
            assertEquals(null, failure.get(), "a hand-over between changes succeeds");
            long me = guard.beginChange("add to");
            Thread during = new Thread(() -> {
                try {
                    guard.beginChange("remove from");
                } catch (Throwable x) {
                    failure.set(x);
                }
            }, "guard-during");
            during.start();
            during.join();
            assertInstanceOf(ConcurrentModificationException.class, failure.get());
            assertTrue(failure.get().getMessage().contains("is changing it right now"), failure.get().getMessage());
            guard.endChange(me);
        }
    }

    @Test
    void anInternalFailure_poisonsTheTable_whileAUserFailurePassesThrough() {
        try (AbstractTable t = table("guard_abort")) {
            AccessGuard guard = t.guard;
            IllegalArgumentException user = new IllegalArgumentException("user");
            assertSame(user, guard.abortChange(guard.beginChange("add to"), user, false));
            RuntimeException internal = guard.abortChange(guard.beginChange("add to"),
                    new ArrayIndexOutOfBoundsException(), false);
            assertInstanceOf(IllegalStateException.class, internal);
            assertTrue(t.corrupt);
            assertThrows(IllegalStateException.class, () -> guard.beginChange("add to"));
            assertThrows(IllegalStateException.class, guard::beginIteration);
        }
    }

    @Test
    void aHeldIteration_keepsTheTableOpen_untilItIsReleased() {
        AbstractTable t = table("guard_hold");
        ChunkIteration it = t.iterateHolding(null, 0, "an export");
        IllegalStateException e = assertThrows(IllegalStateException.class, t::close);
        assertTrue(e.getMessage().contains("an export"), e.getMessage());
        it.close();
        t.close();
        assertTrue(t.isClosed());
        assertThrows(IllegalStateException.class, t.guard::checkChunkAccess);
    }
}
