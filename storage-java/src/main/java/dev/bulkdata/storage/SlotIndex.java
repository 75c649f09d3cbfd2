package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.memory.PagedInts;
import dev.bulkdata.storage.internal.memory.AddressSpace;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.format.MetaWords;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The slots that handles name, for every table kind: each slot's {@link SlotMeta meta word}
 * (live, retired, generation), the sources of free slots, the open limit and retirement
 * (why it refuses: {@link SlotRejections}). A {@link BulkTable} keeps its record in its slot; a
 * {@link PackedTable} keeps, beside each slot's meta word, the row its record is in. A handle
 * resolves to a slot here, by one route ({@link #find(long)}), then to a record by the kind's
 * rule.
 *
 * <pre>
 *  entries (one reserved range, or PagedInts; never moved), per slot:
 *                                                [ meta ]            stride 1 (BulkTable)
 *                                                [ meta ][ payload ] stride 2 (PackedTable:
 *                                                                     row if live)
 * </pre>
 *
 * <p><b>Slots</b>: {@code [1, limit)} have been opened; slot 0 is the header of the list's
 * saved form, opened with the first slot and never handed out, so every handle of slot 0, the
 * null handle among them, is invalid. A never-opened slot starts at the tag's {@link #floor}
 * (see {@link TagRegistry}) or at the generation a cancelled add left in its meta word,
 * whichever is higher. Removing advances a slot's generation; at the layout's last generation
 * the slot is retired instead.
 *
 * <p><b>Free slots</b> come from three sources, each a final class of its own held in a final
 * field: {@link ReuseOrder#SWEEP} keeps them in {@link FreeBits} and a take returns the first
 * free slot at or after {@link #cursor} (the slot after the last take's), wrapping to slot 1;
 * {@link ReuseOrder#FIFO} and {@link ReuseOrder#LIFO} keep them in a {@link FreeRing}
 * (FIFO reuses the hole freed longest ago, which spreads generations over all holes; LIFO the
 * hole freed last, while it is warm in cache) and, after a clear, in a {@link ReopenRange}.
 * Neither reads the free records, and a hole's record bytes belong to nobody: writing them
 * through a column view cannot disturb the list. A take still checks that the slot it takes
 * is free (its meta word). <b>Saved form</b>: a snapshot saves the list as links
 * ({@link #writeLinks()} writes each listed slot's successor into its {@link Links link}: a
 * BulkTable's 4-byte link word in the dead record, a PackedTable's entry payload; slot 0's
 * link names the head), and a restore reads the list back from them.
 *
 * <p><b>Clear</b>: {@link #releaseAllLive()} frees every live slot at once in one pass over
 * the meta words, without linking them: SWEEP adds every opened slot to its bits and starts
 * the cursor at slot 1; FIFO and LIFO empty the ring and reopen {@code [1, limit)}, whose
 * slots were freed before any later removal, so a FIFO take uses them before the ring and a
 * LIFO take after it.
 *
 * <p><b>Reused records</b>: a slot freed by a removal or a clear keeps its old record bytes
 * (nothing is wiped on removal); {@link #take()} says, in {@link #reused}, whether the slot it
 * returns was opened before, so that the kind zeroes that record before handing it out. A
 * never-opened slot's record is zero already.
 *
 * <p>Memory per slot: 4 bytes (stride 1) or 8 bytes (stride 2), in one range reserved for every
 * slot the index may open ({@link #reserveRange}; backed as it is touched) or, where ranges are
 * not available, in heap pages of 4,096 slots.
 * Single writer: only the table's writer thread changes it; {@link #find(long)} may run on
 * many threads while nothing changes.
 */
final class SlotIndex {
    /** Where a free slot (and the header, slot 0) keeps the index of the next free slot in the list's saved form. */
    interface Links {
        int link(int slot);

        void setLink(int slot, int next);
    }

    /** Slots per page of entries: 4096, a 16 KiB page of meta words (32 KiB with payloads). */
    static final int PAGE_SHIFT = 12;
    private static final int PAGE_MASK = (1 << PAGE_SHIFT) - 1;
    private static final int HEADER = 0;

    /** The table's name, for messages. */
    final String name;
    final HandleLayout layout;
    final long indexMask;
    final int indexBits;
    final int generationMask;
    /** Every bit a handle of this layout may use below the tag. */
    final long payloadMask;
    /** The table's tag, shifted to where handles hold it. */
    final long tagBits;
    final int maxGeneration;
    /** The largest slot index this index may open (layout and maxCapacity). */
    final int maxSlot;
    /** The generation a never-opened slot starts at (see {@link TagRegistry}). */
    final int floor;
    /** log2 of the ints per entry: 0 (meta) or 1 (meta, payload). */
    private final int strideShift;
    private final PagedInts entries;
    /**
     * {@code entries}' page directory, read directly by {@link #find} and {@link #findPayload}
     * (one dependent load fewer than through {@code entries}); refreshed whenever entries grow.
     * Slot {@code i}'s meta word is {@code pages[i >>> PAGE_SHIFT][(i & PAGE_MASK) << strideShift]}.
     */
    private int[][] pages;
    /**
     * The entries in one reserved range of the table's arena ({@link #reserveRange}), slot
     * {@code s}'s at byte {@code s << entryShift}; null while the entries are in {@link #pages}
     * (where ranges are not available). One or the other holds them, never both.
     */
    private MemorySegment range;
    /** Whether an 8-byte read of an entry holds the meta word in its low half (little-endian). */
    private static final boolean META_LOW = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
    /** log2 of the bytes per entry: 2 (meta) or 3 (meta, payload). */
    private final int entryShift;
    /** Whether the range was advised to use huge pages (once its entries pass 2 MiB). */
    private boolean rangeAdvised;
    private final Links links;
    private final boolean fifo;
    /** {@link ReuseOrder#SWEEP}: the free slots are in {@link #freeBits}, taken from {@link #cursor} on. */
    private final boolean sweepOrder;
    /** {@link ReuseOrder#SWEEP}'s free slots; empty in the other orders. */
    private final FreeBits freeBits;
    /** {@link ReuseOrder#FIFO}'s and {@link ReuseOrder#LIFO}'s free list; empty in SWEEP. */
    private final FreeRing ring = new FreeRing();
    /** FIFO's and LIFO's slots freed by the last clear and not taken since; empty in SWEEP. */
    final ReopenRange reopen = new ReopenRange();

    // The counters below are package-private for StoredTables, which saves and restores them.

    /** Slots {@code [0, limit)} are opened; 0 before the first slot and after {@link #close()}. */
    int limit;
    /** Slots retired at the last generation. */
    int retired;
    /**
     * {@link ReuseOrder#SWEEP}: the slot the next take looks at first, the one after the slot
     * the last take returned (fresh or not); takes go up from it and wrap at the end.
     */
    private int cursor = 1;
    /** The cursor before the last {@link #take()}, for {@link #undoTake}. */
    private int cursorBefore = 1;
    /** Whether the last {@link #take()} returned a slot opened before (its record bytes are stale). */
    boolean reused;
    /** Whether the last {@link #take()} came from {@link #reopen}, for {@link #undoTake}. */
    private boolean tookReopened;

    /**
     * @param links where free slots keep their links, or null to keep them in a payload int
     *     beside each meta word (which the kind may use for live slots: {@link #payload(int)})
     */
    SlotIndex(String name, HandleLayout layout, int tag, int floor, int maxCapacity, ReuseOrder order, Links links) {
        this.name = name;
        this.layout = layout;
        this.indexBits = layout.indexBits();
        this.indexMask = (1L << indexBits) - 1;
        this.generationMask = layout.maxGeneration();
        this.payloadMask = layout.payloadMask();
        this.maxGeneration = layout.maxGeneration();
        this.tagBits = (long) tag << HandleLayout.TAG_SHIFT;
        this.maxSlot = Math.min(layout.maxIndex(), maxCapacity);
        this.floor = floor;
        this.strideShift = links == null ? 1 : 0;
        this.entryShift = 2 + strideShift;
        this.entries = new PagedInts(PAGE_SHIFT + strideShift, 0);
        this.pages = entries.pages();
        this.links = links != null ? links : new PayloadLinks();
        this.fifo = order == ReuseOrder.FIFO;
        this.sweepOrder = order == ReuseOrder.SWEEP;
        this.freeBits = new FreeBits(name);
    }

    /** Links kept in the entry's payload int. */
    private final class PayloadLinks implements Links {
        @Override
        public int link(int slot) {
            return payload(slot);
        }

        @Override
        public void setLink(int slot, int next) {
            setPayload(slot, next);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Handles

    /**
     * The one validity check of a handle: tag and stray bits, index, then the slot's meta word
     * against {@code generation << 1 | LIVE}. One branch on the fast path.
     *
     * @return the handle's slot if it refers to a live slot, else -1
     */
    int find(long handle) {
        long index = handle & indexMask;
        if ((handle & ~payloadMask) == tagBits && index < limit) {
            int slot = (int) index;
            int expected = SlotMeta.live((int) (handle >>> indexBits) & generationMask);
            MemorySegment r = range;
            int meta = r != null ? r.get(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift)
                    : pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift];
            if (meta == expected) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * {@link #find(long)} for stride 2: the live slot's payload (a packed table's row), read
     * from the same entry as the meta word.
     *
     * @return the payload if the handle refers to a live slot, else -1
     */
    int findPayload(long handle) {
        long index = handle & indexMask;
        if ((handle & ~payloadMask) == tagBits && index < limit) {
            int slot = (int) index;
            int expected = SlotMeta.live((int) (handle >>> indexBits) & generationMask);
            MemorySegment r = range;
            if (r != null) {
                // One 8-byte read: the meta word and the payload beside it.
                long entry = r.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) slot << 3);
                int meta = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? (int) entry : (int) (entry >>> 32);
                if (meta == expected) {
                    return java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? (int) (entry >>> 32) : (int) entry;
                }
                return -1;
            }
            int[] page = pages[slot >>> PAGE_SHIFT];
            int offset = (slot & PAGE_MASK) << 1;
            if (page[offset] == expected) {
                return page[offset + 1];
            }
        }
        return -1;
    }

    /** {@return the handle of {@code slot} at {@code generation}} */
    long handle(int slot, int generation) {
        return tagBits | ((long) generation << indexBits) | slot;
    }

    /** {@return the handle of an opened slot at its current generation} */
    long handleOf(int slot) {
        return handle(slot, SlotMeta.generation(meta(slot)));
    }

    // ---------------------------------------------------------------------------------------
    // Entries

    int meta(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift);
        }
        return pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift];
    }

    void setMeta(int slot, int meta) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift, meta);
        } else {
            pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift] = meta;
        }
    }

    /** {@return the payload of a slot; stride 2 only} */
    int payload(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4);
        }
        return pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1];
    }

    void setPayload(int slot, int value) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4, value);
        } else {
            pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1] = value;
        }
    }

    /**
     * Moves the entries into one range reserved in {@code arena} for every slot the index may
     * open ({@link AddressSpace}), if reservations are available; otherwise they stay in heap
     * pages. Called once, on a new index, before any slot is opened.
     */
    void reserveRange(BlockArena arena) {
        if (limit != 0 || range != null) {
            throw new IllegalStateException("the index of '" + name + "' already has entries");
        }
        range = arena.reserve(((long) maxSlot + 2) << entryShift); // slot limit's entry too, which a snapshot reads
    }

    /** Marks a taken slot live and returns its handle: one read and one write of the meta word. */
    long activate(int slot) {
        int meta = meta(slot) | SlotMeta.LIVE;
        setMeta(slot, meta);
        return handle(slot, SlotMeta.generation(meta));
    }

    void markLive(int slot) {
        setMeta(slot, meta(slot) | SlotMeta.LIVE);
    }

    void markDead(int slot) {
        setMeta(slot, meta(slot) & ~SlotMeta.LIVE);
    }

    /** Whether {@code slot} is an opened, non-header slot that is neither live nor retired. */
    boolean isFree(int slot) {
        if (slot <= 0 || slot >= limit) {
            return false;
        }
        return (meta(slot) & (SlotMeta.LIVE | SlotMeta.RETIRED)) == 0;
    }

    /** {@return free slots waiting to be reused: in the list and in the reopen range} */
    int holes() {
        return listLength() + reopen.free;
    }

    /** {@return the free slots in the list: the ring's or, for SWEEP, the bits'} */
    int listLength() {
        return sweepOrder ? freeBits.count : ring.length;
    }

    /** {@return slots never opened that may still be opened} */
    long freshSlots() {
        return limit == 0 ? maxSlot : (long) maxSlot - limit + 1;
    }

    // ---------------------------------------------------------------------------------------
    // Taking and releasing slots

    /**
     * Checks that {@code count} more slots can be taken and makes entries for the fresh ones, so
     * that {@code count} calls of {@link #take()} cannot fail.
     *
     * @return the highest slot those takes may open (header included), or -1 if the free list
     *     covers them all: the kind makes record storage up to it
     * @throws CapacityExceededException if they do not all fit; nothing changes
     */
    long reserve(int count, int size) {
        long fromHoles = Math.min(count, holes());
        long fresh = count - fromHoles;
        if (fresh > freshSlots()) {
            throw SlotRejections.full(this, count, size);
        }
        if (fresh == 0) {
            return -1;
        }
        long highest = (limit == 0 ? 1 : limit) + fresh - 1;
        if (range != null) {
            if (!rangeAdvised && (highest << entryShift) >= AddressSpace.HUGE_PAGE) {
                rangeAdvised = true;
                AddressSpace.adviseHugePages(range);
            }
            return highest;
        }
        entries.ensure((highest << strideShift) + (1 << strideShift) - 1);
        pages = entries.pages();
        return highest;
    }

    /**
     * Takes a free slot (from the reopen range and the list, in reuse order), or opens a fresh one if
     * there is none; its meta word has the live bit clear and its current generation. Sets
     * {@link #reused}. The caller reserved it.
     *
     * @throws IllegalStateException if the free list names a slot that is not free (a broken
     *     index); nothing changes
     */
    int take() {
        tookReopened = false;
        cursorBefore = cursor;
        int slot;
        if (sweepOrder) {
            slot = takeBit();
        } else if (fifo) {
            slot = takeReopened();
            if (slot == 0) {
                slot = pop();
            }
        } else {
            slot = pop();
            if (slot == 0) {
                slot = takeReopened();
            }
        }
        reused = slot != 0;
        if (slot == 0) {
            if (limit == 0) {
                limit = 1;
            }
            slot = limit++;
            setMeta(slot, SlotMeta.free(Math.max(floor, SlotMeta.generation(meta(slot)))));
            cursor = limit;
        }
        return slot;
    }

    /**
     * Opens {@code count} fresh slots at once, live, for a batch add into an index with no
     * holes ({@link #holes()} 0), and writes their handles to {@code out[at, at + count)}: what
     * {@code count} calls of {@link #take()} and {@link #activate} would do, in one pass over
     * the meta words. The caller reserved them.
     *
     * @return the first slot opened
     */
    int openRun(int count, long[] out, int at) {
        if (holes() != 0) {
            throw new IllegalStateException("the index of '" + name + "' has holes to reuse first");
        }
        if (limit == 0) {
            limit = 1;
        }
        int first = limit;
        for (int k = 0; k < count; k++) {
            int slot = first + k;
            int generation = Math.max(floor, SlotMeta.generation(meta(slot)));
            setMeta(slot, SlotMeta.live(generation));
            out[at + k] = handle(slot, generation);
        }
        limit = first + count;
        cursorBefore = cursor;
        cursor = limit;
        reused = false;
        tookReopened = false;
        return first;
    }

    /**
     * Takes, at once and live, the first {@code min(count, limit - 1)} slots of an index whose
     * every opened slot is free and none retired, and which takes them from slot 1 up (after a
     * clear: SWEEP's cursor at slot 1, or FIFO's and LIFO's reopen range holding them all), in the
     * order {@link #take()} would, and writes their handles to {@code out} from {@code at}.
     * Does nothing, and returns 0, in any other state (a table emptied by removals, whose
     * slots are in the list).
     *
     * @return the slots taken, from slot 1
     */
    int reopenRun(int count, long[] out, int at) {
        int opened = limit - 1;
        if (opened <= 0 || retired != 0 || holes() != opened
                || (sweepOrder ? cursor > 1 : ring.length != 0 || reopen.from != 1 || reopen.free != opened)) {
            return 0;
        }
        int taken = Math.min(count, opened);
        for (int k = 0; k < taken; k++) {
            int slot = 1 + k;
            int meta = meta(slot);
            setMeta(slot, meta | SlotMeta.LIVE);
            out[at + k] = handle(slot, SlotMeta.generation(meta));
        }
        cursorBefore = cursor;
        if (sweepOrder) {
            freeBits.removeFirst(taken);
            cursor = taken + 1;
        } else {
            reopen.tookFirst(taken);
        }
        reused = true;
        tookReopened = !sweepOrder;
        return taken;
    }

    /** Takes the first free slot of the reopen range, skipping retired ones, or returns 0 if it has none. */
    private int takeReopened() {
        ReopenRange r = reopen;
        if (r.free == 0) {
            return 0;
        }
        int slot = r.from;
        while (SlotMeta.isRetired(meta(slot))) {
            slot++;
        }
        r.took(slot);
        tookReopened = true;
        return slot;
    }

    /**
     * Moves a dead slot to its next generation, so that every handle to its last record is
     * stale, and frees it; a slot already at the layout's last generation is retired instead:
     * it keeps that generation and is never handed out again.
     */
    void release(int slot) {
        if (retireOrAdvance(slot)) {
            push(slot);
        }
    }

    /** @return whether the slot may be reused (false if it was retired) */
    boolean retireOrAdvance(int slot) {
        int generation = SlotMeta.generation(meta(slot));
        if (generation == maxGeneration) {
            setMeta(slot, SlotMeta.retired(generation));
            retired++;
            return false;
        }
        setMeta(slot, SlotMeta.free(generation + 1));
        return true;
    }

    /**
     * Undoes the {@link #take()} of a dead slot: its generation advances (the handle made for
     * it stays stale), and it goes back where take found it: the head of the free list (or its place in the bits, or the reopen range), or the
     * never-opened slots if {@code limit} was {@code limitBefore} then (for a cancelled add). The caller checked that
     * the generation is not the last.
     */
    void undoTake(int slot, int limitBefore) {
        setMeta(slot, SlotMeta.free(SlotMeta.generation(meta(slot)) + 1));
        if (limit > limitBefore) {
            limit = limitBefore;
        } else if (sweepOrder) {
            freeBits.add(slot);
        } else if (tookReopened) {
            reopen.giveBack(slot);
        } else {
            ring.pushHead(slot);
        }
        cursor = cursorBefore;
    }

    /**
     * Frees every live slot at once, for a table's clear: each advances its generation (or
     * retires at the last), and every opened slot that is not retired becomes free, in the
     * reopen range (SWEEP: in the bits), in slot order; the ring empties. One pass over the meta words, no link written.
     */
    void releaseAllLive() {
        int maxLive = SlotMeta.live(maxGeneration);
        int advance = SlotMeta.free(1) - SlotMeta.LIVE;
        MemorySegment r = range;
        for (int first = 0; first < limit; first += 1 << PAGE_SHIFT) {
            int end = Math.min(limit - first, 1 << PAGE_SHIFT) << strideShift;
            int from = first == 0 ? 1 << strideShift : 0;
            if (r != null) {
                releaseLive(r, (long) first << entryShift, from, end, maxLive, advance);
            } else {
                releaseLive(pages[first >>> PAGE_SHIFT], from, end, maxLive, advance);
            }
        }
        ring.clear();
        if (sweepOrder) {
            freeAllOpened();
            return;
        }
        reopen.open(1, limit, Math.max(0, limit - 1) - retired);
    }

    /** {@link #releaseAllLive()} on ints {@code [from, end)} of a heap page of entries. */
    private void releaseLive(int[] page, int from, int end, int maxLive, int advance) {
        if (!holds(page, from, end, maxLive)) {
            // No slot retires (a payload equal to maxLive only sends its page the slow way):
            // branch-free and at stride 1 (the live bit is bit 0; a payload, at an odd index
            // of stride 2, is left as it is), so that C2 vectorises it.
            int payloadBit = strideShift;
            for (int at = from; at < end; at++) {
                int meta = page[at];
                page[at] = meta + (meta & SlotMeta.LIVE & ~(at & payloadBit)) * advance;
            }
        } else if (strideShift == 0) {
            // Two loops with a constant stride: C2 unrolls them, where a variable stride kept it to one slot a turn.
            for (int at = from; at < end; at++) {
                int meta = page[at];
                if ((meta & SlotMeta.LIVE) != 0) {
                    page[at] = meta == maxLive ? retire() : meta + advance;
                }
            }
        } else {
            for (int at = from; at < end; at += 2) {
                int meta = page[at];
                if ((meta & SlotMeta.LIVE) != 0) {
                    page[at] = meta == maxLive ? retire() : meta + advance;
                }
            }
        }
    }

    /**
     * {@link #releaseAllLive()} on ints {@code [from, end)} of a page of the range, from byte
     * {@code base}, in place: two ints per 8-byte read and write. With no slot at the last
     * generation, a live meta word gains {@code advance} (its live bit is bit 0, and adding
     * cannot carry out of it: a live word has bit 31, retired, clear); a payload, and a word
     * that is not live, stays as it is. The header (slot 0) is never live, so the first page's
     * pairs start at slot 0.
     */
    private void releaseLive(MemorySegment r, long base, int from, int end, int maxLive, int advance) {
        int pairs = end >>> 1;
        if (!holds(r, base, pairs, maxLive)) {
            long liveBits = strideShift == 0 ? 0x0000_0001_0000_0001L : META_LOW ? 1L : 1L << 32;
            for (int i = 0; i < pairs; i++) {
                long at = base + ((long) i << 3);
                long entry = r.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                r.set(ValueLayout.JAVA_LONG_UNALIGNED, at, entry + (entry & liveBits) * advance);
            }
            if ((end & 1) != 0) {   // stride 1, an odd number of slots: the last alone
                long at = base + ((long) (end - 1) << 2);
                int meta = r.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                r.set(ValueLayout.JAVA_INT_UNALIGNED, at, meta + (meta & SlotMeta.LIVE) * advance);
            }
            return;
        }
        for (int at = from; at < end; at += 1 << strideShift) {
            long offset = base + ((long) at << 2);
            int meta = r.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            if ((meta & SlotMeta.LIVE) != 0) {
                r.set(ValueLayout.JAVA_INT_UNALIGNED, offset, meta == maxLive ? retire() : meta + advance);
            }
        }
    }

    /**
     * {@return whether one of the {@code pairs} pairs of ints from byte {@code base} of the
     * range (and the int after them) holds {@code meta}}: branch-free, so that C2 vectorises it
     */
    private static boolean holds(MemorySegment r, long base, int pairs, int meta) {
        long both = (meta & 0xFFFF_FFFFL) | (long) meta << 32;
        int found = 0;
        for (int i = 0; i < pairs; i++) {
            long x = r.get(ValueLayout.JAVA_LONG_UNALIGNED, base + ((long) i << 3)) ^ both;
            int low = (int) x;
            int high = (int) (x >>> 32);
            found |= ~(low | -low) | ~(high | -high); // sign bit set where a half is 0
        }
        int last = r.get(ValueLayout.JAVA_INT_UNALIGNED, base + ((long) pairs << 3)) ^ meta;
        return (found | ~(last | -last)) < 0;
    }

    /** {@return whether {@code page[from, end)} holds {@code meta}}: branch-free, so that C2 vectorises it */
    private static boolean holds(int[] page, int from, int end, int meta) {
        int found = 0;
        for (int at = from; at < end; at++) {
            int x = page[at] ^ meta;
            found |= ~(x | -x); // sign bit set where x == 0
        }
        return found < 0;
    }

    /** Counts a slot retired by {@link #releaseAllLive()}; {@return its meta word} */
    private int retire() {
        retired++;
        return SlotMeta.retired(maxGeneration);
    }

    /** Forgets every slot: every later {@link #find(long)} fails. For the table's close and corruption. */
    void close() {
        limit = 0;
    }

    // ---------------------------------------------------------------------------------------
    // The free list

    /**
     * Takes the head of the ring.
     *
     * @return a free slot, or 0 if the ring is empty
     * @throws IllegalStateException if the ring names a slot that is not free; nothing changes
     */
    private int pop() {
        FreeRing r = ring;
        if (r.length == 0) {
            return 0;
        }
        int head = r.head();
        if (!isFree(head)) {
            throw corrupt(head);
        }
        r.removeHead();
        return head;
    }

    /** Puts a free slot into the list: into the bits (SWEEP), at the tail (FIFO) or the head (LIFO). */
    private void push(int slot) {
        if (sweepOrder) {
            freeBits.add(slot);
        } else if (fifo) {
            ring.append(slot);
        } else {
            ring.pushHead(slot);
        }
    }

    /** SWEEP: takes the first free slot at or after the cursor (wrapping), or returns 0 if there is none. */
    private int takeBit() {
        FreeBits bits = freeBits;
        if (bits.count == 0) {
            return 0;
        }
        int slot = bits.next(cursor);
        if (!isFree(slot)) {
            throw corrupt(slot);
        }
        bits.remove(slot);
        cursor = slot + 1;
        return slot;
    }

    /** SWEEP, after a clear: every opened slot but the header and the retired ones is free, the cursor at slot 1. */
    private void freeAllOpened() {
        freeBits.fillOpened(limit);
        cursor = 1;
        if (retired > 0) {
            for (int slot = 1; slot < limit; slot++) {
                if (SlotMeta.isRetired(meta(slot))) {
                    freeBits.remove(slot);
                }
            }
        }
    }

    /**
     * {@return what a snapshot saves as its reuse cursor}: the start of a clear's reopen range, or for
     * {@link ReuseOrder#SWEEP} the cursor of its bits, so that a restored table takes
     * the slots a saved one would have
     */
    int reuseCursor() {
        return sweepOrder ? cursor : reopen.from;
    }

    /**
     * {@return the last slot of the list, or 0 if it is empty}: the head's predecessor in the
     * list order, which {@link ReuseOrder#SWEEP} does not keep (for a snapshot and the audit).
     */
    int tail() {
        int length = listLength();
        if (!sweepOrder || length == 0) {
            return ring.tail();
        }
        int slot = freeBits.next(cursor);
        int last = slot;
        for (int i = 1; i < length; i++) {
            last = freeBits.next(last + 1);
        }
        return last;
    }

    /**
     * Writes the list into the links (each slot's link names the next, the last's the header,
     * the header's the head), the form a snapshot saves. O(list length); a link already right
     * is only read, so that a table saved twice dirties nothing the second time.
     */
    void writeLinks() {
        int length = listLength();
        if (length == 0) {
            return;     // an empty list's header link is never read
        }
        int previous = HEADER;
        for (int i = 0; i <= length; i++) {
            int slot = i < length ? listAt(i, previous) : HEADER;
            if (links.link(previous) != slot) {
                links.setLink(previous, slot);
            }
            previous = slot;
        }
    }

    /**
     * {@return the list's slot at position {@code i} (0: the head), given {@code before}, the
     * slot at {@code i - 1} (ignored for the head)}: O(1) from the ring, a scan up from
     * {@code before} in {@link ReuseOrder#SWEEP}
     */
    private int listAt(int i, int before) {
        return sweepOrder ? freeBits.next(i == 0 ? cursor : before + 1) : ring.get(i);
    }

    private IllegalStateException corrupt(int slot) {
        return new IllegalStateException("free list of table '" + name + "' is corrupt: it"
                + " names slot " + slot + ", which is not a free slot; nothing was added.");
    }

    /** {@return the table's tag} */
    int tag() {
        return (int) (tagBits >>> HandleLayout.TAG_SHIFT);
    }

    // ---------------------------------------------------------------------------------------
    // Saved state (StoredTables, for internal.format): export and restore of the whole state

    /**
     * Sets every restored entry at once, after {@link #restore}: the meta words (a BulkTable's
     * heap pages are {@code metas}' pages, so opening a large mapped table copies its meta words
     * once; a range takes a bulk copy per page) and, at stride 2, the payloads.
     */
    void restoreEntries(MetaWords metas, int[] payloads) {
        int length = metas.length();
        int[][] made = metas.pages();
        if (range != null) {
            int[] page = strideShift == 1 ? new int[2 << PAGE_SHIFT] : null;
            for (int p = 0; p < made.length; p++) {
                int base = p << PAGE_SHIFT;
                int n = Math.min(1 << PAGE_SHIFT, length - base);
                long at = (long) base << entryShift;
                if (strideShift == 0) {
                    MemorySegment.copy(made[p], 0, range, ValueLayout.JAVA_INT_UNALIGNED, at, n);
                } else {
                    for (int i = 0; i < n; i++) {
                        page[2 * i] = made[p][i];
                        page[2 * i + 1] = payloads[base + i];
                    }
                    MemorySegment.copy(page, 0, range, ValueLayout.JAVA_INT_UNALIGNED, at, 2 * n);
                }
            }
            return;
        }
        if (strideShift == 0) {
            entries.adopt(made);
            pages = entries.pages();
            return;
        }
        entries.ensure(((long) length << strideShift) - 1);
        pages = entries.pages();
        for (int slot = 0; slot < length; slot++) {
            int[] page = pages[slot >>> PAGE_SHIFT];
            page[(slot & PAGE_MASK) << 1] = metas.get(slot);
            page[((slot & PAGE_MASK) << 1) + 1] = payloads[slot];
        }
    }

    /** {@return the slots of the free list from head to tail, without a clear's reopen range (for a mapped table's checkpoint)} */
    int[] listedSlots() {
        int length = listLength();
        int[] slots = new int[length];
        for (int i = 0; i < length; i++) {
            slots[i] = listAt(i, i == 0 ? 0 : slots[i - 1]);
        }
        return slots;
    }

    /**
     * Writes the meta words (or, {@code payloads}, the payloads: stride 2 only) of slots
     * {@code [0, count)} into {@code out} from its position, 0 for an entry never made
     * ({@link PagedInts#putTo}; for a snapshot's metadata). From a range: one bulk copy of the
     * meta words at stride 1, a bulk copy per page at stride 2.
     */
    void putSaved(java.nio.IntBuffer out, int count, boolean payloads) {
        if (range == null) {
            entries.putTo(out, payloads ? 1 : 0, 1 << strideShift, count);
            return;
        }
        if (strideShift == 0) {
            MemorySegment.copy(range, 0, MemorySegment.ofBuffer(out), 0, 4L * count);
            out.position(out.position() + count);
            return;
        }
        int[] page = new int[2 << PAGE_SHIFT];
        for (int p = 0, base = 0; base < count; p++, base += 1 << PAGE_SHIFT) {
            int n = Math.min(1 << PAGE_SHIFT, count - base);
            MemorySegment.copy(range, ValueLayout.JAVA_INT_UNALIGNED, (long) base << entryShift, page, 0, 2 * n);
            for (int i = payloads ? 1 : 0, end = 2 * n; i < end; i += 2) {
                out.put(page[i]);
            }
        }
    }

    /** {@return a slot's meta word, or 0 if its entry was never made (for a snapshot)} */
    int savedMeta(int slot) {
        if (range != null) {
            return meta(slot);
        }
        return entries.getOrFill((long) slot << strideShift);
    }

    /**
     * Sets the counters, the free list ({@code list}, head to tail, checked by the caller) and
     * a clear's reopen range ({@code reopened} free slots in {@code [reuseCursor, reuseEnd)};
     * {@link ReuseOrder#SWEEP}: {@code reuseCursor} is the cursor, see {@link #reuseCursor()})
     * of a restored index;
     * the caller then sets its entries with {@link #restoreEntries}. Only on a new index, before
     * its table is used.
     */
    void restore(int limit, int retired, int[] list, int reuseCursor, int reuseEnd, int reopened) {
        this.limit = limit;
        this.retired = retired;
        for (int slot : list) {
            if (sweepOrder) {
                freeBits.add(slot);
            } else {
                ring.append(slot);
            }
        }
        if (sweepOrder) {
            cursor = reuseCursor;
            return;
        }
        reopen.open(reuseCursor, reuseEnd, reopened);
    }

    // ---------------------------------------------------------------------------------------
    // Audit, for tests

    /** The free slots in the order takes will use them: the list from head to tail and the reopen range. O(holes). */
    int[] freeSlots() {
        int length = listLength();
        int reopened = reopen.free;
        int[] slots = new int[length + reopened];
        int at = fifo ? reopened : 0;
        for (int i = 0; i < length; i++) {
            slots[at + i] = listAt(i, i == 0 ? 0 : slots[at + i - 1]);
        }
        at = fifo ? 0 : length;
        for (int slot = reopen.from; at < slots.length && slot < reopen.end; slot++) {
            if (!SlotMeta.isRetired(meta(slot))) {
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
    void checkInvariants(int live, int size) {
        int liveSlots = 0;
        int retiredSlots = 0;
        for (int slot = 1; slot < limit; slot++) {
            int meta = meta(slot);
            check(SlotMeta.generation(meta) <= maxGeneration, "generation beyond layout at slot " + slot);
            check(SlotMeta.generation(meta) >= floor, "generation below the tag's floor at slot " + slot);
            check(!(SlotMeta.isLive(meta) && SlotMeta.isRetired(meta)), "live slot " + slot + " is retired");
            liveSlots += SlotMeta.isLive(meta) ? 1 : 0;
            if (SlotMeta.isRetired(meta)) {
                retiredSlots++;
                check(SlotMeta.generation(meta) == maxGeneration, "retired slot " + slot + " below max generation");
            }
        }
        check(liveSlots == live, "meta words say " + liveSlots + " live slots, the kind counts " + live);
        check(live == size, "size " + size + " but " + live + " live slots");
        check(retiredSlots == retired, "retired " + retired + " but " + retiredSlots + " retired slots");
        int reopened = 0;
        for (int slot = reopen.from; slot < reopen.end; slot++) {
            check(!SlotMeta.isLive(meta(slot)), "live slot " + slot + " in the reopen range");
            reopened += SlotMeta.isRetired(meta(slot)) ? 0 : 1;
        }
        check(reopened == reopen.free, "the reopen range counts " + reopen.free + " free slots, holds " + reopened);
        int[] free = freeSlots();
        BitSet seen = new BitSet();
        for (int slot : free) {
            check(isFree(slot), "free list holds slot " + slot + ", which is not free");
            check(!seen.get(slot), "free list holds slot " + slot + " twice");
            seen.set(slot);
        }
        int length = listLength();
        int listTail = length == 0 ? 0 : free[fifo ? free.length - 1 : length - 1];
        int tail = tail();
        check(listTail == tail, "free list tail is " + tail + ", the list ends at " + listTail);
        if (sweepOrder) {
            freeBits.checkInvariants();
            check(reopen.from == reopen.end, "a SWEEP index has a reopen range");
        }
        int opened = Math.max(0, limit - 1);
        check(free.length + live + retiredSlots == opened, "holes " + free.length + " + live " + live
                + " + retired " + retiredSlots + " != opened slots " + opened);
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
