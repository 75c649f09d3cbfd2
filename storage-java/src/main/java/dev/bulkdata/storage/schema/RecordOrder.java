package dev.bulkdata.storage.schema;

/**
 * The order {@link dev.bulkdata.storage.PackedTable#defragment(long, RecordOrder)} moves records toward: a comparison of two records by
 * handle, reading their fields through the table (non-capturing or long-lived instances avoid allocation). A consistent
 * total preorder, as for {@link java.util.Comparator}; it must not add, remove or clear (that throws
 * {@link java.util.ConcurrentModificationException}, ending the defragment call with every handle still valid).
 */
@FunctionalInterface
public interface RecordOrder {
    /**
     * Compares two live records of the table being defragmented.
     *
     * @param handleA the first record's handle
     * @param handleB the second record's handle
     * @return negative if A goes before B, positive if after, 0 if either order will do (equal records keep their
     *     relative order)
     */
    int compare(long handleA, long handleB);
}
