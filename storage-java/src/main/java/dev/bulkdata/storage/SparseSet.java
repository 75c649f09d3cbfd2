package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.internal.core.PagedInts;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ConcurrentModificationException;

/**
 * Links keys (entity slots, or the slot part of a table's handles) to at most one dense row each, so that a store of
 * optional per-entity data can keep its rows packed. Rows are {@code 0..size()-1} with no holes; {@link #keyAt(int)}
 * names the key that owns a row, {@link #indexOf(int)} the row a key owns. Invariant: for every row {@code r < size},
 * {@code indexOf(keyAt(r)) == r}; every other key is absent. Pages of 4096 {@code int}s on the heap never move; only
 * their directories double. ARCHITECTURE.md, "Relations". <b>Costs.</b> {@link #insert}, {@link #remove},
 * {@link #contains}, {@link #indexOf}, {@link #keyAt}: O(1), allocation-free but for a new 16 KiB page (once per 4096
 * keys or rows) and a directory doubling. {@link #clear()}: O(size). Memory: 4 bytes per dense row, plus 4 per key of
 * every sparse page in use (a page: 4096 consecutive keys).
 *
 * <p><b>Errors and threads.</b> A key outside {@code [0, MAX_KEY]}, inserting a key that is present and removing one
 * that is absent throw {@link IllegalArgumentException} naming the key; the set is unchanged. {@code contains} and
 * {@code indexOf} accept any {@code int}. One writer and no readers while it writes; reads (and joins) from many
 * threads while nobody writes. While a {@link Join} over this set runs, {@code insert}, {@code remove} and
 * {@code clear} throw {@link ConcurrentModificationException} and change nothing.
 */
public final class SparseSet {
    /** The largest key: {@link HandleLayout#MAX_SLOT}, the largest slot of a handle. */
    public static final int MAX_KEY = HandleLayout.MAX_SLOT;

    /** Entries per page, sparse and dense: 4096 ints, 16 KiB. */
    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    /** The sparse entry of a key without a row. */
    static final int ABSENT = -1;
    private static final VarHandle OPEN_JOINS;

    static {
        try {
            OPEN_JOINS = MethodHandles.lookup().findVarHandle(SparseSet.class, "openJoins", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The row of each key, {@link #ABSENT} if none; a page is made when a key of it is first inserted. */
    final PagedInts sparse = new PagedInts(PAGE_SHIFT, ABSENT);
    /** The key of each row; pages made in order as rows are added. */
    final PagedInts dense = new PagedInts(PAGE_SHIFT, 0);
    private int size;
    /** Joins and loops running over this set, changes refused while non-zero; atomic: joins may run on several threads. */
    private volatile int openJoins;

    /** Creates an empty set; it holds no pages until the first insert. */
    public SparseSet() {
    }

    /** {@return the number of keys in the set, which is the number of dense rows} */
    public int size() {
        return size;
    }

    /**
     * {@return whether {@code key} has a row} O(1); never throws.
     *
     * @param key any value
     */
    public boolean contains(int key) {
        return indexOf(key) >= 0;
    }

    /**
     * {@return the key's dense row, {@code 0 <= row < size()}, or -1 if the key is not in the set} O(1); never throws.
     *
     * @param key any value
     */
    public int indexOf(int key) {
        if (key < 0) {
            return ABSENT;
        }
        return sparse.getOrFill(key);
    }

    /**
     * {@return the key that owns a row} O(1).
     *
     * @param row a row, {@code 0 <= row < size()}
     * @throws IndexOutOfBoundsException if {@code row} is out of range
     */
    public int keyAt(int row) {
        if (row < 0 || row >= size) {
            throw new IndexOutOfBoundsException("row=" + row + " is not in [0, " + size + ") of this sparse set");
        }
        return dense.get(row);
    }

    /** The key of a row, unchecked: for loops that stay below {@link #size()}. */
    int keyAtUnchecked(int row) {
        return dense.get(row);
    }

    /**
     * {@return the row that {@code key} is added with: the next dense row, {@code size()} before the call} O(1).
     *
     * @param key the key, {@code 0 <= key <= MAX_KEY}
     */
    public int insert(int key) {
        checkKey(key);
        ensureNoJoin("insert into");
        int existing = indexOf(key);
        if (existing >= 0) {
            throw new IllegalArgumentException("key=" + key + " is already in the sparse set (row " + existing
                    + "); remove it first or look it up with indexOf");
        }
        // Make both pages first, so that running out of memory changes nothing.
        int row = size;
        sparse.ensurePage(key);
        dense.ensure(row);
        dense.set(row, key);
        sparse.set(key, row);
        size = row + 1;
        return row;
    }

    /**
     * Removes a key by swap-and-pop: the last row's key moves into the removed key's row. A
     * store that keeps data in the same rows moves its last row the same way. O(1).
     *
     * @param key a key in the set
     * @return the row the moved key came from (the old last row, {@code size()} after the call), or -1 if none moved
     */
    public int remove(int key) {
        checkKey(key);
        ensureNoJoin("remove from");
        int row = indexOf(key);
        if (row < 0) {
            throw new IllegalArgumentException("key=" + key + " is not in the sparse set (size " + size
                    + "); check with contains first");
        }
        int last = size - 1;
        sparse.set(key, ABSENT);
        size = last;
        if (row == last) {
            dense.set(last, 0);
            return -1;
        }
        int moved = keyAtUnchecked(last);
        dense.set(row, moved);
        dense.set(last, 0);
        sparse.set(moved, row);
        return last;
    }

    /** Exchanges the keys of two rows below {@link #size()}, unchecked, for a store reordering its rows. O(1). */
    void swapRows(int a, int b) {
        int keyA = keyAtUnchecked(a);
        int keyB = keyAtUnchecked(b);
        dense.set(a, keyB);
        dense.set(b, keyA);
        sparse.set(keyA, b);
        sparse.set(keyB, a);
    }

    /** Removes every key. O(size); pages are kept for reuse. */
    public void clear() {
        ensureNoJoin("clear");
        for (int row = 0; row < size; row++) {
            int key = keyAtUnchecked(row);
            sparse.set(key, ABSENT);
            dense.set(row, 0);
        }
        size = 0;
    }

    /** {@return heap bytes of the pages (not counting the directories)} */
    long pageBytes() {
        return sparse.pageBytes() + dense.pageBytes();
    }

    private static void checkKey(int key) {
        if (key < 0 || key > MAX_KEY) {
            throw new IllegalArgumentException("key=" + key + " is not in [0, " + MAX_KEY + "]");
        }
    }

    private void ensureNoJoin(String operation) {
        if (openJoins != 0) {
            throw new ConcurrentModificationException("cannot " + operation + " a sparse set while " + openJoins
                    + " join(s) or iteration(s) over it are running; change it after the loop");
        }
    }

    /** Refuses changes until {@link #endJoin()}; any thread may call it. */
    void beginJoin() {
        OPEN_JOINS.getAndAdd(this, 1);
    }

    void endJoin() {
        OPEN_JOINS.getAndAdd(this, -1);
    }

    /** {@return the joins and loops running over this set; changes are refused while non-zero} */
    int openJoins() {
        return openJoins;
    }

    @Override
    public String toString() {
        return "SparseSet[size=" + size + "]";
    }
}
