package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Table

/**
 * Generated from a template: the typed get and set by handle of [TypedTable], for each column
 * type but [HandleColumn]: `table[handle, column]` and `table[handle, column] = value`, and
 * `handle[column]` and `handle[column] = value` where the table is the receiver (`add { }`,
 * `with(table)`); what they check, cost and throw is [TypedTable]'s Typed access. Every other member of a table
 * is declared in [TypedTable], the only subclass.
 *
 * @param D the table declaration
 */
public sealed class GeneratedTypedTableAccessors<D : TableDef<D>>(
    /** The core table underneath ([TypedTable.core]). */
    private val core: Table,
) {
    // @each-type except Handle
    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float): Unit = core.set(raw, column.field, value)
    // @end
}
