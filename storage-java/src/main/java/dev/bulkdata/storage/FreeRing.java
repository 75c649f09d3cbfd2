package dev.bulkdata.storage;

/**
 * The free list of {@link ReuseOrder#FIFO} and {@link ReuseOrder#LIFO}: free slot numbers in
 * list order, {@link #length} of them from {@code slots[first]}, in a ring whose size is a
 * power of two (empty until the first push, grown by doubling, never shrunk; 4 bytes per free
 * slot). FIFO pops the head and appends at the tail; LIFO pops and pushes at the head. Both
 * O(1), and neither reads the free records, so taking slots one after another is never a
 * chain of dependent cache misses.
 *
 * <pre>
 *  +----+----+----+----+----+----+----+----+
 *  |  . |  . | 17 |  4 |  9 |  . |  . |  . |      first = 2, length = 3, tail = 9
 *  +----+----+----+----+----+----+----+----+
 *            head           tail
 * </pre>
 *
 * <p>The ring only holds numbers: {@link SlotMap} checks that a slot it pops is free.
 */
final class FreeRing {
    private static final int[] NO_SLOTS = new int[0];

    /** The ring; its length is 0 or a power of two. */
    private int[] slots = NO_SLOTS;
    /** Where the head is in {@link #slots}. */
    private int first;
    /** Free slots in the list. */
    int length;
    /** The last slot of the list, or 0 when it is empty. */
    private int tail;

    /** {@return the head of the list}: the list is not empty */
    int head() {
        return slots[first];
    }

    /** Drops the head of the list, which is not empty. */
    void removeHead() {
        first = (first + 1) & (slots.length - 1);
        if (--length == 0) {
            tail = 0;
        }
    }

    /** Puts {@code slot} at the head: the next {@link #head()}. */
    void pushHead(int slot) {
        if (length == slots.length) {
            grow();
        }
        first = (first - 1) & (slots.length - 1);
        slots[first] = slot;
        if (length++ == 0) {
            tail = slot;
        }
    }

    /** Puts {@code slot} at the tail. */
    void append(int slot) {
        if (length == slots.length) {
            grow();
        }
        slots[(first + length) & (slots.length - 1)] = slot;
        tail = slot;
        length++;
    }

    /** {@return the slot at position {@code i} of the list, 0 the head}: {@code 0 <= i < length} */
    int get(int i) {
        return slots[(first + i) & (slots.length - 1)];
    }

    /** {@return the last slot of the list, or 0 if it is empty} */
    int tail() {
        return tail;
    }

    /** Empties the list; the ring keeps its size. */
    void clear() {
        tail = 0;
        length = 0;
        first = 0;
    }

    /** Doubles the ring (16 entries at first), the list moved to its start. */
    private void grow() {
        int[] grown = new int[Math.max(16, slots.length * 2)];
        for (int i = 0; i < length; i++) {
            grown[i] = get(i);
        }
        slots = grown;
        first = 0;
    }

    /** {@return the ring's size, for tests} */
    int capacity() {
        return slots.length;
    }
}
