package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.RecordOrder

/**
 * The order [TypedTable.defragment] moves a PACKED table's records toward; also a core [RecordOrder], whose rules
 * apply; comparing allocates nothing. Keep one instance (a `val`): a table sorted by the same instance, unchanged
 * since, returns from `defragment` at once; a new lambda each call compares every row again.
 */
public fun interface TypedRecordOrder<D : TableDef<D>> : RecordOrder {
    /** Negative if [a] goes before [b], positive if after, 0 if either will do (equal records keep their order). */
    public fun compare(a: Handle<D>, b: Handle<D>): Int

    /** The core comparison: the same, on the raw handles. */
    override fun compare(handleA: Long, handleB: Long): Int = compare(Handle(handleA), Handle(handleB))
}
