package dev.bulkdata.storage.internal.core;

import java.util.Arrays;

/**
 * An {@code int} array that grows by pages (filled with a chosen value) and never moves a value; only the directory
 * is copied, by doubling. Pages are made in order ({@link #ensure}) or sparsely ({@link #ensurePage}, absent pages
 * reading as the fill value through {@link #getOrFill}). Unchecked: the owner checked the index and made its page.
 * Single writer, as the owner.
 */
public final class PagedInts {
    private static final int[][] NO_PAGES = new int[0][];
    private static final int INITIAL_DIRECTORY = 8;

    private final int shift;
    private final int mask;
    private final int fill;
    private int[][] pages = NO_PAGES;
    private int pageCount;

    /**
     * Ints in pages of {@code 1 << pageShift}, none made yet.
     *
     * @param pageShift log2 of the ints per page
     * @param fill the value of every element of a new page
     */
    public PagedInts(int pageShift, int fill) {
        this.shift = pageShift;
        this.mask = (1 << pageShift) - 1;
        this.fill = fill;
    }

    /**
     * {@return element {@code i}, whose page exists}
     * @param i the element
     */
    public int get(int i) {
        return pages[i >>> shift][i & mask];
    }

    /**
     * Sets element {@code i}, whose page exists.
     *
     * @param i the element
     * @param value its new value
     */
    public void set(int i, int value) {
        pages[i >>> shift][i & mask] = value;
    }

    /** {@return the page directory, for a hot path; entries past the pages made are null; growth may replace it} */
    public int[][] pages() {
        return pages;
    }

    /** {@return the elements below the last page made (contiguous use: all of them have pages)} */
    public long capacity() {
        return (long) pageCount << shift;
    }

    /**
     * {@return element {@code i}, or the fill value if its page was never made}
     * @param i the element
     */
    public int getOrFill(long i) {
        long p = i >>> shift;
        if (p >= pageCount) {
            return fill;
        }
        int[] page = pages[(int) p];
        return page == null ? fill : page[(int) i & mask];
    }

    /**
     * Writes elements {@code first + k * step}, k below {@code count}, into {@code out} from its position, 0 for a
     * page never made; a bulk copy per page when {@code step} is 1.
     *
     * @param out the buffer written from its position
     * @param first the first element
     * @param step the distance between elements, 1 or 2
     * @param count how many elements
     */
    public void putTo(java.nio.IntBuffer out, int first, int step, int count) {
        for (int k = 0; k < count; ) {
            long i = first + (long) k * step;
            int n = Math.min(count - k, (int) ((mask + 1 - (i & mask) + step - 1) / step));
            long p = i >>> shift;
            int[] page = p < pageCount ? pages[(int) p] : null;
            int at = (int) (i & mask);
            if (page == null) {
                out.position(out.position() + n); // a new buffer holds zeros
            } else if (step == 1) {
                out.put(page, at, n);
            } else {
                for (int end = at + n * step; at < end; at += step) {
                    out.put(page[at]);
                }
            }
            k += n;
        }
    }

    /** {@return heap bytes of the pages made (not counting the directory)} */
    public long pageBytes() {
        long made = 0;
        for (int p = 0; p < pageCount; p++) {
            made += pages[p] != null ? 1 : 0;
        }
        return made * (mask + 1) * Integer.BYTES;
    }

    /**
     * Makes the page holding element {@code i} only, if it is missing (a sparse array).
     *
     * @param i the element
     */
    public void ensurePage(long i) {
        int p = (int) (i >>> shift);
        if (p >= pages.length) {
            int length = Math.max(INITIAL_DIRECTORY, pages.length);
            while (length <= p) {
                length *= 2;
            }
            pages = Arrays.copyOf(pages, length);
        }
        if (pages[p] == null) {
            pages[p] = newPage();
        }
        pageCount = Math.max(pageCount, p + 1);
    }

    /** Sets every element of every page made to the fill value. */
    public void fillAll() {
        for (int p = 0; p < pageCount; p++) {
            if (pages[p] != null) {
                Arrays.fill(pages[p], fill);
            }
        }
    }

    private int[] newPage() {
        int[] page = new int[mask + 1];
        if (fill != 0) {
            Arrays.fill(page, fill);
        }
        return page;
    }

    /**
     * Replaces the pages of an array in contiguous use with {@code made}, of this page size (elements past those in use zero).
     *
     * @param made the pages, adopted as they are
     */
    public void adopt(int[][] made) {
        pages = Arrays.copyOf(made, Math.max(INITIAL_DIRECTORY, made.length));
        pageCount = made.length;
    }

    /**
     * Makes pages up to the one holding element {@code i} (contiguous use only); nothing if {@code i < 0}.
     *
     * @param i the element
     */
    public void ensure(long i) {
        if (i < 0) {
            return;
        }
        long needed = (i >>> shift) + 1;
        while (pageCount < needed) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, Math.max(INITIAL_DIRECTORY, pages.length * 2));
            }
            pages[pageCount++] = newPage();
        }
    }
}
