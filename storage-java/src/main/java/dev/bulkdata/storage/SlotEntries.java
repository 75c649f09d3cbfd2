package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.format.MetaWords;
import dev.bulkdata.storage.internal.memory.AddressSpace;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.memory.PagedInts;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Where a {@link SlotMap} keeps its entries, one per slot, and the passes over all of them:
 * the clear pass ({@link #advanceAllLive}), and the copies a snapshot saves and a restore sets.
 *
 * <pre>
 *  per slot:  [ meta ]            stride 1 (BulkTable)
 *             [ meta ][ payload ] stride 2 (PackedTable: the row, if live; a free slot's link)
 * </pre>
 *
 * <p>Memory per slot: 4 bytes (stride 1) or 8 bytes (stride 2), in one range reserved for every
 * slot the slot map may open ({@link SlotMap#reserveRange}; backed as it is touched, never
 * moved) or, where ranges are not available, in heap pages of 4,096 slots ({@link PagedInts},
 * whose pages never move either). One or the other holds them, never both.
 *
 * <p>The slot map is this class's one subclass, so that its lookup ({@link SlotMap#find}) reads
 * {@link #range} and {@link #pages} as fields of the slot map itself: no load more than when they
 * were declared there.
 */
abstract sealed class SlotEntries permits SlotMap {
    /** Slots per page of entries: 4096, a 16 KiB page of meta words (32 KiB with payloads). */
    static final int PAGE_SHIFT = 12;
    static final int PAGE_MASK = (1 << PAGE_SHIFT) - 1;
    /** Whether an 8-byte read of an entry holds the meta word in its low half (little-endian). */
    private static final boolean META_LOW = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    /** log2 of the ints per entry: 0 (meta) or 1 (meta, payload). */
    final int strideShift;
    /** log2 of the bytes per entry: 2 (meta) or 3 (meta, payload). */
    final int entryShift;
    private final PagedInts entries;
    /**
     * {@code entries}' page directory, read directly by {@link SlotMap#find} and
     * {@link SlotMap#findPayload} (one dependent load fewer than through {@code entries});
     * refreshed whenever entries grow. Slot {@code i}'s meta word is
     * {@code pages[i >>> PAGE_SHIFT][(i & PAGE_MASK) << strideShift]}.
     */
    int[][] pages;
    /**
     * The entries in one reserved range of the table's arena, slot {@code s}'s at byte
     * {@code s << entryShift}; null while the entries are in {@link #pages}.
     */
    MemorySegment range;
    /** Whether the range was advised to use huge pages (once its entries pass 2 MiB). */
    private boolean rangeAdvised;
    /** Slots retired by the running {@link #advanceAllLive} pass. */
    private int passRetired;
    /** The meta word the running {@link #advanceAllLive} pass gives a slot it retires. */
    private int retiredMeta;

    /** @param payloads whether each entry holds a payload int beside its meta word (stride 2) */
    SlotEntries(boolean payloads) {
        this.strideShift = payloads ? 1 : 0;
        this.entryShift = 2 + strideShift;
        this.entries = new PagedInts(PAGE_SHIFT + strideShift, 0);
        this.pages = entries.pages();
    }

    final int meta(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift);
        }
        return pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift];
    }

    final void setMeta(int slot, int meta) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift, meta);
        } else {
            pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift] = meta;
        }
    }

    /** {@return the payload of a slot; stride 2 only} */
    final int payload(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4);
        }
        return pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1];
    }

    final void setPayload(int slot, int value) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4, value);
        } else {
            pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1] = value;
        }
    }

    /** {@return links kept in the entries' payloads (stride 2): a free slot's payload names the next} */
    final SlotMap.Links payloadLinks() {
        return new SlotMap.Links() {
            @Override
            public int link(int slot) {
                return payload(slot);
            }

            @Override
            public void setLink(int slot, int next) {
                setPayload(slot, next);
            }
        };
    }

    /**
     * Moves the entries into one range reserved in {@code arena} for {@code slots} slots
     * ({@link AddressSpace}), if reservations are available; otherwise they stay in heap pages.
     * Only before any entry is made.
     */
    final void reserveRange(BlockArena arena, long slots) {
        range = arena.reserve(slots << entryShift);
    }

    /** Makes entries for every slot up to {@code highest}: heap pages, or huge-page advice for a range. */
    final void ensureEntries(long highest) {
        if (range != null) {
            if (!rangeAdvised && (highest << entryShift) >= AddressSpace.HUGE_PAGE) {
                rangeAdvised = true;
                AddressSpace.adviseHugePages(range);
            }
            return;
        }
        entries.ensure((highest << strideShift) + (1 << strideShift) - 1);
        pages = entries.pages();
    }

    // ---------------------------------------------------------------------------------------
    // The restore pass

    /** Ints {@link #topGeneration} copies out of a range at a time, into {@link #scratch}. */
    private static final int SCRATCH_INTS = 1 << 12;
    /** Scratch for {@link #topGeneration}, made on first use. */
    private int[] scratch;

    /**
     * {@return the highest generation in the meta words of slots {@code [1, limit)}, retired
     * ones included; 0 if none}: a branch-free max over the words (payloads masked out); a
     * range's words are first copied to a heap scratch a page at a time. For a restored slot map.
     */
    final int topGeneration(int limit) {
        if (limit <= 1) {
            return 0;
        }
        int top = 0;
        long endInt = (long) limit << strideShift;      // ints [1 << strideShift, endInt)
        MemorySegment r = range;
        if (r != null) {
            int[] buffer = scratch == null ? scratch = new int[SCRATCH_INTS] : scratch;
            for (long at = 1L << strideShift; at < endInt; at += SCRATCH_INTS) {
                int n = (int) Math.min(SCRATCH_INTS, endInt - at);
                MemorySegment.copy(r, ValueLayout.JAVA_INT_UNALIGNED, at << 2, buffer, 0, n);
                top = Math.max(top, maxGenerationBits(buffer, 0, n));
            }
        } else {
            for (long first = 0; first < endInt; first += (long) PAGE_INTS << strideShift) {
                int[] page = pages[(int) (first >>> (PAGE_SHIFT + strideShift))];
                int from = first == 0 ? 1 << strideShift : 0;
                int end = (int) Math.min(endInt - first, (long) PAGE_INTS << strideShift);
                top = Math.max(top, maxGenerationBits(page, from, end));
            }
        }
        return top >>> SlotMeta.GENERATION_SHIFT;
    }

    private static final int PAGE_INTS = 1 << PAGE_SHIFT;

    /**
     * The highest generation bits of the meta words among ints {@code [from, end)} of
     * {@code ints}, which start at an entry; at stride 2 the meta words are the ints at even
     * indices, and the payloads between them are masked to 0.
     */
    private int maxGenerationBits(int[] ints, int from, int end) {
        int top = 0;
        if (strideShift == 0) {
            for (int i = from; i < end; i++) {
                top = Math.max(top, ints[i] & GENERATION_BITS);
            }
        } else {
            for (int i = from; i < end; i++) {
                top = Math.max(top, ints[i] & GENERATION_BITS & ((i & 1) - 1));
            }
        }
        return top;
    }

    /** The generation bits of a meta word, in place. */
    private static final int GENERATION_BITS = SlotMeta.GENERATION_MASK << SlotMeta.GENERATION_SHIFT;

    // ---------------------------------------------------------------------------------------
    // The clear pass

    /**
     * Makes every live meta word of slots {@code [1, limit)} dead at its next generation, or
     * retired at {@code maxGeneration}, in one pass over the entries; payloads and words that
     * are not live stay as they are. Branch-free where no slot retires, so that C2 vectorises it.
     *
     * @return the slots retired
     */
    final int advanceAllLive(int limit, int maxGeneration) {
        int maxLive = SlotMeta.live(maxGeneration);
        int advance = SlotMeta.free(1) - SlotMeta.LIVE;
        passRetired = 0;
        retiredMeta = SlotMeta.retired(maxGeneration);
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
        return passRetired;
    }

    /** {@link #advanceAllLive} on ints {@code [from, end)} of a heap page of entries. */
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
     * {@link #advanceAllLive} on ints {@code [from, end)} of a page of the range, from byte
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

    /** Counts a slot retired by {@link #advanceAllLive}; {@return its meta word} */
    private int retire() {
        passRetired++;
        return retiredMeta;
    }

    // ---------------------------------------------------------------------------------------
    // Saved state (StoredTables): the copies a snapshot saves and a restore sets

    /**
     * Sets every restored entry at once, after the slot map's counters and list (StoredTables): the meta words (a BulkTable's
     * heap pages are {@code metas}' pages, so opening a large mapped table copies its meta words
     * once; a range takes a bulk copy per page) and, at stride 2, the payloads.
     */
    void restoreEntries(MetaWords metas, int[] payloads) {
        int length = metas.length();
        int[][] made = metas.pages();
        if (range != null) {
            // Advice first: the copy below is the range's first touch, so a large slot map gets
            // huge pages from the start instead of a page fault per 4 KiB.
            ensureEntries(Math.max(0, length - 1));
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
}
