package dev.bulkdata.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything observable about a table, for "a failed call leaves the table exactly as it was":
 * stats, every live handle with every field's bits (read through chunks, in slot order), and
 * the free list in reuse order (it decides which handles the next adds return).
 */
record TableSnapshot(TableStats stats, Map<Long, List<Long>> records, List<Integer> freeList) {

    static TableSnapshot of(Table table) {
        Map<Long, List<Long>> records = new TreeMap<>();
        table.forEach((chunk, slot) -> {
            List<Long> values = new ArrayList<>();
            for (Field f : table.schema().fields()) {
                values.add(Values.get(chunk, slot, f));
            }
            records.put(chunk.handle(slot), values);
        });
        List<Integer> free = new ArrayList<>();
        if (table instanceof StableTable stable) {
            for (int slot : stable.freeSlots()) {
                free.add(slot);
            }
            stable.checkInvariants();
        }
        return new TableSnapshot(table.stats(), records, free);
    }
}
