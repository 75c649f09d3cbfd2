package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FreeBits;
import dev.bulkdata.storage.internal.core.FreeRing;
import dev.bulkdata.storage.internal.core.ReopenRange;
import dev.bulkdata.storage.internal.core.SlotMap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlotMap}'s three sources of free slots on their own: {@link FreeRing} (FIFO, LIFO),
 * {@link FreeBits} (SWEEP) and {@link ReopenRange} (what a FIFO or LIFO clear frees).
 * {@code SlotMapTest} checks them inside the index.
 */
class FreeSlotSourcesTest {
    @Test
    void ring_keepsListOrder_atBothEnds_andGrowsWhileWrapped() {
        FreeRing ring = new FreeRing();
        assertEquals(0, ring.tail(), "empty: no tail");
        for (int slot = 1; slot <= 10; slot++) {
            ring.append(slot);
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(i + 1, ring.head());
            ring.removeHead();
        }
        // The head is now at 6 of 16 entries: 20 pushes wrap round the end and grow the ring.
        for (int slot = 11; slot <= 30; slot++) {
            ring.append(slot);
        }
        ring.pushHead(99);
        assertEquals(32, ring.capacity());
        assertEquals(25, ring.length);
        assertEquals(99, ring.get(0));
        for (int i = 1; i < 25; i++) {
            assertEquals(i + 6, ring.get(i), "position " + i);
        }
        assertEquals(30, ring.tail());
        ring.clear();
        assertEquals(0, ring.length);
        assertEquals(0, ring.tail());
        ring.pushHead(5);
        assertEquals(5, ring.tail(), "a push into an empty ring is its tail too");
    }

    @Test
    void ring_removingTheLastSlot_leavesNoTail() {
        FreeRing ring = new FreeRing();
        ring.append(4);
        ring.removeHead();
        assertEquals(0, ring.length);
        assertEquals(0, ring.tail());
    }

    @Test
    void bits_nextFindsTheFirstSlotAtOrAfter_wrapping_acrossSummaryWords() {
        FreeBits bits = new FreeBits("t");
        bits.add(3);
        bits.add(70);
        bits.add(5_000);    // past the first summary word (4,096 slots)
        assertEquals(3, bits.count);
        assertEquals(3, bits.next(1));
        assertEquals(70, bits.next(4));
        assertEquals(5_000, bits.next(71));
        assertEquals(3, bits.next(5_001), "wraps to the first");
        assertTrue(bits.contains(70));
        bits.remove(70);
        assertFalse(bits.contains(70));
        assertEquals(5_000, bits.next(4));
        SlotMapAudit.checkInvariants(bits);
        bits.remove(3);
        bits.remove(5_000);
        assertEquals(0, bits.count);
        SlotMapAudit.checkInvariants(bits);
    }

    @Test
    void bits_fillOpened_holdsEverySlotButTheHeader_andRemoveFirstTakesARunFromSlot1() {
        FreeBits bits = new FreeBits("t");
        bits.fillOpened(200);
        assertEquals(199, bits.count);
        assertFalse(bits.contains(0), "the header");
        assertTrue(bits.contains(1));
        assertTrue(bits.contains(199));
        assertFalse(bits.contains(200));
        SlotMapAudit.checkInvariants(bits);
        bits.removeFirst(130);
        assertEquals(69, bits.count);
        assertEquals(131, bits.next(1));
        SlotMapAudit.checkInvariants(bits);
        bits.fillOpened(1);
        assertEquals(0, bits.count, "no slot opened but the header");
        SlotMapAudit.checkInvariants(bits);
    }

    @Test
    void bits_countingASlotItDoesNotHold_isReportedAsCorrupt() {
        FreeBits bits = new FreeBits("broken");
        bits.add(9);
        bits.remove(9);
        bits.count = 1;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> bits.next(1));
        assertTrue(e.getMessage().contains("table 'broken' is corrupt"), e.getMessage());
        assertThrows(AssertionError.class, () -> SlotMapAudit.checkInvariants(bits));
    }

    @Test
    void reopenRange_takesFromItsStart_givesTheLastBack_andTakesARunFromSlot1() {
        ReopenRange range = new ReopenRange();
        assertEquals(0, range.free);
        assertFalse(range.contains(0), "empty before the first clear");
        range.open(1, 10, 8);   // one of slots 1..9 retired
        range.took(1);
        range.took(3);          // a take skipped retired slot 2
        assertEquals(4, range.from);
        assertEquals(6, range.free);
        range.giveBack(3);
        assertEquals(3, range.from);
        assertEquals(7, range.free);
        assertTrue(range.contains(3));
        assertFalse(range.contains(10));
        range.open(1, 10, 9);
        range.tookFirst(4);
        assertEquals(5, range.from);
        assertEquals(5, range.free);
    }
}
