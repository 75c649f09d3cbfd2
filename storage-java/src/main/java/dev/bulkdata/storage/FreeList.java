package dev.bulkdata.storage;

/**
 * The circular free list of a table's slot index: the slots of removed records, linked through
 * their own (wiped) bytes in a {@link StableTable} or through their sparse entries in a
 * {@link DenseTable}, with the list header in slot 0 (seed 004).
 *
 * <pre>
 *        slot 0 (header)        hole              hole              hole
 *       +-----------+      +-----------+     +-----------+     +-----------+
 *   +--&gt;| link = 17 |-----&gt;| link = 4  |----&gt;| link = 9  |----&gt;| link = 0  |---+
 *   |   +-----------+      +-----------+     +-----------+     +-----------+   |
 *   |                         head                               tail         |
 *   +--------------------------------------------------------------------------+
 *   empty list: header.link = 0 (the header points to itself)
 * </pre>
 *
 * <p>Slot 0 is never handed out, so every handle of slot 0, the null handle among them, is
 * invalid. A link is what {@link AbstractTable#link(int)} stores for a free slot (in a
 * {@link StableTable} the 4-byte {@link Schema#link()} word of the slot). Pops take the head;
 * {@link ReuseOrder#FIFO} pushes at the tail (the hole freed longest ago is reused first, which
 * spreads generations over all holes), {@link ReuseOrder#LIFO} at the head (the hole freed last
 * is reused first, while it is warm in cache). {@code tail} and {@code length} are kept in
 * fields so that both pushes are O(1).
 *
 * <p>Invariants: following links from the header visits exactly {@code length} distinct slots,
 * each free (not live, not retired) and wiped apart from its link, ends at {@code tail}, and
 * returns to slot 0. Single-threaded: only the table's writer thread touches it.
 */
final class FreeList {
    private static final int HEADER = 0;

    private final AbstractTable table;
    private final boolean fifo;
    /** The last slot of the list, or 0 when the list is empty. */
    private int tail;
    private int length;

    FreeList(AbstractTable table, ReuseOrder order) {
        this.table = table;
        this.fifo = order == ReuseOrder.FIFO;
    }

    int length() {
        return length;
    }

    /**
     * Takes the head of the list.
     *
     * @return a free slot, all zero once its link word is cleared here (removal wiped the
     *     rest), or 0 if the list is empty
     * @throws IllegalStateException if the list is corrupt (a hole was written through a
     *     column view); the table is unchanged
     */
    int pop() {
        if (length == 0) {
            return 0;
        }
        int head = table.link(HEADER);
        if (!table.isFreeSlot(head)) {
            throw corrupt(head);
        }
        int next = table.link(head);
        if (length == 1 ? next != HEADER : !table.isFreeSlot(next)) {
            throw corrupt(next);
        }
        table.setLink(HEADER, next);
        table.setLink(head, 0);
        if (--length == 0) {
            tail = 0;
        }
        return head;
    }

    /** Puts a wiped, free slot into the list, at the tail (FIFO) or the head (LIFO). */
    void push(int slot) {
        if (fifo) {
            append(slot);
        } else {
            pushHead(slot);
        }
    }

    /**
     * Puts a wiped, free slot at the head, whatever the reuse order: the next {@link #pop()}
     * takes it. Used to give back the slot of a cancelled add where pop took it from.
     */
    void pushHead(int slot) {
        table.setLink(slot, table.link(HEADER));
        table.setLink(HEADER, slot);
        if (length++ == 0) {
            tail = slot;
        }
    }

    /** Puts a wiped, free slot at the tail, whatever the reuse order. */
    void append(int slot) {
        table.setLink(slot, HEADER);
        table.setLink(length == 0 ? HEADER : tail, slot);
        tail = slot;
        length++;
    }

    /** Empties the list; the caller rebuilds it with {@link #append(int)}. */
    void reset() {
        if (table.hasHeader()) {
            table.setLink(HEADER, 0);
        }
        tail = 0;
        length = 0;
    }

    private IllegalStateException corrupt(int slot) {
        return new IllegalStateException("free list of table '" + table.name() + "' is corrupt: it names slot "
                + slot + ", which is not a free slot. Was a hole written through a column or records() view?"
                + " Only live slots may be written; nothing was added.");
    }
}
