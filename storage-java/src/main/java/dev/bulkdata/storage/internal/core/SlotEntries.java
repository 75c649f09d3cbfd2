package dev.bulkdata.storage.internal.core;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A {@link SlotMap}'s entries and the passes over all of them (clear, snapshot, restore). Per slot a meta word (stride
 * 1, BulkTable) or meta word and payload (stride 2, PackedTable: the row if live, else the free link), either in one
 * reserved range for every slot the map may open (backed as touched, never moved) or, without ranges, in heap pages of
 * 4,096 slots that never move. SlotMap is the one subclass so that {@link SlotMap#find} reads {@link #range} and
 * {@link #pages} as its own fields: no extra load.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public abstract sealed class SlotEntries permits SlotMap {
    /** Where a reserved range comes from: the seam through which the memory layer (a table's arena) reserves one. */
    public interface Space {
        /** Entries past this many bytes (2 MiB, a huge page) ask for huge pages. */
        long HUGE_PAGE = 2L << 20;

        /** {@return {@code bytes} of address space, zero where first read, or null if none can be reserved} */
        MemorySegment reserve(long bytes);

        /** Asks, best effort, that {@code range} be backed by huge pages. */
        void adviseHugePages(MemorySegment range);
    }

    /** Slots per page of entries: 4096, a 16 KiB page of meta words (32 KiB with payloads). */
    public static final int PAGE_SHIFT = 12;
    public static final int PAGE_MASK = (1 << PAGE_SHIFT) - 1;
    /** Whether an 8-byte read of an entry holds the meta word in its low half (little-endian). */
    private static final boolean META_LOW = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    // log2 of the ints, and of the bytes, per entry
    public final int strideShift;
    public final int entryShift;
    private final PagedInts entries;
    /** {@code entries}' directory, read directly by the lookups (one dependent load fewer); refreshed on growth. */
    public int[][] pages;
    /** The entries' reserved range, slot {@code s} at byte {@code s << entryShift}; null with {@link #pages}. */
    public MemorySegment range;
    private boolean rangeAdvised;
    private Space space;
    // the running advanceAllLive pass's retired count and retired meta word
    private int passRetired;
    private int retiredMeta;

    /** @param payloads whether each entry holds a payload int beside its meta word (stride 2) */
    public SlotEntries(boolean payloads) {
        this.strideShift = payloads ? 1 : 0;
        this.entryShift = 2 + strideShift;
        this.entries = new PagedInts(PAGE_SHIFT + strideShift, 0);
        this.pages = entries.pages();
    }

    public final int meta(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift);
        }
        return pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift];
    }

    public final void setMeta(int slot, int meta) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, (long) slot << entryShift, meta);
        } else {
            pages[slot >>> PAGE_SHIFT][(slot & PAGE_MASK) << strideShift] = meta;
        }
    }

    /** {@return the payload of a slot; stride 2 only} */
    public final int payload(int slot) {
        MemorySegment r = range;
        if (r != null) {
            return r.get(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4);
        }
        return pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1];
    }

    public final void setPayload(int slot, int value) {
        MemorySegment r = range;
        if (r != null) {
            r.set(ValueLayout.JAVA_INT_UNALIGNED, ((long) slot << 3) + 4, value);
        } else {
            pages[slot >>> PAGE_SHIFT][((slot & PAGE_MASK) << 1) + 1] = value;
        }
    }

    /** {@return links kept in the entries' payloads (stride 2): a free slot's payload names the next} */
    public final SlotMap.Links payloadLinks() {
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

    /** Moves the entries into a range reserved for {@code slots} slots, if available; before any entry is made. */
    public final void reserveRange(Space space, long slots) {
        this.space = space;
        range = space.reserve(slots << entryShift);
    }

    /** Makes entries for every slot up to {@code highest}: heap pages, or huge-page advice for a range. */
    public final void ensureEntries(long highest) {
        if (range != null) {
            if (!rangeAdvised && (highest << entryShift) >= Space.HUGE_PAGE) {
                rangeAdvised = true;
                space.adviseHugePages(range);
            }
            return;
        }
        entries.ensure((highest << strideShift) + (1 << strideShift) - 1);
        pages = entries.pages();
    }

    // ---- The restore pass

    private static final int SCRATCH_INTS = 1 << 12;
    private int[] scratch;

    // The highest generation of slots [1, limit), retired included; 0 if none. A branch-free max, payloads masked out.
    public final int topGeneration(int limit) {
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

    /** Highest generation bits among ints {@code [from, end)}; at stride 2 odd (payload) ints masked to 0. */
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

    private static final int GENERATION_BITS = SlotMeta.GENERATION_MASK << SlotMeta.GENERATION_SHIFT;

    // ---- The clear pass

    /** Frees every live slot of {@code [1, limit)} at its next generation, or retires it; returns the slots retired. */
    public final int advanceAllLive(int limit, int maxGeneration) {
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
            // No slot retires (a payload equal to maxLive only sends its page the slow way); odd-index payloads kept.
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

    // advanceAllLive on a range page from byte base, two ints per 8-byte access. Adding advance to a live word cannot
    // carry (bit 31, retired, is clear); slot 0 is never live, so the first page's pairs start there.
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

    /** {@return whether {@code pairs} int pairs from {@code base}, or the int after, hold {@code meta}}: branch-free for C2 */
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

    // ---- Saved state (StoredTables): the copies a snapshot saves and a restore sets

    // Sets the entries of slots [0, length) from meta words in pages of 4,096 (made, adopted as they are by heap pages
    // at stride 1; a range takes a bulk copy per page) and, at stride 2, payloads.
    public void restoreEntries(int[][] made, int length, int[] payloads) {
        if (range != null) {
            // advise before the first touch, so huge pages from the start
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
            page[(slot & PAGE_MASK) << 1] = made[slot >>> PAGE_SHIFT][slot & PAGE_MASK];
            page[((slot & PAGE_MASK) << 1) + 1] = payloads[slot];
        }
    }

    /** Writes the meta words (or stride-2 payloads) of slots {@code [0, count)} to {@code out}, 0 where never made. */
    public void putSaved(java.nio.IntBuffer out, int count, boolean payloads) {
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
    public int savedMeta(int slot) {
        if (range != null) {
            return meta(slot);
        }
        return entries.getOrFill((long) slot << strideShift);
    }
}
