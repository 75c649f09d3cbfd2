package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything observable about a table, for "a failed call leaves the table exactly as it was":
 * stats, every live handle with every field's bits (read through chunks), the order in which
 * iteration visits the handles (slot order; for a PackedTable the row order, which a failed
 * call must not change either), and the free list in reuse order (it decides which handles the
 * next adds return). Taking a snapshot also runs the table's invariant audit, unless it is
 * taken {@link #withoutAudit}.
 */
record TableSnapshot(TableStats stats, Map<Long, List<Long>> records, List<Long> order, List<Integer> freeList) {

    static TableSnapshot of(Table table) {
        return of(table, true);
    }

    /**
     * The snapshot alone, without the O(capacity) audit: for fuzzed runs, which take two around
     * every call that must fail and audit them at their periodic audits.
     */
    static TableSnapshot withoutAudit(Table table) {
        return of(table, false);
    }

    private static TableSnapshot of(Table table, boolean audit) {
        Map<Long, List<Long>> records = new TreeMap<>();
        List<Long> order = new ArrayList<>();
        table.forEach((chunk, slot) -> {
            List<Long> values = new ArrayList<>();
            for (Field f : table.schema().fields()) {
                values.add(Values.get(chunk, slot, f));
            }
            records.put(chunk.handle(slot), values);
            order.add(chunk.handle(slot));
        });
        List<Integer> free = new ArrayList<>();
        if (table instanceof AbstractTable impl) {
            for (int slot : TableAudit.freeSlots(impl)) {
                free.add(slot);
            }
            if (audit) {
                TableAudit.check(impl);
            }
        }
        return new TableSnapshot(table.stats(), records, order, free);
    }
}
