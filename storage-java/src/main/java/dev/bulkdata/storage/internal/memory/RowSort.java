package dev.bulkdata.storage.internal.memory;

/**
 * The budgeted insertion sort of dense rows for {@code defragment} of packed and component tables: each call restarts
 * at row 0 and makes at most a budget of adjacent swaps. Stable and adaptive (O(n + inversions)), it suits mostly
 * sorted rows and resumes without saved state. One instance per table, so a call allocates nothing.
 */
public final class RowSort {
    /** What a sort runs over: rows {@code 0..n-1} that can be compared and swapped. */
    public interface Rows {
        /**
         * {@return negative, zero or positive as row {@code a} goes before, with, or after row {@code b}}
         * @param a a row
         * @param b another row
         */
        int compareRows(int a, int b);

        /**
         * Exchanges rows {@code a} and {@code b}, and everything that follows a row.
         *
         * @param a a row
         * @param b another row
         */
        void swapRows(int a, int b);
    }

    private final Rows rows;
    private boolean finished;

    /**
     * A sort over {@code rows}, kept by one table and reused by each of its calls.
     *
     * @param rows what is sorted
     */
    public RowSort(Rows rows) {
        this.rows = rows;
    }

    /**
     * {@return the number of swaps made} Sorts rows {@code 0..n-1} until they are in order or {@code maxSwaps} swaps
     * are made; {@link #finished()} says whether the pass completed.
     *
     * @param n the number of rows
     * @param maxSwaps the most swaps, {@code >= 0}
     */
    public long sort(int n, long maxSwaps) {
        long swaps = 0;
        int next = 1;
        sort:
        for (; next < n; next++) {
            for (int j = next; j > 0 && rows.compareRows(j - 1, j) > 0; j--) {
                if (swaps == maxSwaps) {
                    break sort;
                }
                rows.swapRows(j - 1, j);
                swaps++;
            }
        }
        finished = next >= n;
        return swaps;
    }

    /** {@return whether the last {@link #sort} got through every row (the rows are in order)} */
    public boolean finished() {
        return finished;
    }
}
