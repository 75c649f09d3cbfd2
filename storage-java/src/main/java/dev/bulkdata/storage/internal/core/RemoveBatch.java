package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;

import java.util.Arrays;

/**
 * A table's {@code removeAll} batch, all or nothing: a first pass checks every handle and marks it dead (undone on
 * failure), the second releases the slots in slot order. Inside the table's structural change.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class RemoveBatch {
    /** The table whose records a batch removes. */
    public interface Owner {
        String name();

        HandleLayout handleLayout();

        /** {@return the table's slot map} */
        SlotMap slotMap();

        /** @return the slot of {@code handle} if it is live in the table, else -1 */
        int findSlot(long handle);

        /** {@return why {@code handle} is not live in the table} */
        RuntimeException rejection(long handle);

        String format(long handle);

        /** Finishes removing a dead-marked slot: drops its record and frees or retires the slot. */
        void releaseDead(int slot);
    }

    private final Owner table;
    // The batch's slots, sorted, or a large batch's as bits (zero between batches); kept: removeAll allocates nothing.
    private int[] scratch = new int[0];
    private long[] bits = new long[0];

    public RemoveBatch(Owner table) {
        this.table = table;
    }

    /**
     * Removes the records of {@code handles[from, to)}, or none: throws {@link InvalidHandleException} if a handle is
     * not live in the table or appears twice.
     */
    public void remove(long[] handles, int from, int to) {
        Owner table = this.table;
        SlotMap slotMap = table.slotMap();
        HandleLayout layout = table.handleLayout();
        // Phase 1: marking dead as we go makes a handle given twice fail the second time.
        for (int i = from; i < to; i++) {
            int slot = table.findSlot(handles[i]);
            if (slot < 0) {
                RuntimeException e = table.rejection(handles[i]);
                for (int j = from; j < i; j++) {
                    slotMap.markLive(HandleBits.intSlot(layout, handles[j]));
                }
                if (table.findSlot(handles[i]) >= 0) {
                    // valid once the marks are undone: a repeat of an earlier handle
                    throw new InvalidHandleException(table.name(), handles[i], InvalidHandleException.Reason.STALE,
                            "handles[" + i + "]: handle " + table.format(handles[i]) + " appears twice in the batch;"
                                    + " the second removal would use a stale handle; nothing was removed");
                }
                if (e instanceof InvalidHandleException ie) {
                    throw new InvalidHandleException(ie.table(), ie.handle(), ie.reason(),
                            "handles[" + i + "]: " + ie.getMessage() + "; nothing was removed");
                }
                throw e;
            }
            slotMap.markDead(slot);
        }
        // Phase 2: slot order (a batch of a slot per 64 opened or more: from bits, no sort), so memory is touched, and
        // FIFO reuses, in address order.
        int count = to - from;
        if ((long) count << 6 >= slotMap.limit) {
            releaseBySlotBits(handles, from, to, (slotMap.limit + 63) >>> 6, layout);
            return;
        }
        int[] slots = scratch;
        if (slots.length < count) {
            slots = new int[count];
            scratch = slots;
        }
        for (int i = 0; i < count; i++) {
            slots[i] = HandleBits.intSlot(layout, handles[from + i]);
        }
        Arrays.sort(slots, 0, count);
        for (int i = 0; i < count; i++) {
            table.releaseDead(slots[i]);
        }
    }

    private void releaseBySlotBits(long[] handles, int from, int to, int words, HandleLayout layout) {
        long[] b = bits;
        if (b.length < words) {
            b = new long[words];
            bits = b;
        }
        for (int i = from; i < to; i++) {
            int slot = HandleBits.intSlot(layout, handles[i]);
            b[slot >>> 6] |= 1L << slot;
        }
        int w = 0;
        try {
            for (; w < words; w++) {
                long word = b[w];
                if (word != 0) {
                    b[w] = 0;
                    for (; word != 0; word &= word - 1) {
                        table.releaseDead(w << 6 | Long.numberOfTrailingZeros(word));
                    }
                }
            }
        } catch (Throwable t) {
            Arrays.fill(b, w, words, 0L);
            throw t;
        }
    }
}
