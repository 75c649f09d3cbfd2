package dev.bulkdata.storage.internal.memory;

import dev.bulkdata.storage.Seeds;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RowSort}: a budgeted, stable insertion sort. Each adjacent swap removes one inversion,
 * so a complete sort makes exactly as many swaps as the rows had inversions; sorted rows cost
 * one comparison per row and no swap; a call stops at its budget, and the calls that follow
 * finish the work with no state kept. Seeded model test: random rows with few distinct keys,
 * sorted under random budgets, against a stable sort.
 */
class RowSortTest {
    /** Rows of keys, each with the position it started at (to check stability); counts the calls. */
    private static final class Rows implements RowSort.Rows {
        final int[] keys;
        final int[] ids;
        long comparisons;
        long swaps;

        Rows(int... keys) {
            this.keys = keys.clone();
            this.ids = new int[keys.length];
            Arrays.setAll(ids, i -> i);
        }

        @Override
        public int compareRows(int a, int b) {
            comparisons++;
            return Integer.compare(keys[a], keys[b]);
        }

        @Override
        public void swapRows(int a, int b) {
            swaps++;
            int k = keys[a];
            keys[a] = keys[b];
            keys[b] = k;
            int id = ids[a];
            ids[a] = ids[b];
            ids[b] = id;
        }

        /** {@return the pairs {@code i < j} with {@code keys[i] > keys[j]}} */
        long inversions() {
            long n = 0;
            for (int i = 0; i < keys.length; i++) {
                for (int j = i + 1; j < keys.length; j++) {
                    n += keys[i] > keys[j] ? 1 : 0;
                }
            }
            return n;
        }

        /** {@return the ids in the order a stable sort by key puts them} */
        int[] stableOrder() {
            Integer[] order = new Integer[keys.length];
            Arrays.setAll(order, i -> ids[i]);
            int[] keyOf = new int[keys.length];
            for (int i = 0; i < keys.length; i++) {
                keyOf[ids[i]] = keys[i];
            }
            Arrays.sort(order, Comparator.<Integer>comparingInt(id -> keyOf[id]).thenComparingInt(id -> id));
            return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
        }
    }

    @Test
    void sort_makesOneSwapPerInversion_andKeepsEqualRowsInOrder() {
        Rows rows = new Rows(3, 1, 2, 1, 0, 3, 2);
        int[] stable = rows.stableOrder();
        long inversions = rows.inversions();
        RowSort sort = new RowSort(rows);
        assertEquals(inversions, sort.sort(7, Long.MAX_VALUE));
        assertTrue(sort.finished());
        assertArrayEquals(new int[] {0, 1, 1, 2, 2, 3, 3}, rows.keys);
        assertArrayEquals(stable, rows.ids, "equal rows keep the order they had");
        assertArrayEquals(new int[] {4, 1, 3, 2, 6, 0, 5}, rows.ids);
    }

    @Test
    void sortedRows_costOneComparisonPerRow_andNoSwap() {
        Rows rows = new Rows(1, 2, 2, 5, 9);
        RowSort sort = new RowSort(rows);
        assertEquals(0, sort.sort(5, 0), "a budget of none is enough");
        assertTrue(sort.finished());
        assertEquals(4, rows.comparisons);
        for (int n = 0; n <= 1; n++) {
            assertEquals(0, new RowSort(new Rows(2, 1)).sort(n, 10), n + " rows");
        }
        RowSort none = new RowSort(new Rows());
        none.sort(0, 0);
        assertTrue(none.finished(), "no rows are in order");
    }

    @Test
    void aBudget_stopsTheSort_andLaterCallsFinishIt() {
        Rows rows = new Rows(5, 4, 3, 2, 1, 0);
        RowSort sort = new RowSort(rows);
        assertEquals(15, rows.inversions());
        assertEquals(0, sort.sort(6, 0));
        assertFalse(sort.finished(), "no swap allowed, rows out of order");
        assertEquals(4, sort.sort(6, 4));
        assertFalse(sort.finished());
        assertArrayEquals(new int[] {3, 4, 2, 5, 1, 0}, rows.keys, "four swaps: the row of key 2 stopped on its way down");
        assertEquals(11, rows.inversions(), "each swap removed one inversion");
        assertEquals(10, sort.sort(6, 10));
        assertFalse(sort.finished(), "one inversion left");
        assertEquals(1, sort.sort(6, 1), "the last swap");
        assertTrue(sort.finished(), "a budget spent on the last inversion still finishes the pass");
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, rows.keys);
        assertEquals(0, sort.sort(6, 0));
        assertTrue(sort.finished());
    }

    @Test
    void randomRowsUnderRandomBudgets_endStablySorted_afterOneSwapPerInversion() {
        long seed = Seeds.seed("RowSortTest", 0x2050_27L);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 2_000; round++) {
            int n = random.nextInt(60);
            int distinct = 1 + random.nextInt(6);
            int[] keys = new int[n];
            for (int i = 0; i < n; i++) {
                keys[i] = random.nextInt(distinct);
            }
            if (random.nextInt(4) == 0) {
                Arrays.sort(keys);  // "mostly sorted": a sorted run with a few rows moved
                for (int moves = random.nextInt(3); moves > 0 && n > 1; moves--) {
                    keys[random.nextInt(n)] = random.nextInt(distinct);
                }
            }
            Rows rows = new Rows(keys);
            int[] stable = rows.stableOrder();
            long inversions = rows.inversions();
            RowSort sort = new RowSort(rows);
            long total = 0;
            String where = "round " + round + " " + Arrays.toString(keys) + ", " + Seeds.replay(seed);
            for (int calls = 0; ; calls++) {
                long budget = random.nextInt(3) == 0 ? Long.MAX_VALUE : random.nextInt(20);
                long before = rows.swaps;
                long made = sort.sort(n, budget);
                assertEquals(rows.swaps - before, made, "the swaps reported: " + where);
                assertTrue(made <= budget, where);
                total += made;
                if (sort.finished()) {
                    break;
                }
                assertEquals(budget, made, "an unfinished call spent its budget: " + where);
                assertTrue(calls < 10_000, where);
            }
            assertEquals(inversions, total, "one swap per inversion: " + where);
            assertArrayEquals(stable, rows.ids, "stable: " + where);
        }
    }
}
