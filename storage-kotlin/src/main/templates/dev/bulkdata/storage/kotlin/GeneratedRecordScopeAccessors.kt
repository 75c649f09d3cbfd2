package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk
import dev.bulkdata.storage.Table

/**
 * Generated from a template: the typed operators of [RecordScope] for each column type but
 * [HandleColumn]: `visited[column]` on the visited record, `this[handle, column]` and
 * `handle[column]` by handle, and their `= value` forms; what they check and cost is
 * [RecordScope]'s Typed access. Every other member of a scope is declared in [RecordScope], the
 * only subclass.
 *
 * @param D the table declaration
 */
public sealed class GeneratedRecordScopeAccessors<D : TableDef<D>>(
    /** The visited table's core table ([TypedTable.core]), for access by handle. */
    private val core: Table,
) {
    /** The slot of a record of the current chunk, or -1 if [at] is of another chunk or pass. */
    protected abstract fun slotHere(at: Long): Int

    /** The chunk being visited; throws [IllegalStateException] before the first record. */
    protected abstract fun current(): Chunk

    /**
     * The handle of [at], a record of an earlier chunk of this pass; throws
     * [IllegalStateException] for a record of another pass.
     */
    protected abstract fun handleOfEarlier(at: Long): Long

    // @each-type except Handle
    /** `visited[column]`: the visited record's value, read from its chunk. */
    public operator fun Visited<D>.get(column: FloatColumn<D>): Float {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else core.get(handleOfEarlier(at), column.field)
    }

    /** `visited[column] = value`: writes the visited record in its chunk. */
    public operator fun Visited<D>.set(column: FloatColumn<D>, value: Float) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else core.set(handleOfEarlier(at), column.field, value)
    }

    /** `this[handle, column]`: as [TypedTable.get], a lookup by handle. */
    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float = core.get(handle.raw, column.field)

    /** `this[handle, column] = value`: as [TypedTable.set], a lookup by handle. */
    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float) {
        core.set(handle.raw, column.field, value)
    }

    /** `handle[column]`: the same as `this[handle, column]`. */
    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float = core.get(raw, column.field)

    /** `handle[column] = value`: the same as `this[handle, column] = value`. */
    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float) {
        core.set(raw, column.field, value)
    }
    // @end
}
