package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.RecordOrder

/**
 * The order [TypedTable.defragment] moves a PACKED table's records toward, as a comparison of
 * two records by their typed handles; a core [RecordOrder] too, so it is handed to the core
 * table as it is.
 *
 * ```
 * val byX = TypedRecordOrder<Bullets> { a, b -> table[a, Bullets.X].compareTo(table[b, Bullets.X]) }
 * table.defragment(maxSwaps = 1_000, byX)   // once a frame
 * ```
 *
 * The handles are `long`s at run time: comparing allocates nothing. The rules are
 * [RecordOrder]'s: a consistent total preorder (as for a `Comparator`); it may read any field of
 * the table and must not add, remove or clear. Keep one instance (a `val`) for repeated calls:
 * a table already sorted by *this same instance*, and not changed since, returns from
 * `defragment` at once without comparing anything, while a new lambda each call compares every
 * row again.
 *
 * @param D the table declaration
 */
public fun interface TypedRecordOrder<D : TableDef<D>> : RecordOrder {
    /**
     * Compares two live records of the table being defragmented: negative if [a] goes before
     * [b], positive if after, 0 if either order will do (equal records keep their order).
     */
    public fun compare(a: Handle<D>, b: Handle<D>): Int

    /** The core comparison: the same, on the raw handles. */
    override fun compare(handleA: Long, handleB: Long): Int = compare(Handle(handleA), Handle(handleB))
}
