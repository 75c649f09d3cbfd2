package dev.bulkdata.storage;

import dev.bulkdata.storage.SlotIndexFixture.Entries;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlotIndexAudit}: the free slots in take order, and a broken index named by its first
 * broken invariant (a sound one passes: {@code SlotIndexTest} and {@code SlotIndexModelTest}
 * audit after every step).
 */
class SlotIndexAuditTest {
    private static final HandleLayout LAYOUT = HandleLayout.of(16, 3);

    private static SlotIndexFixture withSlots(ReuseOrder order, int n) {
        SlotIndexFixture f = new SlotIndexFixture(Entries.HEAP, LAYOUT, 0, 1_000, order, false);
        f.index.reserve(n, 0);
        for (int i = 0; i < n; i++) {
            f.index.activate(f.index.take());
        }
        return f;
    }

    private static void remove(SlotIndex index, int slot) {
        index.markDead(slot);
        index.release(slot);
    }

    @Test
    void freeSlots_areInTakeOrder_reopenedFirstInFifo_lastInLifo() {
        for (ReuseOrder order : new ReuseOrder[] {ReuseOrder.FIFO, ReuseOrder.LIFO}) {
            try (SlotIndexFixture f = withSlots(order, 4)) {
                f.index.releaseAllLive();           // slots 1 to 4 reopened
                f.index.reserve(2, 0);
                f.index.activate(f.index.take());   // slot 1
                f.index.activate(f.index.take());   // slot 2
                remove(f.index, 2);
                remove(f.index, 1);
                int[] expected = order == ReuseOrder.FIFO ? new int[] {3, 4, 2, 1} : new int[] {1, 2, 3, 4};
                assertArrayEquals(expected, SlotIndexAudit.freeSlots(f.index), order.toString());
                SlotIndexAudit.checkInvariants(f.index, 0, 0);
            }
        }
    }

    @Test
    void checkInvariants_namesALiveWordTheKindDoesNotCount() {
        try (SlotIndexFixture f = withSlots(ReuseOrder.FIFO, 3)) {
            SlotIndexAudit.checkInvariants(f.index, 3, 3);
            AssertionError e = assertThrows(AssertionError.class, () -> SlotIndexAudit.checkInvariants(f.index, 2, 2));
            assertTrue(e.getMessage().contains("meta words say 3 live slots, the kind counts 2"), e.getMessage());
        }
    }

    @Test
    void checkInvariants_namesAFreeSlotMissingFromTheList() {
        try (SlotIndexFixture f = withSlots(ReuseOrder.SWEEP, 3)) {
            f.index.markDead(2);        // dead, but never released into the bits
            AssertionError e = assertThrows(AssertionError.class, () -> SlotIndexAudit.checkInvariants(f.index, 2, 2));
            assertTrue(e.getMessage().contains("holes 0 + live 2 + retired 0 != opened slots 3"), e.getMessage());
        }
    }

    @Test
    void checkInvariants_namesALiveSlotInTheList() {
        try (SlotIndexFixture f = withSlots(ReuseOrder.LIFO, 3)) {
            remove(f.index, 2);
            f.index.markLive(2);        // live again, but still in the ring
            AssertionError e = assertThrows(AssertionError.class, () -> SlotIndexAudit.checkInvariants(f.index, 3, 3));
            assertTrue(e.getMessage().contains("free list holds slot 2, which is not free"), e.getMessage());
        }
    }
}
