package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.util.ConcurrentModificationException;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SparseSet}: a seeded model test against {@link SparseSetModel} (a {@code HashMap} from
 * key to row and a list from row to key, kept by the same swap-and-pop), so every row is
 * predicted exactly; and the error table (every bad input throws and leaves the set unchanged).
 */
class SparseSetTest {
    static final long SEED = Seeds.fromProperty(0x5EED_5E75L);
    private static final int OPS = 200_000;

    /** A few dense key pages, plus keys far apart (each its own page) up to MAX_KEY. */
    private static int randomKey(SplittableRandom rng) {
        return switch (rng.nextInt(10)) {
            case 0 -> SparseSet.MAX_KEY - rng.nextInt(3);
            case 1 -> (1 + rng.nextInt(6)) * 100_000_000 + rng.nextInt(50);
            default -> rng.nextInt(3 * SparseSet.PAGE_SIZE);
        };
    }

    @Test
    void randomOperations_matchHashMapModel() {
        SplittableRandom rng = new SplittableRandom(SEED);
        System.out.printf("[SparseSetTest] seed=%d ops=%,d (replay with -Dbulkdata.seed=%d)%n", SEED, OPS, SEED);
        SparseSet set = new SparseSet();
        SparseSetModel model = new SparseSetModel();
        int step = 0;
        try {
            for (step = 0; step < OPS; step++) {
                int op = rng.nextInt(100);
                int key = randomKey(rng);
                if (op < 45) {
                    if (model.contains(key)) {
                        assertThrows(IllegalArgumentException.class, () -> set.insert(key));
                    } else {
                        assertEquals(model.insert(key), set.insert(key));
                    }
                } else if (op < 85) {
                    int victim = model.size() > 0 && rng.nextBoolean() ? model.keyAt(rng.nextInt(model.size())) : key;
                    if (!model.contains(victim)) {
                        assertThrows(IllegalArgumentException.class, () -> set.remove(victim));
                    } else {
                        assertEquals(model.remove(victim), set.remove(victim), "moved row");
                    }
                } else if (op < 99) {
                    assertEquals(model.indexOf(key), set.indexOf(key));
                    assertEquals(model.contains(key), set.contains(key));
                    if (model.size() > 0) {
                        int row = rng.nextInt(model.size());
                        assertEquals(model.keyAt(row), set.keyAt(row));
                    }
                } else if (rng.nextInt(20) == 0) {
                    set.clear();
                    model.clear();
                }
                assertEquals(model.size(), set.size());
                if (step % 5_000 == 0) {
                    model.assertMatches(set, "set");
                }
            }
            model.assertMatches(set, "set");
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed=" + SEED + " step=" + step + ": " + e.getMessage(), e);
        }
    }

    @Test
    void remove_reportsTheMovedRow_andTheLastRowMovesIntoTheHole() {
        SparseSet set = new SparseSet();
        set.insert(10);
        set.insert(20);
        set.insert(30);
        assertEquals(2, set.remove(10));
        assertEquals(30, set.keyAt(0));
        assertEquals(0, set.indexOf(30));
        assertEquals(-1, set.remove(20));
        assertEquals(1, set.size());
        TableAudit.check(set);
    }

    @Test
    void pages_areMadeOnlyWhereKeysAre() {
        SparseSet set = new SparseSet();
        assertEquals(0, set.pageBytes());
        set.insert(SparseSet.MAX_KEY);
        set.insert(0);
        // one dense page and two sparse pages, however far apart the keys are
        assertEquals(3L * SparseSet.PAGE_SIZE * Integer.BYTES, set.pageBytes());
        assertFalse(set.contains(SparseSet.MAX_KEY - 1));
        assertTrue(set.contains(SparseSet.MAX_KEY));
        TableAudit.check(set);
    }

    @Test
    void badInput_throws_andLeavesTheSetUnchanged() {
        SparseSet set = new SparseSet();
        set.insert(5);
        set.insert(7);
        for (int bad : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> set.insert(bad)).getMessage()
                    .contains("key=" + bad));
            assertThrows(IllegalArgumentException.class, () -> set.remove(bad));
            assertFalse(set.contains(bad));
            assertEquals(-1, set.indexOf(bad));
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> set.insert(7)).getMessage()
                .contains("already"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> set.remove(6)).getMessage()
                .contains("not in"));
        assertThrows(IndexOutOfBoundsException.class, () -> set.keyAt(2));
        assertThrows(IndexOutOfBoundsException.class, () -> set.keyAt(-1));
        assertEquals(2, set.size());
        assertEquals(0, set.indexOf(5));
        assertEquals(1, set.indexOf(7));
        TableAudit.check(set);
    }

    @Test
    void changesDuringAJoin_throw_andChangeNothing() {
        SparseSet a = new SparseSet();
        SparseSet b = new SparseSet();
        a.insert(1);
        b.insert(1);
        Join.of(a, b).forEach((key, rows) -> {
            assertThrows(ConcurrentModificationException.class, () -> a.insert(2));
            assertThrows(ConcurrentModificationException.class, () -> b.remove(1));
            assertThrows(ConcurrentModificationException.class, a::clear);
        });
        assertEquals(1, a.size());
        assertEquals(1, b.size());
        a.insert(2); // allowed again after the join
        TableAudit.check(a);
    }
}
