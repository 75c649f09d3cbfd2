package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ChangeFilter
import dev.bulkdata.storage.ChunkIteration
import dev.bulkdata.storage.PackedTable
import dev.bulkdata.storage.Snapshots
import dev.bulkdata.storage.MappedTable
import dev.bulkdata.storage.Table
import dev.bulkdata.storage.TableStats
import java.nio.file.Path

/**
 * An open table declared by [D]: the core [Table] with typed handles and columns, from [TableDef.open], closed by [close]
 * or `use { }`. `table[handle, column]` (and `= value`) per column type, `it[column]` in `add { }` and `forEach { }`; a
 * handle or column of another declaration does not compile. Each member is the core call its KDoc names, with that
 * method's costs, errors and threads unless the KDoc says otherwise. Handles are `long`s at run time and lambdas
 * inlined, so add, remove, contains, get, set, [forEach] and [forEachChunk] allocate nothing. Guide: docs/kotlin.md.
 */
@TableDsl
public sealed class TypedTable<D : TableDef<D>>(
    /** The declaration this table was opened from. */
    @get:JvmName("def")
    public val def: D,
    /** The core table, for the Java API and what this class does not wrap. */
    @get:JvmName("core")
    public val core: Table,
) : AutoCloseable {
    init {
        require(core.schema() === def.schema) {
            "table '${core.name()}' was not made from the declaration '${def.name}'"
        }
    }

    internal class InMemory<D : TableDef<D>>(def: D, core: Table) : TypedTable<D>(def, core)


    /**
     * `Snapshots.save`, replacing the file; [TableDef.load] gives it back exactly, handles valid
     * (give a table loaded in a later run a fixed [TableOptions.tag]).
     */
    @Throws(java.io.IOException::class)
    public fun save(path: Path) {
        Snapshots.save(core, path)
    }

    /** `Table.size`. */
    @get:JvmName("size")
    public val size: Int get() = core.size()

    /** `Table.isEmpty`. */
    public fun isEmpty(): Boolean = core.isEmpty

    /** Whether [close] has been called. */
    public val isClosed: Boolean get() = core.isClosed

    /** `Table.stats`. */
    public fun stats(): TableStats = core.stats()

    /** `Table.add`. */
    @JvmName("add")
    public fun add(): Handle<D> = Handle(core.add())

    /**
     * Adds a record, the inlined [init] writing it (`it` its handle). If [init] throws, the add is
     * undone (`Table.cancelAdd`) and the exception propagates, an undo failure suppressed in it.
     */
    @JvmSynthetic
    public inline fun add(init: TypedTable<D>.(Handle<D>) -> Unit): Handle<D> {
        val handle = Handle<D>(core.add())
        try {
            init(handle)
        } catch (t: Throwable) {
            try {
                core.cancelAdd(handle.raw)
            } catch (secondary: Throwable) {
                t.addSuppressed(secondary)
            }
            throw t
        }
        return handle
    }

    /**
     * `Table.addAll(handlesOut, from, to, init)`: [init] writes each record, `this` its
     * [TypedChunk], arguments its slot and its index in [handlesOut] (which already holds it).
     */
    @JvmSynthetic
    public inline fun addAll(
        handlesOut: LongArray,
        from: Int = 0,
        to: Int = handlesOut.size,
        crossinline init: TypedChunk<D>.(slot: Int, i: Int) -> Unit,
    ): Unit = core.addAll(handlesOut, from, to) { chunk, slot, i -> TypedChunk<D>(chunk).init(slot, i) }

    /** `Table.remove`. */
    @JvmName("remove")
    public fun remove(handle: Handle<D>): Unit = core.remove(handle.raw)

    /** `Table.removeLater`. */
    @JvmName("removeLater")
    public fun removeLater(handle: Handle<D>): Unit = core.removeLater(handle.raw)

    /** `Table.addLater`, [init] writing the record; from `processChunks`, [TypedChunk.addLater] orders by chunk. */
    @JvmSynthetic
    public fun addLater(init: TypedTable<D>.(Handle<D>) -> Unit): Unit = core.addLater { init(Handle(it)) }

    /** `Table.applyQueued`: only needed after an `init` threw. */
    public fun applyQueued(): Int = core.applyQueued()

    /** `handle in table` (`Table.contains`): never throws. */
    @JvmName("contains")
    public operator fun contains(handle: Handle<D>): Boolean = core.contains(handle.raw)

    /** `Table.clear`. */
    public fun clear(): Unit = core.clear()

    /** `Table.reset`: O(blocks). */
    public fun reset(): Unit = core.reset()

    /** `Table.close`. */
    override fun close(): Unit = core.close()

    /** `Table.format`: `name#slot@generation`. */
    @JvmName("format")
    public fun format(handle: Handle<D>): String = core.format(handle.raw)

    // @generated
    // from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/TypedTable.kt by codegen/Generate.java: edit the template, not these lines
    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: ByteColumn<D>): Byte = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: ByteColumn<D>, value: Byte): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: ByteColumn<D>): Byte = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: ByteColumn<D>, value: Byte): Unit = core.set(raw, column.field, value)

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: ShortColumn<D>): Short = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: ShortColumn<D>, value: Short): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: ShortColumn<D>): Short = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: ShortColumn<D>, value: Short): Unit = core.set(raw, column.field, value)

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: CharColumn<D>): Char = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: CharColumn<D>, value: Char): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: CharColumn<D>): Char = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: CharColumn<D>, value: Char): Unit = core.set(raw, column.field, value)

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: IntColumn<D>): Int = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: IntColumn<D>, value: Int): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: IntColumn<D>): Int = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: IntColumn<D>, value: Int): Unit = core.set(raw, column.field, value)

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: LongColumn<D>): Long = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: LongColumn<D>, value: Long): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: LongColumn<D>): Long = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: LongColumn<D>, value: Long): Unit = core.set(raw, column.field, value)

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

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: DoubleColumn<D>): Double = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: DoubleColumn<D>, value: Double): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: DoubleColumn<D>): Double = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: DoubleColumn<D>, value: Double): Unit = core.set(raw, column.field, value)

    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: BooleanColumn<D>): Boolean = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: BooleanColumn<D>, value: Boolean): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: BooleanColumn<D>): Boolean = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: BooleanColumn<D>, value: Boolean): Unit = core.set(raw, column.field, value)
    // @end-generated

    /** The handle of table [T] a handle column holds. */
    @JvmName("get")
    public operator fun <T : TableDef<T>> get(handle: Handle<D>, column: HandleColumn<D, T>): Handle<T> =
        Handle(core.get(handle.raw, column.field))

    @JvmName("set")
    public operator fun <T : TableDef<T>> set(handle: Handle<D>, column: HandleColumn<D, T>, value: Handle<T>): Unit =
        core.set(handle.raw, column.field, value.raw)

    @JvmSynthetic
    @JvmName("read")
    public operator fun <T : TableDef<T>> Handle<D>.get(column: HandleColumn<D, T>): Handle<T> =
        Handle(core.get(raw, column.field))

    @JvmSynthetic
    @JvmName("write")
    public operator fun <T : TableDef<T>> Handle<D>.set(column: HandleColumn<D, T>, value: Handle<T>): Unit =
        core.set(raw, column.field, value.raw)

    /**
     * Calls [action] for every live record in chunk and slot order, `it` the record and `this` a [RecordScope]
     * (`forEach { it[X] += it[VX] * dt }`); structural changes throw: queue them ([removeLater], [addLater]).
     */
    @JvmSynthetic
    public inline fun forEach(action: RecordScope<D>.(Visited<D>) -> Unit): Unit = forEachIn(core.iterate(), action)

    /**
     * [forEach] over the chunks changed after [since] as [changes] looks for ([markVersion]), a changed chunk's
     * unchanged records too; throws [IllegalArgumentException] if [changes] names columns of another declaration.
     */
    @JvmSynthetic
    public inline fun forEach(changes: ChangeFilter, since: Int, action: RecordScope<D>.(Visited<D>) -> Unit): Unit =
        forEachIn(core.iterate(changes, since), action)

    @PublishedApi
    @JvmSynthetic
    internal inline fun forEachIn(iteration: ChunkIteration, action: RecordScope<D>.(Visited<D>) -> Unit) {
        try {
            val scope = RecordScope(this, ++passes)
            for (i in 0 until iteration.count()) {
                if (!iteration.selects(i)) continue
                val chunk = iteration.chunk(i)
                scope.enter(chunk)
                val base = scope.base
                // 64 live slots at a time; one loop, so the action is inlined once (storage-kotlin ARCHITECTURE.md)
                for (w in 0 until chunk.liveWordCount()) {
                    var live = chunk.liveBits(w)
                    val first = base + (w shl 6)
                    while (live != 0L) {
                        val start = java.lang.Long.numberOfTrailingZeros(live)
                        val holes = (live ushr start).inv()
                        val end = if (holes == 0L) 64 else start + java.lang.Long.numberOfTrailingZeros(holes)
                        for (b in start until end) {
                            scope.visitedAt = first + b
                            scope.visitedSlot = (w shl 6) + b
                            scope.action(Visited(first + b))
                        }
                        live = if (end == 64) 0L else live and (-1L shl end)
                    }
                }
            }
        } finally {
            iteration.close()
        }
    }

    @PublishedApi
    @get:JvmSynthetic
    @set:JvmSynthetic
    internal var passes: Int = 0

    /** Calls [action] for every chunk in order; inlined, nothing allocated per chunk. */
    @JvmSynthetic
    public inline fun forEachChunk(action: (TypedChunk<D>) -> Unit): Unit = forEachChunkIn(core.iterate(), action)

    /** [forEachChunk] of the chunks changed after [since] as [changes] looks for; throws as the filtered [forEach]. */
    @JvmSynthetic
    public inline fun forEachChunk(changes: ChangeFilter, since: Int, action: (TypedChunk<D>) -> Unit): Unit =
        forEachChunkIn(core.iterate(changes, since), action)

    @PublishedApi
    @JvmSynthetic
    internal inline fun forEachChunkIn(iteration: ChunkIteration, action: (TypedChunk<D>) -> Unit) {
        try {
            for (i in 0 until iteration.count()) {
                if (iteration.selects(i)) action(TypedChunk(iteration.chunk(i)))
            }
        } finally {
            iteration.close()
        }
    }

    /** `Table.markVersion`. */
    public fun markVersion(): Int = core.markVersion()

    /** Hands [block] the chunks as a lazy [Sequence], the iteration closed when it returns; allocates per chunk. */
    @JvmSynthetic
    public inline fun <R> useChunks(block: (Sequence<TypedChunk<D>>) -> R): R {
        val iteration: ChunkIteration = core.iterate()
        try {
            return block(chunkSequence(iteration))
        } finally {
            iteration.close()
        }
    }

    /** Not inline, so its lambda is no class of the public API. */
    @PublishedApi
    @JvmSynthetic
    internal fun chunkSequence(iteration: ChunkIteration): Sequence<TypedChunk<D>> =
        iteration.asSequence().map { TypedChunk(it) }

    /**
     * `PackedTable.defragment` of a PACKED table: at most [maxSwaps] neighbour swaps toward [order] (keep it in a
     * `val`), returning how many; throws [UnsupportedOperationException], naming the table, if it is not PACKED.
     */
    public fun defragment(maxSwaps: Long, order: TypedRecordOrder<D>): Long =
        packed("defragment").defragment(maxSwaps, order)

    /** `PackedTable.markFragmented`, e.g. after writing fields the order reads; throws as [defragment] does. */
    public fun markFragmented(): Unit = packed("markFragmented").markFragmented()

    private fun packed(operation: String): PackedTable = core as? PackedTable
        ?: throw UnsupportedOperationException(
            "table '${def.name}' is ${def.kind}: its records never move, so $operation does not apply;" +
                " declare it with `kind = TableKind.PACKED` to keep its rows dense and sortable",
        )

    override fun toString(): String =
        if (core.isClosed) "TypedTable(${def.name}, closed)" else "TypedTable(${def.name}, size=${core.size()})"
}

@JvmSynthetic
internal fun <D : TableDef<D>> typedTableOf(def: D, core: Table): TypedTable<D> =
    if (core is MappedTable) TypedMappedTable(def, core) else TypedTable.InMemory(def, core)
