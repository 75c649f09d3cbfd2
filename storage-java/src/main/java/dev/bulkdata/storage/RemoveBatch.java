package dev.bulkdata.storage;

import java.util.Arrays;

/**
 * {@link Table#removeAll}'s batch, all or nothing, in two passes: the first checks every
 * handle and marks its slot dead (so that a handle given twice fails the second time), and on
 * a failure marks them live again and throws, naming the handle and its position; the second
 * releases the slots in slot order. Runs inside the table's structural change.
 */
final class RemoveBatch {
    private final AbstractTable table;
    /** The batch's slots, sorted; grown to the largest batch and kept, so a removeAll allocates nothing. */
    private int[] scratch = new int[0];

    RemoveBatch(AbstractTable table) {
        this.table = table;
    }

    /**
     * Removes the records of {@code handles[from, to)}, or none.
     *
     * @throws InvalidHandleException if a handle is not live in the table or appears twice
     */
    void remove(long[] handles, int from, int to) {
        AbstractTable table = this.table;
        SlotMap slotMap = table.slots;
        // Phase 1: validate every handle, clearing live states as we go so that a handle given
        // twice fails the second time; on failure restore them and report.
        for (int i = from; i < to; i++) {
            int slot = table.findSlot(handles[i]);
            if (slot < 0) {
                RuntimeException e = table.rejection(handles[i]);
                for (int j = from; j < i; j++) {
                    slotMap.markLive(table.handles.intSlot(handles[j]));
                }
                if (table.findSlot(handles[i]) >= 0) {
                    // Valid once the earlier marks are undone: it repeats an earlier handle, and
                    // removing a record twice is using a stale handle the second time.
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
        // Phase 2: every slot is valid and distinct; release them in slot order, so that memory
        // is touched in address order and FIFO reuse hands the slots out again in that order
        // (SWEEP reuses in slot order whatever the release order).
        int count = to - from;
        int[] slots = scratch;
        if (slots.length < count) {
            slots = new int[count];
            scratch = slots;
        }
        for (int i = 0; i < count; i++) {
            slots[i] = table.handles.intSlot(handles[from + i]);
        }
        Arrays.sort(slots, 0, count);
        for (int i = 0; i < count; i++) {
            table.releaseDead(slots[i]);
        }
    }
}
