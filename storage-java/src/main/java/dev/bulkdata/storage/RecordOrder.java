package dev.bulkdata.storage;

/**
 * The order {@link PackedTable#defragment(long, RecordOrder)} moves records toward, given as a
 * comparison of two records by their handles. Read the records' fields through the table
 * (non-capturing or long-lived instances avoid allocation):
 *
 * <pre>{@code
 * RecordOrder byKind = (a, b) -> Integer.compare(table.get(a, KIND), table.get(b, KIND));
 * }</pre>
 *
 * <p>It must be a consistent total preorder for the result to be sorted (as for
 * {@link java.util.Comparator}); it may read any field of the table but must not add, remove
 * or clear (that throws {@link java.util.ConcurrentModificationException}, which ends the
 * defragment call with every handle still valid).
 */
@FunctionalInterface
public interface RecordOrder {
    /**
     * Compares two live records of the table being defragmented.
     *
     * @param handleA the first record's handle
     * @param handleB the second record's handle
     * @return negative if A goes before B, positive if after, 0 if either order will do (equal
     *     records keep their relative order)
     */
    int compare(long handleA, long handleB);
}
