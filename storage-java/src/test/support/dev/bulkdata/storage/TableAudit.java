package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.Schema;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The audits of the tables' storage, for tests: every invariant of a table, a component table
 * or a sparse set checked against one another, each ending in the slot map's audit
 * ({@link SlotMapAudit}). They live beside the tests, not in the library: they read the
 * engine's package-private state and are never on a table's path. O(capacity) each.
 */
final class TableAudit {
    private TableAudit() {
    }

    /**
     * Checks every invariant of the kind's storage, the free list and the counters.
     *
     * @throws AssertionError naming the first broken invariant
     * @throws IllegalStateException if the table is closed
     */
    static void check(Table table) {
        switch ((AbstractTable) table) {
            case BulkTableImpl bulk -> check(bulk);
            case PackedTableImpl packed -> check(packed);
        }
    }

    /** The free slots of a table in the order takes will use them. O(holes). */
    static int[] freeSlots(Table table) {
        return SlotMapAudit.freeSlots(((AbstractTable) table).slots);
    }

    /** The blocks, the index and the counters of a bulk table. */
    private static void check(BulkTableImpl t) {
        t.ensureOpen();
        SlotMap slotMap = t.slots;
        int limit = slotMap.limit;
        int live = 0;
        for (int i = 0; i < t.blockCount; i++) {
            BulkChunk c = t.chunks[i];
            int blockLive = 0;
            for (int s = 0; s < t.slotsPerBlock; s++) {
                int slot = i * t.slotsPerBlock + s;
                boolean bit = c.isLiveUnchecked(s);
                int meta = slot < limit ? slotMap.logicalMeta(slot) : 0;
                check(bit == SlotMeta.isLive(meta), "live bit and meta disagree at slot " + slot);
                if (bit) {
                    blockLive++;
                    check(slot > 0 && slot < limit, "live slot " + slot + " outside [1, " + limit + ")");
                } else if (slot >= limit && slot > 0) {
                    check(isWiped(t.schema, t.segments[i], s), "never-opened slot " + slot + " holds data");
                } else if ((s >>> 6) < Integer.SIZE && (t.cleanGroups[i] & (1 << (s >>> 6))) != 0 && slot > 0) {
                    check(isWiped(t.schema, t.segments[i], s), "dead slot " + slot + " of a clean group holds data");
                }
            }
            check(blockLive == c.liveCount, "liveCount of block " + i + " is " + c.liveCount + ", bitmap says "
                    + blockLive);
            live += blockLive;
        }
        SlotMapAudit.checkInvariants(slotMap, live, t.size);
    }

    /** Whether every stored byte of {@code slot} is zero. */
    private static boolean isWiped(Schema schema, MemorySegment data, int slot) {
        for (Field f : SchemaAccess.storedFields(schema)) {
            for (int i = 0; i < f.type().byteSize(); i++) {
                if (data.get(ValueLayout.JAVA_BYTE, FieldAccess.offset(f, slot) + i) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The sparse index, the back-links, the rows, the free list and the counters of a packed table. */
    private static void check(PackedTableImpl t) {
        t.ensureOpen();
        SlotMap slotMap = t.slots;
        int size = t.size;
        check(t.rows.size() == size, "rows hold " + t.rows.size() + " but size is " + size);
        int live = 0;
        for (int slot = 1; slot < slotMap.limit; slot++) {
            if (SlotMeta.isLive(slotMap.logicalMeta(slot))) {
                live++;
                int row = t.row(slot);
                check(row >= 0 && row < size, "live slot " + slot + " names row " + row + " of " + size);
                check(t.back.get(row) == slot, "row " + row + " links back to slot " + t.back.get(row)
                        + ", not to slot " + slot);
            }
        }
        for (int row = 0; row < size; row++) {
            int slot = t.back.get(row);
            check(slot > 0 && slot < slotMap.limit && SlotMeta.isLive(slotMap.logicalMeta(slot)) && t.row(slot) == row,
                    "row " + row + " links back to slot " + slot + ", which does not name it");
        }
        check(t.rows.tailIsZero(), "a row past size " + size + " holds data");
        check(t.rows.chunkCount() == (size + t.recordMask) >>> t.recordShift, "chunk count " + t.rows.chunkCount()
                + " for size " + size);
        SlotMapAudit.checkInvariants(slotMap, live, size);
    }

    /**
     * Checks a component table: its set's invariants, rows in step with it, the tail of the
     * rows and of the owners' generations zero.
     *
     * @throws AssertionError naming the first broken invariant
     */
    static void check(ComponentTable table) {
        check(table.set);
        check(table.rows.size() == table.set.size(), "rows " + table.rows.size() + " but set size " + table.set.size());
        check(table.rows.tailIsZero(), "a row past size " + table.set.size() + " holds data");
        for (int row = table.set.size(); row < table.generations.capacity(); row++) {
            check(table.generation(row) == 0, "owner generation past size at row " + row);
        }
    }

    /**
     * Checks a sparse set: every present key names a row that links back to it, the count,
     * and the dense rows past the size zeroed. O(size + sparse pages * 4096).
     *
     * @throws AssertionError naming the first broken invariant
     */
    static void check(SparseSet set) {
        int present = 0;
        int size = set.size();
        int[][] pages = set.sparse.pages();
        for (int p = 0; p < pages.length; p++) {
            int[] page = pages[p];
            if (page == null) {
                continue; // a sparse array: only pages of inserted keys exist
            }
            for (int i = 0; i < page.length; i++) {
                int row = page[i];
                if (row == SparseSet.ABSENT) {
                    continue;
                }
                long key = ((long) p << SparseSet.PAGE_SHIFT) | i;
                check(row >= 0 && row < size, "key " + key + " names row " + row + " of " + size);
                check(set.keyAtUnchecked(row) == key, "row " + row + " links back to key "
                        + set.keyAtUnchecked(row) + ", not " + key);
                present++;
            }
        }
        check(present == size, present + " keys present but size is " + size);
        for (int row = size; row < set.dense.capacity(); row++) {
            check(set.dense.get(row) == 0, "dense row " + row + " past size " + size + " is not zeroed");
        }
    }

    static void check(boolean condition, String message) {
        SlotMapAudit.check(condition, message);
    }
}
