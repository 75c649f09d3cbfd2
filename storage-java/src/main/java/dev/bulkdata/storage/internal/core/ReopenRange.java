package dev.bulkdata.storage.internal.core;

/**
 * What a clear frees in a FIFO or LIFO slot map: slots {@code [from, end)}, each free or retired, none in the free
 * list (a clear writes no link). Takes go from {@code from} up, skipping retired; FIFO before the list, LIFO after.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class ReopenRange {
    public int from;
    public int end;
    /** Free (not retired) slots in {@code [from, end)}. */
    public int free;

    /** Makes the range {@code [from, end)}, holding {@code free} free slots. */
    public void open(int from, int end, int free) {
        this.from = from;
        this.end = end;
        this.free = free;
    }

    /** Records that a take used {@code slot}, the first free slot at or after {@link #from}. */
    public void took(int slot) {
        from = slot + 1;
        free--;
    }

    /** Gives back {@code slot}, the last one {@link #took} used (a cancelled add). */
    public void giveBack(int slot) {
        from = slot;
        free++;
    }

    /** Records that slots {@code [1, taken]}, all free, were taken from a range that starts at slot 1. */
    public void tookFirst(int taken) {
        from = taken + 1;
        free -= taken;
    }

    public boolean contains(int slot) {
        return slot >= from && slot < end;
    }
}
