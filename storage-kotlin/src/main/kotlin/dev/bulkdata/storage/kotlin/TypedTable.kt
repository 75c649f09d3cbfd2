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
 * An open table declared by [D], with typed handles and columns over the core [Table] ([core]).
 * Obtain it from [TableDef.open]; close it with [close] or `use { }`.
 *
 * `table[handle, column]` and `= value` exist for each column type; inside `add { }` and
 * `forEach { }`, `it[column]` does the same for the lambda's record. A handle or column of
 * another declaration does not compile. Each member is the core call its KDoc names, plus
 * nothing: its costs, errors and thread rules are that method's, and a member's KDoc says only
 * what differs. Handles are `long`s at run time and the lambdas are inlined, so add, remove,
 * contains, get, set, [forEach] and [forEachChunk] allocate nothing once compiled. Java calls it
 * with `long` handles and the declaration's static columns. Guide: docs/kotlin.md.
 *
 * @param D the table declaration
 */
@TableDsl
public sealed class TypedTable<D : TableDef<D>>(
    /** The declaration this table was opened from. */
    @get:JvmName("def")
    public val def: D,
    /** The core table underneath, for the Java API and for what this class does not wrap. */
    @get:JvmName("core")
    public val core: Table,
) : AutoCloseable {
    // Sealed: a table in memory (InMemory) or a TypedMappedTable, made by typedTableOf(); init refuses a
    // core table of another schema (a loaded one). The class file's PermittedSubclasses names
    // the two, so no caller, Java included, extends it.

    init {
        require(core.schema() === def.schema) {
            "table '${core.name()}' was not made from the declaration '${def.name}'"
        }
    }

    /** A table of [def] in memory: every member is [TypedTable]'s. */
    internal class InMemory<D : TableDef<D>>(def: D, core: Table) : TypedTable<D>(def, core)


    /**
     * Saves this table to a file, replacing it (`Snapshots.save`): [TableDef.load] gives it back
     * exactly, with every handle valid. Give a table loaded in a later run a fixed [TableOptions.tag].
     */
    @Throws(java.io.IOException::class)
    public fun save(path: Path) {
        Snapshots.save(core, path)
    }

    /** The number of live records (`Table.size`). */
    @get:JvmName("size")
    public val size: Int get() = core.size()

    /** Whether the table holds no record (`Table.isEmpty`). */
    public fun isEmpty(): Boolean = core.isEmpty

    /** Whether [close] has been called. */
    public val isClosed: Boolean get() = core.isClosed

    /** Counts and memory of the table (`Table.stats`); all zero once the table is closed. */
    public fun stats(): TableStats = core.stats()

    /** Adds a record with every field zero (`Table.add`). */
    @JvmName("add")
    public fun add(): Handle<D> = Handle(core.add())

    /**
     * Adds a record and initialises it: `table.add { it[X] = 1f }`, the lambda inlined, `it` the
     * new handle. If [init] throws, the add is undone (`Table.cancelAdd`: the table as it was,
     * unless [init] changed its structure) and [init]'s exception propagates, with a failure to
     * undo suppressed in it.
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
     * `Table.addAll(handlesOut, from, to, init)`: adds records and has [init] write each one, with
     * `this` the new record's [TypedChunk] and [init]'s arguments its slot and its position in
     * [handlesOut], which holds its raw handle already: `addAll(ids) { s, i -> this[s, X] = xs[i] }`.
     */
    @JvmSynthetic
    public inline fun addAll(
        handlesOut: LongArray,
        from: Int = 0,
        to: Int = handlesOut.size,
        crossinline init: TypedChunk<D>.(slot: Int, i: Int) -> Unit,
    ): Unit = core.addAll(handlesOut, from, to) { chunk, slot, i -> TypedChunk<D>(chunk).init(slot, i) }

    /** Removes a record; every copy of its handle becomes stale (`Table.remove`). */
    @JvmName("remove")
    public fun remove(handle: Handle<D>): Unit = core.remove(handle.raw)

    /** Removes a record once no pass is open; inside a pass, queued (`Table.removeLater`). */
    @JvmName("removeLater")
    public fun removeLater(handle: Handle<D>): Unit = core.removeLater(handle.raw)

    /**
     * Adds a record once no pass is open, [init] writing its fields; inside a pass, queued until
     * the last open pass ends (`Table.addLater`). From `processChunks`, [TypedChunk.addLater]
     * orders by chunk.
     */
    @JvmSynthetic
    public fun addLater(init: TypedTable<D>.(Handle<D>) -> Unit): Unit = core.addLater { init(Handle(it)) }

    /** Applies what is queued now (`Table.applyQueued`); only needed after an `init` threw. */
    public fun applyQueued(): Int = core.applyQueued()

    /** `handle in table`: whether [handle] refers to a live record. O(1); never throws. */
    @JvmName("contains")
    public operator fun contains(handle: Handle<D>): Boolean = core.contains(handle.raw)

    /** Removes every record; all handles become stale (`Table.clear`, O(slots opened)). */
    public fun clear(): Unit = core.clear()

    /** Removes every record in O(blocks) (`Table.reset`), the purge of a table emptied every frame. */
    public fun reset(): Unit = core.reset()

    /** Frees the table's native memory and tag. Idempotent. */
    override fun close(): Unit = core.close()

    /** Formats [handle] as `name#slot@generation` with this table's name; `null` for the null handle. */
    @JvmName("format")
    public fun format(handle: Handle<D>): String = core.format(handle.raw)

    // The typed get and set by handle, for each column type but handles:
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

    /** `table[handle, column]` of a handle column: the handle of table [T] it holds. */
    @JvmName("get")
    public operator fun <T : TableDef<T>> get(handle: Handle<D>, column: HandleColumn<D, T>): Handle<T> =
        Handle(core.get(handle.raw, column.field))

    /** `table[handle, column] = value` of a handle column. */
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
     * Calls [action] for every live record once, in chunk and slot order, `it` the visited record
     * and `this` a [RecordScope]: `forEach { it[X] += it[VX] * dt }` reads and writes straight from
     * its chunk (`it.handle` to refer to it later). Inlined; nothing allocated per record.
     * Structural changes during it throw: queue them ([removeLater], [addLater]).
     */
    @JvmSynthetic
    public inline fun forEach(action: RecordScope<D>.(Visited<D>) -> Unit): Unit = forEachIn(core.iterate(), action)

    /**
     * [forEach] over the records of the chunks changed after [since] (from [markVersion]) as
     * [changes] looks for; a changed chunk's unchanged records are visited too.
     *
     * @throws IllegalArgumentException if [changes] names columns of another declaration
     */
    @JvmSynthetic
    public inline fun forEach(changes: ChangeFilter, since: Int, action: RecordScope<D>.(Visited<D>) -> Unit): Unit =
        forEachIn(core.iterate(changes, since), action)

    /** The body of both [forEach]es: every live record of the selected chunks of [iteration], which it closes. */
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
                // Live slots 64 at a time from the bitmap: no step waits for the previous one.
                // One loop, so the action is inlined once (storage-kotlin ARCHITECTURE.md, forEach).
                for (w in 0 until chunk.liveWordCount()) {
                    var live = chunk.liveBits(w)
                    val first = base + (w shl 6)
                    while (live != 0L) {
                        val start = java.lang.Long.numberOfTrailingZeros(live)
                        val holes = (live ushr start).inv()
                        val end = if (holes == 0L) 64 else start + java.lang.Long.numberOfTrailingZeros(holes)
                        for (b in start until end) {
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

    /** Passes of [forEach] so far: each pass's [RecordScope] stamps its [Visited] records with it. */
    @PublishedApi
    @get:JvmSynthetic
    @set:JvmSynthetic
    internal var passes: Int = 0

    /**
     * Calls [action] for every chunk, in order, with an iteration open. Inlined; nothing allocated
     * per chunk; a chunk kept past the call throws [IllegalStateException].
     */
    @JvmSynthetic
    public inline fun forEachChunk(action: (TypedChunk<D>) -> Unit): Unit = forEachChunkIn(core.iterate(), action)

    /**
     * [forEachChunk] over the chunks changed after [since] (from [markVersion]) as [changes]
     * looks for.
     *
     * @throws IllegalArgumentException if [changes] names columns of another declaration
     */
    @JvmSynthetic
    public inline fun forEachChunk(changes: ChangeFilter, since: Int, action: (TypedChunk<D>) -> Unit): Unit =
        forEachChunkIn(core.iterate(changes, since), action)

    /** The body of both [forEachChunk]s: the selected chunks of [iteration], which it closes. */
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

    /** Returns the current change version and moves the counter on (`Table.markVersion`). */
    public fun markVersion(): Int = core.markVersion()

    /**
     * Hands [block] the chunks as a lazy [Sequence] in an iteration closed when [block] returns.
     * Allocates the sequence and a box per chunk; [forEachChunk] allocates neither.
     */
    @JvmSynthetic
    public inline fun <R> useChunks(block: (Sequence<TypedChunk<D>>) -> R): R {
        val iteration: ChunkIteration = core.iterate()
        try {
            return block(chunkSequence(iteration))
        } finally {
            iteration.close()
        }
    }

    /** The chunks of [iteration], typed; not inline, so its lambda is no class of the public API. */
    @PublishedApi
    @JvmSynthetic
    internal fun chunkSequence(iteration: ChunkIteration): Sequence<TypedChunk<D>> =
        iteration.asSequence().map { TypedChunk(it) }

    /**
     * Moves a PACKED table's rows toward [order] with at most [maxSwaps] swaps of neighbouring
     * rows and returns how many it made (`PackedTable.defragment`; call again to continue; keep
     * [order] in a `val`).
     *
     * @throws UnsupportedOperationException if the table is not `TableKind.PACKED` (a BULK
     *   table's records never move); the message names the table
     */
    public fun defragment(maxSwaps: Long, order: TypedRecordOrder<D>): Long =
        packed("defragment").defragment(maxSwaps, order)

    /**
     * Tells [defragment] that the rows may be out of order although none was added or removed,
     * e.g. after writing the fields the order reads (`PackedTable.markFragmented`).
     *
     * @throws UnsupportedOperationException if the table is not `TableKind.PACKED`
     */
    public fun markFragmented(): Unit = packed("markFragmented").markFragmented()

    private fun packed(operation: String): PackedTable = core as? PackedTable
        ?: throw UnsupportedOperationException(
            "table '${def.name}' is ${def.kind}: its records never move, so $operation does not apply;" +
                " declare it with `kind = TableKind.PACKED` to keep its rows dense and sortable",
        )

    /** `TypedTable(name, size)`. */
    override fun toString(): String =
        if (core.isClosed) "TypedTable(${def.name}, closed)" else "TypedTable(${def.name}, size=${core.size()})"
}

/** The typed table over [core]: a [TypedMappedTable] if it is mapped from a file. */
@JvmSynthetic
internal fun <D : TableDef<D>> typedTableOf(def: D, core: Table): TypedTable<D> =
    if (core is MappedTable) TypedMappedTable(def, core) else TypedTable.InMemory(def, core)
