package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.HandleLayout;

import java.nio.IntBuffer;
import java.util.Arrays;

/**
 * Meta words read from a file, in the slot map's pages of 4,096, for a BulkTable to adopt as they are; and their
 * encoding ({@code docs/format.md}, section 7), shared by the engine's {@code SlotMeta}.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class MetaWords {
    /** Slots per page: 4,096, a 16 KiB page of meta words, as in the slot map. */
    public static final int PAGE_SHIFT = 12;
    static final int PAGE_MASK = (1 << PAGE_SHIFT) - 1;
    public static final int LIVE = 1;
    public static final int RETIRED = 1 << 31;
    public static final int GENERATION_SHIFT = 1;
    public static final int GENERATION_MASK = (1 << HandleLayout.MAX_GENERATION_BITS) - 1;

    private final int[][] pages;
    private final int length;

    /** Room for {@code length} meta words; {@link #copyPage} fills it page by page. */
    MetaWords(int length) {
        this.length = length;
        this.pages = new int[(length + PAGE_MASK) >>> PAGE_SHIFT][];
    }

    /** {@return the number of meta words, slots 0 to {@code length - 1}} */
    public int length() {
        return length;
    }

    /** {@return the pages of 4,096 words each (the last one too), for the slot map to adopt} */
    public int[][] pages() {
        return pages;
    }

    /** {@return page {@code p}, made and filled from {@code in}, which holds the {@link #length} words} */
    int[] copyPage(int p, IntBuffer in) {
        int[] page = new int[1 << PAGE_SHIFT];
        in.get(p << PAGE_SHIFT, page, 0, Math.min(1 << PAGE_SHIFT, length - (p << PAGE_SHIFT)));
        pages[p] = page;
        return page;
    }

    public int get(int slot) {
        return pages[slot >>> PAGE_SHIFT][slot & PAGE_MASK];
    }

    void set(int slot, int meta) {
        pages[slot >>> PAGE_SHIFT][slot & PAGE_MASK] = meta;
    }

    static int generation(int meta) {
        return (meta >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    static int free(int generation) {
        return generation << GENERATION_SHIFT;
    }

    static boolean isLive(int meta) {
        return (meta & LIVE) != 0;
    }

    static boolean isRetired(int meta) {
        return (meta & RETIRED) != 0;
    }

    /** {@return whether a meta word is neither live nor retired} */
    static boolean isFree(int meta) {
        return (meta & (LIVE | RETIRED)) == 0;
    }

    static String state(int meta) {
        return isRetired(meta) ? "retired" : isLive(meta) ? "live" : "free";
    }

    // ---- A BulkTable's live words, computed while the meta words are parsed

    /** {@return the slots per word of a BulkTable's live bits: 64, or a whole smaller block} */
    public static int liveStep(int slotsPerBlock) {
        return Math.min(64, slotsPerBlock);
    }

    /**
     * Computes the live words ({@link #liveStep} slots each, from slot 0) of {@code count} meta words of a page from
     * slot {@code base}, {@code live} of them live, while the page is in cache.
     */
    static void liveWords(int[] page, int base, int count, int live, int slotsPerBlock, long[] words) {
        int step = liveStep(slotsPerBlock);
        int at = 0;
        if (live == 0 || live == count) {
            at = count - count % step;  // whole words; a last, partial one below
            if (live != 0) {
                Arrays.fill(words, base / step, (base + at) / step, step == 64 ? -1L : (1L << step) - 1);
            }
        }
        for (; at < count; at += step) {
            int n = Math.min(count - at, step);
            long bits = n == 64 ? wholeWord(page, at) : MIXED;
            if (bits == MIXED) {
                bits = liveBits(page, at, n);
            }
            words[(base + at) / step] = bits;
        }
    }

    /**
     * {@return the live words of the first {@code opened} meta words, for blocks of {@code slotsPerBlock} slots}: what
     * {@link #liveWords(int[], int, int, int, int, long[])} computes while parsing, for a table under another schema.
     */
    static long[] liveWords(MetaWords metas, int opened, int slotsPerBlock) {
        int step = liveStep(slotsPerBlock);
        long[] words = new long[(opened + step - 1) / step];
        for (int p = 0; p < metas.pages.length && (p << PAGE_SHIFT) < opened; p++) {
            int[] page = metas.pages[p];
            int base = p << PAGE_SHIFT;
            int count = Math.min(page.length, opened - base);
            int live = 0;
            for (int i = 0; i < count; i++) {
                live += page[i] & LIVE;
            }
            liveWords(page, base, count, live, slotsPerBlock, words);
        }
        return words;
    }

    /** {@link #wholeWord}'s answer for a word of live and free slots (as a bitmap it would be slot 0 alone). */
    private static final long MIXED = 1L;

    /**
     * The live bits of 64 meta words when they are all live (-1) or all not live (0), by an and- and an or-reduction
     * that C2 vectorises: the common case on restore. Otherwise {@link #MIXED}, for {@link #liveBits} to compute.
     */
    private static long wholeWord(int[] page, int at) {
        int all = -1;
        int any = 0;
        for (int i = 0; i < 64; i++) {
            int meta = page[at + i];
            all &= meta;
            any |= meta;
        }
        return (all & LIVE) != 0 ? -1L : (any & LIVE) == 0 ? 0L : 1L;
    }

    /** The live bits of {@code count} meta words from {@code page[at]}, one by one. */
    private static long liveBits(int[] page, int at, int count) {
        long bits = 0;
        for (int i = 0; i < count; i++) {
            bits |= (long) (page[at + i] & LIVE) << i;
        }
        return bits;
    }
}
