package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

/**
 * A table's saved state before its slot sections, as the engine reports it ({@link StoredTable#state()}) and the
 * reader hands it back ({@link StoredTable#restore}); each component is the metadata field of its name, whose meaning
 * {@code docs/format.md} gives (section 5), {@code kind} the header's.
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
