package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FreeBits;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;

import java.util.BitSet;

/**
 * The audit of a {@link SlotMap}, for tests and the tables' audits ({@link TableAudit}):
 * the free slots in take order, and every invariant of the meta words, the counters and the
 * free-slot sources checked against one another. O(slots) each.
 */
final class SlotMapAudit {
    private SlotMapAudit() {
    }

    /** The free slots in the order takes will use them: the list from head to tail and the reopen range. O(holes). */
    static int[] freeSlots(SlotMap slotMap) {
        int length = slotMap.listLength();
        int reopened = slotMap.reopen.free;
        int[] slots = new int[length + reopened];
        int at = slotMap.fifo ? reopened : 0;
        for (int i = 0; i < length; i++) {
            slots[at + i] = slotMap.listAt(i, i == 0 ? 0 : slots[at + i - 1]);
        }
        at = slotMap.fifo ? 0 : length;
        for (int slot = slotMap.reopen.from; at < slots.length && slot < slotMap.reopen.end; slot++) {
            if (!SlotMeta.isRetired(slotMap.logicalMeta(slot))) {
                slots[at++] = slot;
            }
        }
        return slots;
    }

    /**
     * Checks the counters and the free list against what a kind's audit counted: {@code live}
     * live and {@code retiredSlots} retired slots; every other opened slot but the header must
     * be in the free list exactly once. O(slots).
     *
     * @throws AssertionError naming the first broken invariant
     */
    static void checkInvariants(SlotMap slotMap, int live, int size) {
        int liveSlots = 0;
        int retiredSlots = 0;
        for (int slot = 1; slot < slotMap.limit; slot++) {
            int meta = slotMap.logicalMeta(slot);
            check(SlotMeta.generation(meta) <= slotMap.maxGeneration, "generation beyond layout at slot " + slot);
            check(SlotMeta.generation(meta) >= slotMap.floor, "generation below the tag's floor at slot " + slot);
            check(!(SlotMeta.isLive(meta) && SlotMeta.isRetired(meta)), "live slot " + slot + " is retired");
            liveSlots += SlotMeta.isLive(meta) ? 1 : 0;
            if (SlotMeta.isRetired(meta)) {
                retiredSlots++;
                check(SlotMeta.generation(meta) == slotMap.maxGeneration, "retired slot " + slot + " below max generation");
            }
        }
        check(liveSlots == live, "meta words say " + liveSlots + " live slots, the kind counts " + live);
        check(live == size, "size " + size + " but " + live + " live slots");
        check(retiredSlots == slotMap.retired, "retired " + slotMap.retired + " but " + retiredSlots + " retired slots");
        int reopened = 0;
        for (int slot = slotMap.reopen.from; slot < slotMap.reopen.end; slot++) {
            check(!SlotMeta.isLive(slotMap.logicalMeta(slot)), "live slot " + slot + " in the reopen range");
            reopened += SlotMeta.isRetired(slotMap.logicalMeta(slot)) ? 0 : 1;
        }
        check(reopened == slotMap.reopen.free, "the reopen range counts " + slotMap.reopen.free + " free slots, holds " + reopened);
        int[] free = freeSlots(slotMap);
        BitSet seen = new BitSet();
        for (int slot : free) {
            check(slotMap.isFree(slot), "free list holds slot " + slot + ", which is not free");
            check(!seen.get(slot), "free list holds slot " + slot + " twice");
            seen.set(slot);
        }
        int length = slotMap.listLength();
        int listTail = length == 0 ? 0 : free[slotMap.fifo ? free.length - 1 : length - 1];
        int tail = slotMap.tail();
        check(listTail == tail, "free list tail is " + tail + ", the list ends at " + listTail);
        if (slotMap.sweepOrder) {
            checkInvariants(slotMap.freeBits);
            check(slotMap.reopen.from == slotMap.reopen.end, "a SWEEP slotMap has a reopen range");
        }
        int opened = Math.max(0, slotMap.limit - 1);
        check(free.length + live + retiredSlots == opened, "holes " + free.length + " + live " + live
                + " + retired " + retiredSlots + " != opened slots " + opened);
    }

    /**
     * Checks a SWEEP index's free bits: the summary against the bits, the count against the bits set.
     *
     * @throws AssertionError naming the first broken invariant
     */
    static void checkInvariants(FreeBits free) {
        int set = 0;
        for (int w = 0; w < free.bits.length; w++) {
            set += Long.bitCount(free.bits[w]);
            check((free.bits[w] != 0) == ((free.summary[w >>> 6] & (1L << w)) != 0), "summary bit of word " + w
                    + " is wrong");
        }
        check(set == free.count, "the list counts " + free.count + " slots, its bits " + set);
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
