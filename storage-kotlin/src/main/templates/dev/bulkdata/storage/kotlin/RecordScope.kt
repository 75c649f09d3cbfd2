package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk

/**
 * The receiver of [TypedTable.forEach]'s action: the table's typed access by handle, where
 * `it[column]` and `it[column] = value` on the handle being visited read and write the record
 * straight from its chunk, with no handle lookup (the pass already knows where the record is
 * and that it is live).
 *
 * ```
 * table.forEach { it[Particles.X] += it[Particles.VX] * dt }   // `it`: the visited record
 * table.forEach { other[Particles.X] = it[Particles.X] }       // another handle: looked up
 * ```
 *
 * **Typed access**: for each of the eight column types, `handle[column]` and
 * `handle[column] = value`, and `this[handle, column]` and `this[handle, column] = value`, as
 * [TypedTable]'s: a handle other than the visited one is looked up and checked as there
 * (`InvalidHandleException` for a null, stale or foreign handle). The visited handle is
 * recognised by comparing it with the visited record's handle, so a copy of it works too.
 *
 * **Validity**: a scope is made by one [TypedTable.forEach] call and used only inside its
 * action; kept past the call, its fast path refers to the last visited chunk, which then throws
 * `IllegalStateException` like any chunk used after its iteration.
 *
 * @param D the table declaration
 */
@TableDsl
public class RecordScope<D : TableDef<D>> @PublishedApi internal constructor(
    /** The table being visited. */
    public val table: TypedTable<D>,
) {
    /** The chunk of the visited record. */
    @PublishedApi
    internal var chunk: Chunk? = null

    /** The visited record's slot in [chunk]. */
    @PublishedApi
    internal var slot: Int = 0

    /** The visited record's handle, raw. */
    @PublishedApi
    internal var visited: Long = 0L

    /** Moves the scope to a record of [chunk]: its [slot] and its handle [raw]. */
    @PublishedApi
    internal fun visit(chunk: Chunk, slot: Int, raw: Long) {
        this.chunk = chunk
        this.slot = slot
        this.visited = raw
    }

    private fun current(): Chunk = chunk ?: throw IllegalStateException("this RecordScope has not visited a record")

    // @each-type except Handle
    /** `this[handle, column]`: as [TypedTable.get]; the visited handle is read from its chunk. */
    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float =
        if (handle.raw == visited) current().get(slot, column.field) else table.core.get(handle.raw, column.field)

    /** `this[handle, column] = value`: as [TypedTable.set]; the visited handle is written in its chunk. */
    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float) {
        if (handle.raw == visited) current().set(slot, column.field, value) else table.core.set(handle.raw, column.field, value)
    }

    /** `handle[column]`: the same as `this[handle, column]`. */
    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float =
        if (raw == visited) current().get(slot, column.field) else table.core.get(raw, column.field)

    /** `handle[column] = value`: the same as `this[handle, column] = value`. */
    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float) {
        if (raw == visited) current().set(slot, column.field, value) else table.core.set(raw, column.field, value)
    }
    // @end

    /** `this[handle, column]` of a handle column: as [TypedTable.get]. */
    public operator fun <T : TableDef<T>> get(handle: Handle<D>, column: HandleColumn<D, T>): Handle<T> =
        Handle(if (handle.raw == visited) current().get(slot, column.field) else table.core.get(handle.raw, column.field))

    /** `this[handle, column] = value` of a handle column: as [TypedTable.set]. */
    public operator fun <T : TableDef<T>> set(handle: Handle<D>, column: HandleColumn<D, T>, value: Handle<T>) {
        if (handle.raw == visited) {
            current().set(slot, column.field, value.raw)
        } else {
            table.core.set(handle.raw, column.field, value.raw)
        }
    }

    /** `handle[column]` of a handle column. */
    @JvmName("read")
    public operator fun <T : TableDef<T>> Handle<D>.get(column: HandleColumn<D, T>): Handle<T> =
        Handle(if (raw == visited) current().get(slot, column.field) else table.core.get(raw, column.field))

    /** `handle[column] = value` of a handle column. */
    @JvmName("write")
    public operator fun <T : TableDef<T>> Handle<D>.set(column: HandleColumn<D, T>, value: Handle<T>) {
        if (raw == visited) current().set(slot, column.field, value.raw) else table.core.set(raw, column.field, value.raw)
    }
}
