package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk

/**
 * A record visited by [TypedTable.forEach]: `it` in `forEach { it[X] += it[VX] * dt }`. It
 * names the record by its place in the pass (chunk and slot), not by handle, so reading and
 * writing it costs a chunk access and nothing else: no handle is computed or checked. Ask for
 * the handle with [RecordScope.handle] (`it.handle`) when the record must be referred to
 * after the pass.
 *
 * A `Visited` is valid only inside the [TypedTable.forEach] call that produced it, on its
 * [RecordScope]; a `Visited` of an earlier record of the same pass still reads that record.
 * Used in another pass it throws [IllegalStateException]; it never reads another record. At
 * run time it is a plain `long`, like [Handle].
 *
 * @param D the table declaration
 */
@JvmInline
public value class Visited<D : TableDef<D>> @PublishedApi internal constructor(
    /** The pass's stamp in the high 32 bits, the record's index in the pass in the low 31. */
    @PublishedApi internal val at: Long,
)

/**
 * The receiver of [TypedTable.forEach]'s action: typed access to the visited record (`it`, a
 * [Visited]) straight from its chunk, and to any other record by handle.
 *
 * ```
 * table.forEach { it[Particles.X] += it[Particles.VX] * dt }   // `it`: the visited record
 * table.forEach { if (it[Particles.T] < 0f) expired += it.handle.raw }
 * table.forEach { other[Particles.X] = it[Particles.X] }       // another record, by handle
 * ```
 *
 * **Typed access**: for each of the nine column types (a handle column's values are `Handle<T>`), `visited[column]` and
 * `visited[column] = value` read and write the visited record (no lookup, no handle);
 * `handle[column]`, `handle[column] = value`, `this[handle, column]` and
 * `this[handle, column] = value` look the handle up and check it as [TypedTable]'s do
 * (`InvalidHandleException` for a null, stale or foreign handle).
 *
 * **Validity**: a scope is made by one [TypedTable.forEach] call and used only inside its
 * action. Kept past the call, it refers to a chunk whose iteration ended: visited-record access
 * throws [IllegalStateException], as any chunk used after its iteration; handle access still
 * works through the table.
 *
 * @param D the table declaration
 */
@TableDsl
public class RecordScope<D : TableDef<D>> @PublishedApi internal constructor(
    /** The table being visited. */
    public val table: TypedTable<D>,
    /** This pass's stamp, distinct from the table's earlier passes; kept in the high half of [Visited.at]. */
    stamp: Int,
) : GeneratedRecordScopeAccessors<D>(table.core) {
    private val pass: Long = stamp.toLong() shl 32

    /** Records per chunk: a power of two. */
    @PublishedApi
    internal val slots: Int = table.core.schema().slotsPerBlock()

    /** The chunk being visited. */
    @PublishedApi
    internal var chunk: Chunk? = null

    /** [Visited.at] of slot 0 of [chunk]. */
    @PublishedApi
    internal var base: Long = 0L

    /** Moves the scope to [chunk]: its records are then `Visited(base + slot)`. */
    @PublishedApi
    internal fun enter(chunk: Chunk) {
        this.chunk = chunk
        this.base = pass or (chunk.index().toLong() * slots)
    }

    override fun slotHere(at: Long): Int {
        val offset = at - base
        return if (offset >= 0L && offset < slots) offset.toInt() else -1
    }

    /**
     * The slow path: the handle of [at], a record of another chunk visited earlier in this pass,
     * read through an iteration of its own (the pass's is open, so the record is where it was);
     * throws for a record of another pass. It allocates that iteration, and it takes no object of
     * the pass, so escape analysis still removes the pass's own.
     */
    override fun handleOfEarlier(at: Long): Long {
        check(at and PASS_MASK == pass) {
            "a Visited record of table '${table.core.name()}' is valid only in the forEach pass that visited it;" +
                " keep its handle (it.handle) to refer to it later"
        }
        val index = at and INDEX_MASK
        return table.core.iterate().use { it.chunk((index / slots).toInt()).handle((index % slots).toInt()) }
    }

    override fun current(): Chunk = chunk ?: throw IllegalStateException("this RecordScope has not visited a record")

    /**
     * Queues the removal of the visited record, applied when the pass ends
     * ([TypedTable.removeLater]); a record of the chunk being visited. O(1), allocates nothing.
     */
    public fun Visited<D>.removeLater() {
        val slot = slotHere(at)
        if (slot >= 0) current().removeLater(slot) else table.core.removeLater(handleOfEarlier(at))
    }

    /** The visited record's handle, valid after the pass. O(1): the slot's generation is read. */
    public val Visited<D>.handle: Handle<D>
        get() {
            val slot = slotHere(at)
            return Handle(if (slot >= 0) current().handle(slot) else handleOfEarlier(at))
        }

    // The typed operators of the other column types: GeneratedRecordScopeAccessors (a template).

    /** `visited[column]` of a handle column: the handle of table [T] the visited record holds. */
    public operator fun <T : TableDef<T>> Visited<D>.get(column: HandleColumn<D, T>): Handle<T> {
        val slot = slotHere(at)
        return Handle(if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field))
    }

    /** `visited[column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> Visited<D>.set(column: HandleColumn<D, T>, value: Handle<T>) {
        val slot = slotHere(at)
        if (slot >= 0) {
            current().set(slot, column.field, value.raw)
        } else {
            table.core.set(handleOfEarlier(at), column.field, value.raw)
        }
    }

    /** `this[handle, column]` of a handle column: as [TypedTable.get], a lookup by handle. */
    public operator fun <T : TableDef<T>> get(handle: Handle<D>, column: HandleColumn<D, T>): Handle<T> =
        Handle(table.core.get(handle.raw, column.field))

    /** `this[handle, column] = value` of a handle column: as [TypedTable.set], a lookup by handle. */
    public operator fun <T : TableDef<T>> set(handle: Handle<D>, column: HandleColumn<D, T>, value: Handle<T>) {
        table.core.set(handle.raw, column.field, value.raw)
    }

    /** `handle[column]` of a handle column: the same as `this[handle, column]`. */
    @JvmName("read")
    public operator fun <T : TableDef<T>> Handle<D>.get(column: HandleColumn<D, T>): Handle<T> =
        Handle(table.core.get(raw, column.field))

    /** `handle[column] = value` of a handle column: the same as `this[handle, column] = value`. */
    @JvmName("write")
    public operator fun <T : TableDef<T>> Handle<D>.set(column: HandleColumn<D, T>, value: Handle<T>) {
        table.core.set(raw, column.field, value.raw)
    }
}

/** The pass stamp's bits of [Visited.at]. */
private const val PASS_MASK: Long = -1L shl 32

/** The record index's bits of [Visited.at]. */
private const val INDEX_MASK: Long = 0x7fff_ffffL
