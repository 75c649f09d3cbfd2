package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Schema;

/**
 * A snapshot of a table's occupancy and memory, from {@link Table#stats()}.
 *
 * @param table the table's name
 * @param live records that handles can reach ({@link Table#size()})
 * @param holes slots of removed records waiting in the free list for reuse; always 0 for a {@link PackedTable}, whose
 *     rows have no holes (its free sparse slots hold no record bytes)
 * @param retired slots whose generation ran out: never handed out again
 * @param capacity records the table can hold before it must allocate another block
 * @param blocks blocks allocated (16 KiB each at most; see {@link Schema#blockBytes()})
 * @param nativeBytes bytes of native memory in the table's blocks; all of it is freed by {@link Table#close()}. After
 *     {@link Table#cancelAdd(long)} gave back a block, the table keeps it as a zeroed spare for its next growth,
 *     outside this count (at most one block)
 */
public record TableStats(String table, int live, int holes, int retired, int capacity, int blocks,
                         long nativeBytes) {

    /** {@return the stats of closed table {@code table}: everything 0, since its memory is freed} */
    static TableStats closed(String table) {
        return new TableStats(table, 0, 0, 0, 0, 0, 0);
    }

    /** {@return native bytes per live record, or 0 if the table is empty} */
    public double nativeBytesPerRecord() {
        return live == 0 ? 0 : (double) nativeBytes / live;
    }
}
