package dev.bulkdata.storage;

/**
 * A snapshot of a table's occupancy and memory, from {@link Table#stats()}.
 *
 * @param table the table's name
 * @param live records that handles can reach ({@link Table#size()})
 * @param holes slots of removed records waiting in the free list for reuse; always 0 for a
 *     {@link PackedTable}, whose rows have no holes (its free sparse slots hold no record bytes)
 * @param retired slots whose generation ran out: never handed out again
 * @param capacity records the table can hold before it must allocate another block
 * @param blocks blocks allocated (16 KiB each at most; see {@link Schema#blockBytes()})
 * @param nativeBytes bytes of native memory the table holds; all of it is freed by
 *     {@link Table#close()}
 */
public record TableStats(String table, int live, int holes, int retired, int capacity, int blocks,
                         long nativeBytes) {

    /** {@return native bytes per live record, or 0 if the table is empty} */
    public double nativeBytesPerRecord() {
        return live == 0 ? 0 : (double) nativeBytes / live;
    }
}
