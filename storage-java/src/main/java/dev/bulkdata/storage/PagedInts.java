package dev.bulkdata.storage;

import java.util.Arrays;

/**
 * An {@code int} array that grows by pages and never moves a value: element {@code i} is at
 * {@code pages[i >>> shift][i & mask]}. New pages are filled with a chosen value. Only the page
 * directory is ever copied (doubling). Used wherever the core keeps one or two ints per slot or
 * row: the slot index's meta words, a packed table's back-links, a sparse set's pages, a
 * component table's owner generations.
 *
 * <p>Unchecked: indices are trusted (the owner checked them and made the page with
 * {@link #ensure(long)}). Single writer, like the owning structure.
 */
final class PagedInts {
    private static final int[][] NO_PAGES = new int[0][];
    private static final int INITIAL_DIRECTORY = 8;

    private final int shift;
    private final int mask;
    private final int fill;
    private int[][] pages = NO_PAGES;
    private int pageCount;

    /**
     * @param pageShift log2 of the ints per page
     * @param fill the value of every element of a new page
     */
    PagedInts(int pageShift, int fill) {
        this.shift = pageShift;
        this.mask = (1 << pageShift) - 1;
        this.fill = fill;
    }

    int get(int i) {
        return pages[i >>> shift][i & mask];
    }

    void set(int i, int value) {
        pages[i >>> shift][i & mask] = value;
    }

    /** {@return the page holding element {@code i}, for loops that read neighbours} */
    int[] page(int i) {
        return pages[i >>> shift];
    }

    /** {@return element {@code i}'s position in its {@link #page}} */
    int offset(int i) {
        return i & mask;
    }

    /** {@return whether element {@code i} has a page} */
    boolean has(long i) {
        return (i >>> shift) < pageCount;
    }

    /** {@return the elements pages exist for} */
    long capacity() {
        return (long) pageCount << shift;
    }

    /** {@return the number of pages} */
    int pageCount() {
        return pageCount;
    }

    /** Makes pages up to the one holding element {@code i}. */
    void ensure(long i) {
        long needed = (i >>> shift) + 1;
        while (pageCount < needed) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, Math.max(INITIAL_DIRECTORY, pages.length * 2));
            }
            int[] page = new int[mask + 1];
            if (fill != 0) {
                Arrays.fill(page, fill);
            }
            pages[pageCount++] = page;
        }
    }
}
