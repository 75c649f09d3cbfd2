package dev.bulkdata.storage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference model of a {@link SparseSet}: key to row in a map, row to key in a list, both
 * changed by the same swap-and-pop as the set, so that every row is predicted exactly. Used by
 * {@link SparseSetTest}, the sparse-set fuzz test, and {@link ComponentModel} (a component
 * table's rows follow its set's).
 */
final class SparseSetModel {
    private final Map<Integer, Integer> rowOf = new HashMap<>();
    private final List<Integer> keyOf = new ArrayList<>();

    int size() {
        return keyOf.size();
    }

    boolean contains(int key) {
        return rowOf.containsKey(key);
    }

    /** {@return the key's row, or -1} */
    int indexOf(int key) {
        return rowOf.getOrDefault(key, SparseSet.ABSENT);
    }

    int keyAt(int row) {
        return keyOf.get(row);
    }

    /** {@return the keys in row order} */
    List<Integer> keys() {
        return keyOf;
    }

    /** Appends a key that is not present; {@return its row} */
    int insert(int key) {
        if (rowOf.containsKey(key)) {
            throw new AssertionError("model: key " + key + " is already present");
        }
        int row = keyOf.size();
        rowOf.put(key, row);
        keyOf.add(key);
        return row;
    }

    /**
     * Removes a present key by swap-and-pop.
     *
     * @return the row the last key moved from (the old last row), or -1 if the removed key
     *     held the last row: what {@link SparseSet#remove(int)} returns
     */
    int remove(int key) {
        Integer row = rowOf.remove(key);
        if (row == null) {
            throw new AssertionError("model: key " + key + " is not present");
        }
        int last = keyOf.size() - 1;
        int lastKey = keyOf.remove(last);
        if (row == last) {
            return -1;
        }
        keyOf.set(row, lastKey);
        rowOf.put(lastKey, row);
        return last;
    }

    /** Exchanges the keys of two rows, as {@link SparseSet#swapRows(int, int)}. */
    void swapRows(int a, int b) {
        int keyA = keyOf.get(a);
        int keyB = keyOf.get(b);
        keyOf.set(a, keyB);
        keyOf.set(b, keyA);
        rowOf.put(keyA, b);
        rowOf.put(keyB, a);
    }

    void clear() {
        rowOf.clear();
        keyOf.clear();
    }

    /**
     * Checks the set against the model: size, the key of every row, the row of every key, and
     * the set's own invariants ({@link TableAudit#check(SparseSet)}).
     *
     * @throws AssertionError naming the first difference
     */
    void assertMatches(SparseSet set, String what) {
        assertMatches(set, what, true);
    }

    /** {@link #assertMatches(SparseSet, String)}, with the set's audit (O(pages)) only if {@code audit}. */
    void assertMatches(SparseSet set, String what, boolean audit) {
        check(set.size() == keyOf.size(), what + ": size " + set.size() + ", model " + keyOf.size());
        for (int row = 0; row < keyOf.size(); row++) {
            int key = keyOf.get(row);
            check(set.keyAt(row) == key, what + ": row " + row + " holds key " + set.keyAt(row) + ", model " + key);
            check(set.indexOf(key) == row, what + ": key " + key + " has row " + set.indexOf(key) + ", model " + row);
        }
        if (audit) {
            TableAudit.check(set);
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
