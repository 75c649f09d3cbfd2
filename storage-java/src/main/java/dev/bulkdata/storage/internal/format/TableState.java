package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.HandleLayout;
import dev.bulkdata.storage.ReuseOrder;
import dev.bulkdata.storage.Schema;

/**
 * A table's saved state before its slot sections, as the engine reports it ({@link StoredTable#state()}) and the
 * reader hands it back ({@link StoredTable#restore}); each component is the metadata field of its name
 * ({@code docs/format.md}, section 5), {@code kind} the header's.
 * @param kind {@link FileFormat#KIND_BULK} or {@link FileFormat#KIND_PACKED}
 * @param reuse the reuse order (a PackedTable's is FIFO)
 * @param maxSlot the largest slot the table may open
 * @param floor the generation a never-opened slot starts at
 * @param limit slots {@code [0, limit)} are opened
 * @param freeLength the free slots in the list
 * @param freeTail the list's last slot, 0 if it is empty
 * @param entryCount the meta words saved: {@code limit + 1}, or 2 or 0 while {@code limit} is 0
 * @param reuseCursor FIFO and LIFO: where the takes from the range a clear freed go on; SWEEP: the slot the next take
 *     looks at first
 * @param reuseEnd FIFO and LIFO: the end of the range a clear freed (0 and 0 for none); SWEEP: 0
 * @param epoch the table's epoch ({@code HandleLayout.epochBits()}), 0 to {@code handles.maxEpoch()}
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public record TableState(byte kind, long identity, int tag, HandleLayout handles, ReuseOrder reuse, Schema schema,
                         int maxSlot, int floor, int limit, int size, int retired, int freeLength, int freeTail,
                         int entryCount, int reuseCursor, int reuseEnd, int epoch) {
    /** {@return this state with another schema} */
    TableState withSchema(Schema other) {
        return new TableState(kind, identity, tag, handles, reuse, other, maxSlot, floor, limit, size, retired,
                freeLength, freeTail, entryCount, reuseCursor, reuseEnd, epoch);
    }
}
