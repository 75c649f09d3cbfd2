package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The slots that handles name, for every table kind: each slot's {@link SlotMeta meta word} (live, retired,
 * generation), the free slots, the open limit and retirement (refusals: {@link SlotRejections}). A handle resolves to a
 * slot only through {@link #find(long)}. The entries and the passes over them are {@link SlotEntries}.
 *
 * <p>Slots {@code [1, limit)} are opened; slot 0 is the saved list's header, never handed out, so every handle of slot
 * 0 (the null handle too) is invalid. A never-opened slot starts at the tag's {@link #floor} or at the generation a
 * cancelled add left in its word, whichever is higher. Free slots are never read from the free records.
 *
 * <p>Single writer: only the table's writer thread changes it; {@link #find(long)} may run on many threads while
 * nothing changes. ARCHITECTURE.md, "The free list" and "Structural operations" (clear, reset's pending slots, epochs).
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SlotMap extends SlotEntries {
    /** Where a free slot (and the header, slot 0) keeps the next free slot of the list's saved form. */
    public interface Links {
        int link(int slot);

        void setLink(int slot, int next);
    }

    /** Told of retired slots: the seam through which observability (the flight recorder) learns of them. */
    public interface Retirements {
        Retirements NONE = (tag, retired, totalRetired, operation, epoch) -> { };

        /** {@code operation} retired {@code retired} slots of table {@code tag}: {@code totalRetired} in its epoch. */
        void retired(int tag, int retired, int totalRetired, String operation, int epoch);
    }

    private static final int HEADER = 0;

    public final String name;
    public final HandleLayout layout;
    /** Tag and epoch, shifted to where handles hold them; changes only with the epoch, when the table is empty. */
    public long tagBits;
    /** The table's tag alone, shifted to where handles hold it. */
    public final long tagOnly;
    // 0 to maxEpoch; a handle is valid only in its epoch (ARCHITECTURE.md, "Structural operations").
    public int epoch;
    public final int maxEpoch;
    // At least the highest generation in any meta word this epoch (slot limit's too): resetAll() frees above it.
    public int top;
    public final int maxGeneration;
    /** The largest slot this map may open (layout and maxCapacity). */
    public final int maxSlot;
    /** The generation a never-opened slot starts at: the tag's floor. */
    public final int floor;
    private final Links links;
    private final Retirements retirements;
    public final boolean fifo;
    /** {@link ReuseOrder#SWEEP}: free slots in {@link #freeBits}, taken from {@link #cursor} on. */
    public final boolean sweepOrder;
    /** {@link ReuseOrder#SWEEP}'s free slots; empty in the other orders. */
    public final FreeBits freeBits;
    /** {@link ReuseOrder#FIFO}'s and {@link ReuseOrder#LIFO}'s free list; empty in SWEEP. */
    public final FreeRing ring = new FreeRing();
    /** FIFO's and LIFO's slots freed by the last clear and not taken since; empty in SWEEP. */
    public final ReopenRange reopen = new ReopenRange();

    // The sources above and counters below are package-private for StoredTables, which saves and restores them.

    /** Slots {@code [0, limit)} are opened; 0 before the first slot and after {@link #close()}. */
    public int limit;
    // Slots [settled, limit) are pending: freed by a reset at pendingGeneration, words unwritten until a take reaches
    // them in order (settle). find(long) checks this bound.
    public int settled;
    /** The generation of every pending slot (see {@link #settled}). */
    public int pendingGeneration;
    /** Slots retired at the last generation. */
    public int retired;
    /** SWEEP: the slot after the one the last take returned; the next take looks from here, wrapping. */
    public int cursor = 1;
    /** The cursor before the last {@link #take()}, for {@link #undoTake}. */
    private int cursorBefore = 1;
    /** Whether the last {@link #take()} returned a slot opened before (its record bytes are stale). */
    public boolean reused;
    /** Whether the last {@link #take()} came from {@link #reopen}, for {@link #undoTake}. */
    private boolean tookReopened;

    /** {@code links}: where free slots keep their links, or null for the payload int beside each meta word. */
    public SlotMap(String name, HandleLayout layout, int tag, int floor, int maxCapacity, ReuseOrder order, Links links,
                   Retirements retirements) {
        super(links == null);
        this.name = name;
        this.layout = layout;
        this.maxGeneration = layout.maxGeneration();
        this.tagOnly = HandleBits.tagBits(tag);
        this.tagBits = tagOnly;
        this.maxEpoch = layout.maxEpoch();
        this.maxSlot = Math.min(layout.maxSlot(), maxCapacity);
        this.floor = floor;
        this.top = floor;
        this.links = links != null ? links : payloadLinks();
        this.retirements = retirements;
        this.fifo = order == ReuseOrder.FIFO;
        this.sweepOrder = order == ReuseOrder.SWEEP;
        this.freeBits = new FreeBits(name);
    }

    // ---- Handles

    /**
     * {@return the handle's slot if it refers to a live slot, else -1} The one validity check of a handle (tag and
     * stray bits, slot bound, meta word against {@code generation << 1 | LIVE}); one branch on the fast path.
     */
    public int find(long handle) {
        HandleLayout l = layout;
        long s = l.slot(handle);
        if (HandleBits.tableBits(l, handle) == tagBits && s < settled) {
            int slot = (int) s;
            int expected = HandleBits.generationAt(l, handle, SlotMeta.GENERATION_SHIFT) | SlotMeta.LIVE;
            MemorySegment r = range;
            int meta = r != null ? r.get(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift)
                    : pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift];
            if (meta == expected) {
                return slot;
            }
        }
        return -1;
    }

    /** {@link #find(long)} for stride 2, returning the payload (a packed table's row) read with the meta word, or -1. */
    public int findPayload(long handle) {
        HandleLayout l = layout;
        long s = l.slot(handle);
        if (HandleBits.tableBits(l, handle) == tagBits && s < settled) {
            int slot = (int) s;
            int expected = HandleBits.generationAt(l, handle, SlotMeta.GENERATION_SHIFT) | SlotMeta.LIVE;
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

    public long handle(int slot, int generation) {
        return HandleBits.handle(layout, tagBits, generation, slot);
    }

    /** {@return the handle of {@code slot} with the epoch and generation of {@code stamp}, under the table's tag} */
    public long handleOfStamp(int slot, int stamp) {
        return HandleBits.handleOfStamp(layout, tagOnly, stamp, slot);
    }

    /** {@return the handle of an opened slot at its current generation} */
    public long handleOf(int slot) {
        return handle(slot, SlotMeta.generation(meta(slot)));
    }

    /** Moves the entries into one range ({@link SlotEntries#reserveRange}); once, before any slot is opened. */
    public void reserveRange(Space space) {
        if (limit != 0 || range != null) {
            throw new IllegalStateException("the slot map of '" + name + "' already has entries");
        }
        reserveRange(space, (long) maxSlot + 2); // slot limit's entry too, which a snapshot reads
    }

    /** Marks a taken slot live and returns its handle: one read and one write of the meta word. */
    public long activate(int slot) {
        int meta = meta(slot) | SlotMeta.LIVE;
        setMeta(slot, meta);
        return handle(slot, SlotMeta.generation(meta));
    }

    public void markLive(int slot) {
        setMeta(slot, meta(slot) | SlotMeta.LIVE);
    }

    public void markDead(int slot) {
        setMeta(slot, meta(slot) & ~SlotMeta.LIVE);
    }

    /** Whether {@code slot} is an opened, non-header slot that is neither live nor retired. */
    public boolean isFree(int slot) {
        if (slot <= 0 || slot >= limit) {
            return false;
        }
        return (logicalMeta(slot) & (SlotMeta.LIVE | SlotMeta.RETIRED)) == 0;
    }

    /** {@return the word {@code slot} stands for: its own, or a pending slot's (free at {@link #pendingGeneration})} */
    public int logicalMeta(int slot) {
        return slot >= settled && slot < limit ? SlotMeta.free(pendingGeneration) : meta(slot);
    }

    /** {@return slots a reset freed that no take has reached yet (see {@link #settled})} */
    public int pendingSlots() {
        return limit - settled;
    }

    /** Writes the first pending slot's word as free at {@link #pendingGeneration}; its payload stays. */
    private void settle(int slot) {
        if (slot != settled) {
            throw new IllegalStateException("the slot map of '" + name + "' took pending slot " + slot
                    + " before slot " + settled);
        }
        setMeta(slot, SlotMeta.free(pendingGeneration));
        settled = slot + 1;
    }

    /** {@return free slots waiting to be reused: in the list and in the reopen range} */
    public int holes() {
        return listLength() + reopen.free;
    }

    /** {@return the free slots in the list: the ring's or, for SWEEP, the bits' and the pending slots} */
    public int listLength() {
        return sweepOrder ? freeBits.count + pendingSlots() : ring.length;
    }

    /** {@return slots never opened that may still be opened} */
    public long freshSlots() {
        return limit == 0 ? maxSlot : (long) maxSlot - limit + 1;
    }

    // ---- Taking and releasing slots

    /**
     * Makes sure {@code count} {@link #take()}s cannot fail; returns the highest slot they may open (-1: holes cover
     * all) for the kind's record storage. Throws {@link CapacityExceededException} if they do not fit; nothing changes.
     */
    public long reserve(int count, int size) {
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
     * Takes a reserved free slot in reuse order, or opens a fresh one (live bit clear); sets {@link #reused}. Throws
     * {@link IllegalStateException}, changing nothing, if the free list names a slot that is not free.
     */
    public int take() {
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
     * Opens {@code count} reserved fresh slots live in a map with no holes, handles to {@code out[at, at + count)}:
     * takes and activations in one pass. Returns the first slot opened.
     */
    public int openRun(int count, long[] out, int at) {
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
     * Takes live, in {@link #take()}'s order, the first {@code min(count, limit - 1)} slots of a map just cleared or
     * reset with none retired, handles from {@code out[at]}; returns how many (from slot 1), else 0 doing nothing.
     */
    public int reopenRun(int count, long[] out, int at) {
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

    /**
     * SWEEP with no pending slot and free bits: takes what {@link #take()}s would, up to {@code max} slots of the word
     * holding the next one, stopping before one not free (its take throws); returns them as bits of word {@code (cursor - 1) >>> 6}.
     */
    public long takeWord(int max) {
        int first = freeBits.next(cursor);
        int w = first >>> 6;
        long take = 0;
        for (long rest = freeBits.bits[w] & (-1L << first); rest != 0 && max > 0; rest &= rest - 1, max--) {
            if (!isFree((w << 6) | Long.numberOfTrailingZeros(rest))) {
                break;
            }
            take |= rest & -rest;
        }
        if (take != 0) {
            long before = take & ~Long.highestOneBit(take);
            cursorBefore = before == 0 ? cursor : (w << 6) + 64 - Long.numberOfLeadingZeros(before);
            cursor = (w << 6) + 64 - Long.numberOfLeadingZeros(take);
            freeBits.removeAll(w, take);
            reused = true;
            tookReopened = false;
        }
        return take;
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

    /** Advances a dead slot's generation and frees it, or retires it at the last generation. */
    public void release(int slot) {
        if (retireOrAdvance(slot)) {
            push(slot);
        }
    }

    /** {@return whether the slot may be reused (false: retired)} */
    public boolean retireOrAdvance(int slot) {
        int generation = SlotMeta.generation(meta(slot));
        if (generation == maxGeneration) {
            setMeta(slot, SlotMeta.retired(generation));
            retired++;
            top = maxGeneration;
            retirements.retired(tag(), 1, retired, "remove", epoch);
            return false;
        }
        setMeta(slot, SlotMeta.free(generation + 1));
        if (generation >= top) {
            top = generation + 1;
        }
        return true;
    }

    /**
     * Undoes a dead slot's {@link #take()}: its generation (not the last: the caller checked) advances and it goes back
     * where take found it, or to the never-opened slots if {@code limit} was {@code limitBefore}.
     */
    public void undoTake(int slot, int limitBefore) {
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
     * A clear: every live slot advances (or retires, or the table moves to its next epoch) in one pass over the words;
     * every opened slot not retired is then free, in slot order.
     */
    public void releaseAllLive() {
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
     * A reset, writing no word (O(1); SWEEP: a word per 4,096 slots): every opened slot becomes pending at
     * {@code top + 1} or, if a slot retired or generations ran out, at {@link #floor} in the next epoch, so earlier
     * handles fail {@link #find(long)}'s bound. With no epoch left, a {@link #releaseAllLive()}.
     */
    public void resetAll() {
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

    /** Writes every pending slot's word (payloads stay), for a reset with no epoch left. */
    private void settleAll() {
        int free = SlotMeta.free(pendingGeneration);
        for (int slot = settled; slot < limit; slot++) {
            setMeta(slot, free);
        }
        settled = limit;
    }

    /** Sets the epoch of a restored table, before it is used. */
    public void restoreEpoch(int restored) {
        epoch = restored;
        tagBits = tagOnly | HandleBits.epochBitsOf(layout, restored);
    }

    /** Counts slots a clear or reset retired and reports them. */
    private void retire(int retiring, String operation) {
        if (retiring > 0) {
            retired += retiring;
            retirements.retired(tag(), retiring, retired, operation, epoch);
        }
    }

    /** Moves the empty table to its next epoch: every opened slot, retired ones too, pending at {@link #floor}. */
    private void nextEpoch() {
        epoch++;
        tagBits = tagOnly | HandleBits.epochBitsOf(layout, epoch);
        pend(floor);
        retired = 0;
        top = Math.max(floor, SlotMeta.generation(savedMeta(Math.max(1, limit))));
    }

    /** Sets {@link #top} from the entries, for a restored map: one pass over them. */
    public void restoreTop() {
        top = Math.max(Math.max(floor, topGeneration(limit)), SlotMeta.generation(savedMeta(Math.max(1, limit))));
    }

    /** Rebuilds the free sources after a clear's or reset's pass: every opened slot not retired is free. */
    private void freeAllAfterPass() {
        ring.clear();
        if (sweepOrder) {
            freeAllOpened();
            return;
        }
        reopen.open(1, limit, Math.max(0, limit - 1) - retired);
    }

    /** Forgets every slot: every later {@link #find(long)} fails. For the table's close and corruption. */
    public void close() {
        limit = 0;
        settled = 0;
    }

    // ---- The free list

    /** Takes the ring's head, or returns 0 if empty; throws {@link IllegalStateException} if it is not free. */
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

    // SWEEP: the first free slot (there is one) at or after from, wrapping, in the bits (below settled) or the pending
    // slots; the cursor never passes the first pending slot, so takes reach them in order.
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

    // SWEEP after a clear or reset: the bits hold every opened slot below settled but the header and retired ones, the
    // cursor at 1; after a reset the bits empty by their summary, a word per 4,096 slots.
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

    /** {@return the reuse cursor a snapshot saves (reopen start; SWEEP: the cursor), so a restore takes the same slots} */
    public int reuseCursor() {
        return sweepOrder ? cursor : reopen.from;
    }

    /** {@return the list's last slot, or 0 if empty} SWEEP computes it (for a snapshot and the audit). */
    public int tail() {
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

    /** Writes the list's links as a snapshot saves them ("The free list"); O(list length), rewriting no right link. */
    public void writeLinks() {
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

    /** {@return the list's slot at {@code i} (0: head), given the one at {@code i - 1}}; a scan in SWEEP. */
    public int listAt(int i, int before) {
        return sweepOrder ? nextFree(i == 0 ? cursor : before + 1) : ring.get(i);
    }

    /** {@inheritDoc} A pending slot's word is saved as the word it stands for; its payload as it is. */
    @Override
    public void putSaved(java.nio.IntBuffer out, int count, boolean payloads) {
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
    public int savedMeta(int slot) {
        return slot >= settled && slot < limit ? SlotMeta.free(pendingGeneration) : super.savedMeta(slot);
    }

    public int tag() {
        return HandleBits.tagOfBits(tagBits);
    }

    // ---- Saved state (StoredTables): export and restore of the whole state

    /** {@return the slots of the free list from head to tail, without a clear's reopen range (for a mapped table's checkpoint)} */
    public int[] listedSlots() {
        int length = listLength();
        int[] slots = new int[length];
        for (int i = 0; i < length; i++) {
            slots[i] = listAt(i, i == 0 ? 0 : slots[i - 1]);
        }
        return slots;
    }
}
