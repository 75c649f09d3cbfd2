package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.SlotMapFixture.Entries;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlotMapAudit}: the free slots in take order, and a broken index named by its first
 * broken invariant (a sound one passes: {@code SlotMapTest} and {@code SlotMapModelTest}
 * audit after every step).
 */
class SlotMapAuditTest {
    private static final HandleLayout LAYOUT = HandleLayout.of(16, 3);

    private static SlotMapFixture withSlots(ReuseOrder order, int n) {
        SlotMapFixture f = new SlotMapFixture(Entries.HEAP, LAYOUT, 0, 1_000, order, false);
        f.slots.reserve(n, 0);
        for (int i = 0; i < n; i++) {
            f.slots.activate(f.slots.take());
        }
        return f;
    }

    private static void remove(SlotMap slotMap, int slot) {
        slotMap.markDead(slot);
        slotMap.release(slot);
    }

    @Test
    void freeSlots_areInTakeOrder_reopenedFirstInFifo_lastInLifo() {
        for (ReuseOrder order : new ReuseOrder[] {ReuseOrder.FIFO, ReuseOrder.LIFO}) {
            try (SlotMapFixture f = withSlots(order, 4)) {
                f.slots.releaseAllLive();           // slots 1 to 4 reopened
                f.slots.reserve(2, 0);
                f.slots.activate(f.slots.take());   // slot 1
                f.slots.activate(f.slots.take());   // slot 2
                remove(f.slots, 2);
                remove(f.slots, 1);
                int[] expected = order == ReuseOrder.FIFO ? new int[] {3, 4, 2, 1} : new int[] {1, 2, 3, 4};
                assertArrayEquals(expected, SlotMapAudit.freeSlots(f.slots), order.toString());
                SlotMapAudit.checkInvariants(f.slots, 0, 0);
            }
        }
    }

    @Test
    void checkInvariants_namesALiveWordTheKindDoesNotCount() {
        try (SlotMapFixture f = withSlots(ReuseOrder.FIFO, 3)) {
            SlotMapAudit.checkInvariants(f.slots, 3, 3);
            AssertionError e = assertThrows(AssertionError.class, () -> SlotMapAudit.checkInvariants(f.slots, 2, 2));
            assertTrue(e.getMessage().contains("meta words say 3 live slots, the kind counts 2"), e.getMessage());
        }
    }

    @Test
    void checkInvariants_namesAFreeSlotMissingFromTheList() {
        try (SlotMapFixture f = withSlots(ReuseOrder.SWEEP, 3)) {
            f.slots.markDead(2);        // dead, but never released into the bits
            AssertionError e = assertThrows(AssertionError.class, () -> SlotMapAudit.checkInvariants(f.slots, 2, 2));
            assertTrue(e.getMessage().contains("holes 0 + live 2 + retired 0 != opened slots 3"), e.getMessage());
        }
    }

    @Test
    void checkInvariants_namesALiveSlotInTheList() {
        try (SlotMapFixture f = withSlots(ReuseOrder.LIFO, 3)) {
            remove(f.slots, 2);
            f.slots.markLive(2);        // live again, but still in the ring
            AssertionError e = assertThrows(AssertionError.class, () -> SlotMapAudit.checkInvariants(f.slots, 3, 3));
            assertTrue(e.getMessage().contains("free list holds slot 2, which is not free"), e.getMessage());
        }
    }
}
