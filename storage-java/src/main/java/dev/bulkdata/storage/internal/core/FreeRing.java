package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.ReuseOrder;

/**
 * The free list of {@link ReuseOrder#FIFO} and {@link ReuseOrder#LIFO}: free slot numbers in a power-of-two ring grown
 * by doubling. FIFO pops the head and appends at the tail; LIFO pops and pushes at the head; O(1), reading no free
 * record. Only numbers: {@link SlotMap} checks a popped slot is free.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class FreeRing {
    private static final int[] NO_SLOTS = new int[0];

    private int[] slots = NO_SLOTS;
    private int first;
    public int length;
    private int tail;

    /** {@return the head of the list}: the list is not empty */
    public int head() {
        return slots[first];
    }

    /** Drops the head of the list, which is not empty. */
    public void removeHead() {
        first = (first + 1) & (slots.length - 1);
        if (--length == 0) {
            tail = 0;
        }
    }

    /** Puts {@code slot} at the head: the next {@link #head()}. */
    public void pushHead(int slot) {
        if (length == slots.length) {
            grow();
        }
        first = (first - 1) & (slots.length - 1);
        slots[first] = slot;
        if (length++ == 0) {
            tail = slot;
        }
    }

    public void append(int slot) {
        if (length == slots.length) {
            grow();
        }
        slots[(first + length) & (slots.length - 1)] = slot;
        tail = slot;
        length++;
    }

    /** {@return the slot at position {@code i} of the list, 0 the head}: {@code 0 <= i < length} */
    public int get(int i) {
        return slots[(first + i) & (slots.length - 1)];
    }

    /** {@return the last slot of the list, or 0 if it is empty} */
    public int tail() {
        return tail;
    }

    /** Empties the list; the ring keeps its size. */
    public void clear() {
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
    public int capacity() {
        return slots.length;
    }
}
