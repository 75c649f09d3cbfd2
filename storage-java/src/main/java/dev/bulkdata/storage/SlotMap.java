package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.events.TableEvents;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The slots that handles name, for every table kind: each slot's {@link SlotMeta meta word}
 * (live, retired, generation), the sources of free slots, the open limit and retirement
 * (why it refuses: {@link SlotRejections}). A {@link BulkTable} keeps its record in its slot; a
 * {@link PackedTable} keeps, beside each slot's meta word, the row its record is in. A handle
 * resolves to a slot here, by one route ({@link #find(long)}), then to a record by the kind's
 * rule. The entries (a meta word per slot, and a payload beside it for a PackedTable) and the
 * passes over all of them are {@link SlotEntries}, this class's superclass.
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
 * LIFO take after it. <b>Reset</b>: {@link #resetAll()} frees them the same way without writing
 * any word: every opened slot becomes <em>pending</em> ({@link #settled}), free at one
 * generation above the highest the table handed out; lookups stop below the pending slots, and
 * a take writes each one's word as it reaches it, in slot order. <b>Epochs</b>: where either would
 * retire a slot and the layout has an epoch left, the table moves to its next epoch
 * ({@link #tagBits}) and every opened slot starts again at the floor, pending.
 *
 * <p><b>Reused records</b>: a slot freed by a removal or a clear keeps its old record bytes
 * (nothing is wiped on removal); {@link #take()} says, in {@link #reused}, whether the slot it
 * returns was opened before, so that the kind zeroes that record before handing it out. A
 * never-opened slot's record is zero already.
 *
 * <p>Single writer: only the table's writer thread changes it; {@link #find(long)} may run on
 * many threads while nothing changes.
 */
final class SlotMap extends SlotEntries {
    /** Where a free slot (and the header, slot 0) keeps the number of the next free slot in the list's saved form. */
    interface Links {
        int link(int slot);

        void setLink(int slot, int next);
    }

    private static final int HEADER = 0;

    /** The table's name, for messages. */
    final String name;
    final HandleLayout layout;
    /**
     * The table's tag and epoch, shifted to where handles hold them: what every valid handle has
     * above its generation. Changes only with the epoch, when the table is empty.
     */
    long tagBits;
    /** The table's tag alone, shifted to where handles hold it. */
    final long tagOnly;
    /**
     * The table's epoch, 0 to {@link HandleLayout#maxEpoch()}: a handle is valid only in the
     * epoch it was made in. It moves on when a clear or reset would otherwise retire slots
     * (clear: a live slot at the last generation; reset: any opened slot there), and every
     * opened slot then starts again at {@link #floor}.
     */
    int epoch;
    final int maxEpoch;
    /**
     * At least the highest generation of any slot's meta word in this epoch (opened slots, the
     * pending ones at {@link #pendingGeneration}, and slot {@code limit}'s, which a cancelled add
     * may have left): what {@link #resetAll()} gives every slot one above, without reading them.
     * Raised where a generation rises (a removal's advance, a cancelled add's, a clear's), set
     * by a reset and an epoch change, computed from the entries on a restore.
     */
    int top;
    final int maxGeneration;
    /** The largest slot this map may open (layout and maxCapacity). */
    final int maxSlot;
    /** The generation a never-opened slot starts at (see {@link TagRegistry}). */
    final int floor;
    private final Links links;
    final boolean fifo;
    /** {@link ReuseOrder#SWEEP}: the free slots are in {@link #freeBits}, taken from {@link #cursor} on. */
    final boolean sweepOrder;
    /** {@link ReuseOrder#SWEEP}'s free slots; empty in the other orders. */
    final FreeBits freeBits;
    /** {@link ReuseOrder#FIFO}'s and {@link ReuseOrder#LIFO}'s free list; empty in SWEEP. */
    final FreeRing ring = new FreeRing();
    /** FIFO's and LIFO's slots freed by the last clear and not taken since; empty in SWEEP. */
    final ReopenRange reopen = new ReopenRange();

    // The sources above and counters below are package-private for StoredTables, which saves and restores them.

    /** Slots {@code [0, limit)} are opened; 0 before the first slot and after {@link #close()}. */
    int limit;
    /**
     * Slots {@code [0, settled)} hold their own meta words; slots {@code [settled, limit)} are
     * <em>pending</em>: a reset freed them without writing their words, and each is free at
     * {@link #pendingGeneration} whatever its word holds ({@link #logicalMeta}). The bound
     * {@link #find(long)} checks, so a pending slot's word is never read as a handle's. A take
     * reaches the pending slots in slot order from {@code settled} up and writes each one's word
     * ({@link #settle(int)}); equal to {@code limit} when none is pending.
     */
    int settled;
    /** The generation of every pending slot (see {@link #settled}). */
    int pendingGeneration;
    /** Slots retired at the last generation. */
    int retired;
    /**
     * {@link ReuseOrder#SWEEP}: the slot the next take looks at first, the one after the slot
     * the last take returned (fresh or not); takes go up from it and wrap at the end.
     */
    int cursor = 1;
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
    SlotMap(String name, HandleLayout layout, int tag, int floor, int maxCapacity, ReuseOrder order, Links links) {
        super(links == null);
        this.name = name;
        this.layout = layout;
        this.maxGeneration = layout.maxGeneration();
        this.tagOnly = HandleLayout.tagBits(tag);
        this.tagBits = tagOnly;
        this.maxEpoch = layout.maxEpoch();
        this.maxSlot = Math.min(layout.maxSlot(), maxCapacity);
        this.floor = floor;
        this.top = floor;
        this.links = links != null ? links : payloadLinks();
        this.fifo = order == ReuseOrder.FIFO;
        this.sweepOrder = order == ReuseOrder.SWEEP;
        this.freeBits = new FreeBits(name);
    }

    // ---------------------------------------------------------------------------------------
    // Handles

    /**
     * The one validity check of a handle: tag and stray bits, slot, then the slot's meta word
     * against {@code generation << 1 | LIVE}. One branch on the fast path.
     *
     * @return the handle's slot if it refers to a live slot, else -1
     */
    int find(long handle) {
        HandleLayout l = layout;
        long s = l.slot(handle);
        if (l.tableBits(handle) == tagBits && s < settled) {
            int slot = (int) s;
            int expected = l.generationAt(handle, SlotMeta.GENERATION_SHIFT) | SlotMeta.LIVE;
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
        HandleLayout l = layout;
        long s = l.slot(handle);
        if (l.tableBits(handle) == tagBits && s < settled) {
            int slot = (int) s;
            int expected = l.generationAt(handle, SlotMeta.GENERATION_SHIFT) | SlotMeta.LIVE;
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
        return layout.handle(tagBits, generation, slot);
    }

    /**
     * {@return the handle of {@code slot} with the epoch and generation of {@code stamp}
     * ({@link HandleLayout#stamp}), under the table's tag}
     */
    long handleOfStamp(int slot, int stamp) {
        return layout.handleOfStamp(tagOnly, stamp, slot);
    }

    /** {@return the handle of an opened slot at its current generation} */
    long handleOf(int slot) {
        return handle(slot, SlotMeta.generation(meta(slot)));
    }

    /**
     * Moves the entries into one range ({@link SlotEntries#reserveRange}) for every slot the
     * map may open. Called once, on a new map, before any slot is opened.
     */
    void reserveRange(BlockArena arena) {
        if (limit != 0 || range != null) {
            throw new IllegalStateException("the slot map of '" + name + "' already has entries");
        }
        reserveRange(arena, (long) maxSlot + 2); // slot limit's entry too, which a snapshot reads
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
        return (logicalMeta(slot) & (SlotMeta.LIVE | SlotMeta.RETIRED)) == 0;
    }

    /**
     * {@return the meta word {@code slot} stands for: its own, or a pending slot's (free at
     * {@link #pendingGeneration})}
     */
    int logicalMeta(int slot) {
        return slot >= settled && slot < limit ? SlotMeta.free(pendingGeneration) : meta(slot);
    }

    /** {@return slots a reset freed that no take has reached yet (see {@link #settled})} */
    int pendingSlots() {
        return limit - settled;
    }

    /**
     * Writes the meta word of pending {@code slot}, the first one ({@link #settled}), as free at
     * {@link #pendingGeneration}, and moves the bound past it. The payload stays as it was, as a
     * clear leaves a freed slot's.
     */
    private void settle(int slot) {
        if (slot != settled) {
            throw new IllegalStateException("the slot map of '" + name + "' took pending slot " + slot
                    + " before slot " + settled);
        }
        setMeta(slot, SlotMeta.free(pendingGeneration));
        settled = slot + 1;
    }

    /** {@return free slots waiting to be reused: in the list and in the reopen range} */
    int holes() {
        return listLength() + reopen.free;
    }

    /** {@return the free slots in the list: the ring's or, for SWEEP, the bits' and the pending slots} */
    int listLength() {
        return sweepOrder ? freeBits.count + pendingSlots() : ring.length;
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
        ensureEntries(highest);
        return highest;
    }

    /**
     * Takes a free slot (from the reopen range and the list, in reuse order), or opens a fresh one if
     * there is none; its meta word has the live bit clear and its current generation. Sets
     * {@link #reused}. The caller reserved it.
     *
     * @throws IllegalStateException if the free list names a slot that is not free (a broken
     *     map); nothing changes
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
            settled = limit;
            setMeta(slot, SlotMeta.free(Math.max(floor, SlotMeta.generation(meta(slot)))));
            cursor = limit;
        }
        return slot;
    }

    /**
     * Opens {@code count} fresh slots at once, live, for a batch add into a map with no
     * holes ({@link #holes()} 0), and writes their handles to {@code out[at, at + count)}: what
     * {@code count} calls of {@link #take()} and {@link #activate} would do, in one pass over
     * the meta words. The caller reserved them.
     *
     * @return the first slot opened
     */
    int openRun(int count, long[] out, int at) {
        if (holes() != 0) {
            throw new IllegalStateException("the slot map of '" + name + "' has holes to reuse first");
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
        settled = limit;
        cursorBefore = cursor;
        cursor = limit;
        reused = false;
        tookReopened = false;
        return first;
    }

    /**
     * Takes, at once and live, the first {@code min(count, limit - 1)} slots of a map whose
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
        int own = Math.min(taken, settled - 1);     // slots with their own words; the rest are pending
        for (int k = 0; k < own; k++) {
            int slot = 1 + k;
            int meta = meta(slot);
            setMeta(slot, meta | SlotMeta.LIVE);
            out[at + k] = handle(slot, SlotMeta.generation(meta));
        }
        int live = SlotMeta.live(pendingGeneration);
        for (int k = own; k < taken; k++) {
            int slot = 1 + k;
            setMeta(slot, live);
            out[at + k] = handle(slot, pendingGeneration);
        }
        settled = Math.max(settled, taken + 1);
        cursorBefore = cursor;
        if (sweepOrder) {
            if (own > 0) {
                freeBits.removeFirst(own);
            }
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
        while (slot < settled && SlotMeta.isRetired(meta(slot))) {
            slot++;
        }
        if (slot >= settled) {
            settle(slot);
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
            top = maxGeneration;
            TableEvents.retired(tag(), 1, retired, "remove", epoch);
            return false;
        }
        setMeta(slot, SlotMeta.free(generation + 1));
        if (generation >= top) {
            top = generation + 1;
        }
        return true;
    }

    /**
     * Undoes the {@link #take()} of a dead slot: its generation advances (the handle made for
     * it stays stale), and it goes back where take found it: the head of the free list (or its place in the bits, or the reopen range), or the
     * never-opened slots if {@code limit} was {@code limitBefore} then (for a cancelled add). The caller checked that
     * the generation is not the last.
     */
    void undoTake(int slot, int limitBefore) {
        int generation = SlotMeta.generation(meta(slot)) + 1;
        setMeta(slot, SlotMeta.free(generation));
        top = Math.max(top, generation);
        if (limit > limitBefore) {
            limit = limitBefore;
            settled = limitBefore;
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
        int retiring = advanceAllLive(settled, maxGeneration);     // a pending slot is free already
        if (retiring > 0 && epoch < maxEpoch) {
            nextEpoch();
        } else {
            retire(retiring, "clear");
            top = Math.min(top + 1, maxGeneration);     // a live slot at the top moved one up
        }
        freeAllAfterPass();
    }

    /**
     * Frees every slot at once, for a table's reset, without writing any slot's word: every opened
     * slot becomes pending ({@link #settled}), free at one generation above every generation the
     * table has handed out in this epoch ({@link #top}), so every handle from before is stale and
     * {@link #find(long)} rejects it by the bound alone; the free sources then hold every opened
     * slot in slot order (the reopen range; SWEEP: the pending slots), the ring and the bits
     * empty. If that generation is past the last, the table moves to its next epoch instead and
     * every opened slot is pending at {@link #floor}, retired ones too. O(1) in FIFO and LIFO,
     * one word per 4,096 opened slots (and one per word of free bits) in SWEEP. With no epoch left
     * it writes the pending words and does what {@link #releaseAllLive()} does (live slots at
     * the last generation retire): one pass over the words.
     */
    void resetAll() {
        if (top < maxGeneration && retired == 0) {
            top++;
            pend(top);
        } else if (epoch < maxEpoch) {
            nextEpoch();
        } else {
            settleAll();
            retire(advanceAllLive(limit, maxGeneration), "reset");
        }
        freeAllAfterPass();
    }

    /** Makes every opened slot pending at {@code generation} (see {@link #settled}). */
    private void pend(int generation) {
        pendingGeneration = generation;
        settled = Math.min(1, limit);
    }

    /**
     * Writes the word of every pending slot (free at {@link #pendingGeneration}; payloads stay
     * as they are), so that no slot is pending: for a reset with no epoch left, whose pass then
     * reads every word. The caller rebuilds the free sources.
     */
    private void settleAll() {
        int free = SlotMeta.free(pendingGeneration);
        for (int slot = settled; slot < limit; slot++) {
            setMeta(slot, free);
        }
        settled = limit;
    }

    /** Sets the epoch of a restored table, before it is used. */
    void restoreEpoch(int restored) {
        epoch = restored;
        tagBits = tagOnly | layout.epochBitsOf(restored);
    }

    /** Counts slots a clear or reset retired and reports them. */
    private void retire(int retiring, String operation) {
        if (retiring > 0) {
            retired += retiring;
            TableEvents.retired(tag(), retiring, retired, operation, epoch);
        }
    }

    /**
     * Moves the empty table to its next epoch: every handle made before no longer has the
     * table's epoch, so every opened slot, retired ones too, starts again at {@link #floor}:
     * pending ({@link #pend}), no word written.
     */
    private void nextEpoch() {
        epoch++;
        tagBits = tagOnly | layout.epochBitsOf(epoch);
        pend(floor);
        retired = 0;
        top = Math.max(floor, SlotMeta.generation(savedMeta(Math.max(1, limit))));
    }

    /** Sets {@link #top} from the entries, for a restored map: one pass over them. */
    void restoreTop() {
        top = Math.max(Math.max(floor, topGeneration(limit)), SlotMeta.generation(savedMeta(Math.max(1, limit))));
    }

    /**
     * The free list after a clear's or reset's pass: every opened slot not retired is free (the
     * pending ones too: SWEEP takes them after its bits, see {@link #takeBit()}).
     */
    private void freeAllAfterPass() {
        ring.clear();
        if (sweepOrder) {
            freeAllOpened();
            return;
        }
        reopen.open(1, limit, Math.max(0, limit - 1) - retired);
    }

    /** Forgets every slot: every later {@link #find(long)} fails. For the table's close and corruption. */
    void close() {
        limit = 0;
        settled = 0;
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
            throw SlotRejections.corruptList(this, head);
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
        if (bits.count == 0 && settled == limit) {
            return 0;
        }
        int slot = nextFree(cursor);
        if (slot >= settled) {
            settle(slot);
        } else {
            if (!isFree(slot)) {
                throw SlotRejections.corruptList(this, slot);
            }
            bits.remove(slot);
        }
        cursor = slot + 1;
        return slot;
    }

    /**
     * SWEEP: {@return the first free slot at or after {@code from}, wrapping}: in the bits, which
     * hold only slots below {@link #settled}, or the pending slots above them; the cursor never
     * passes the first pending slot, so a take reaches the pending slots in order. There is one.
     */
    private int nextFree(int from) {
        if (settled == limit) {
            return freeBits.next(from);
        }
        if (freeBits.count > 0) {
            int slot = freeBits.next(from);
            if (slot >= from || from >= limit) {
                return slot;        // at or after from, below the pending slots; or wrapped past them
            }
        }
        return from < limit ? Math.max(from, settled) : settled;
    }

    /**
     * SWEEP, after a clear or reset: every opened slot but the header, the retired ones and the
     * pending ones (which {@link #takeBit()} reaches after the bits) is in the bits, the cursor at
     * slot 1. A reset leaves every slot pending: the bits are emptied by their summary, one word
     * per 4,096 slots.
     */
    private void freeAllOpened() {
        cursor = 1;
        if (settled <= 1) {
            freeBits.clear();
            return;
        }
        freeBits.fillOpened(settled);
        if (retired > 0) {
            for (int slot = 1; slot < settled; slot++) {
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
        int slot = nextFree(cursor);
        int last = slot;
        for (int i = 1; i < length; i++) {
            last = nextFree(last + 1);
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
    int listAt(int i, int before) {
        return sweepOrder ? nextFree(i == 0 ? cursor : before + 1) : ring.get(i);
    }

    /**
     * {@inheritDoc} A pending slot's word is saved as the word it stands for
     * ({@link #logicalMeta}); its payload as it is (a freed slot's, as after a clear).
     */
    @Override
    void putSaved(java.nio.IntBuffer out, int count, boolean payloads) {
        int at = out.position();
        super.putSaved(out, count, payloads);
        if (!payloads) {
            int value = SlotMeta.free(pendingGeneration);
            for (int slot = settled, end = Math.min(limit, count); slot < end; slot++) {
                out.put(at + slot, value);
            }
        }
    }

    /** {@inheritDoc} A pending slot's is the word it stands for ({@link #logicalMeta}). */
    @Override
    int savedMeta(int slot) {
        return slot >= settled && slot < limit ? SlotMeta.free(pendingGeneration) : super.savedMeta(slot);
    }

    /** {@return the table's tag} */
    int tag() {
        return HandleLayout.tagOfBits(tagBits);
    }

    // ---------------------------------------------------------------------------------------
    // Saved state (StoredTables, for internal.format): export and restore of the whole state

    /** {@return the slots of the free list from head to tail, without a clear's reopen range (for a mapped table's checkpoint)} */
    int[] listedSlots() {
        int length = listLength();
        int[] slots = new int[length];
        for (int i = 0; i < length; i++) {
            slots[i] = listAt(i, i == 0 ? 0 : slots[i - 1]);
        }
        return slots;
    }
}
