package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ChangeFilter
import dev.bulkdata.storage.ChunkIteration
import dev.bulkdata.storage.PackedTable
import dev.bulkdata.storage.Snapshots
import dev.bulkdata.storage.Table
import dev.bulkdata.storage.TableStats
import java.nio.file.Path

/**
 * An open table declared by [D], with typed handles and columns over the core [Table] ([core]).
 * Obtain it from [TableDef.open]; close it with [close] or `use { }`.
 *
 * ```
 * Particles.open().use { table ->
 *     val id = table.add { it[Particles.VX] = 1f }
 *     table[id, Particles.X] += table[id, Particles.VX]
 *     table.forEach { h -> h[Particles.X] = 0f }
 *     table.remove(id)
 *     check(id !in table)
 * }
 * ```
 *
 * **Typed access**: `table[handle, column]` and `table[handle, column] = value` exist for each
 * of the nine column types ([ByteColumn] .. [BooleanColumn], and [HandleColumn], whose values
 * are `Handle<T>`) and read or write that column of the record [handle][Handle] refers to, as
 * the core `Table.get` / `Table.set` (and throw as they do: `InvalidHandleException` for a null, stale or foreign handle, `IllegalStateException`
 * once closed). Inside the `add { }` and `forEach { }` lambdas, `it[column]` and
 * `it[column] = value` do the same for the lambda's handle. A handle or column of another
 * declaration does not compile.
 *
 * **Costs**: every method is the core call plus nothing: handles are `long`s at run time (see
 * [Handle]), the `add { }`, `forEach { }` and `forEachChunk { }` lambdas are inlined, and column
 * lookups are one field read. add, remove, contains, get and set and [forEach] / [forEachChunk]
 * allocate nothing once JIT-compiled (AllocationTest): an iteration pass opens one small
 * iteration object (and [forEach] its [RecordScope]), which escape analysis removes once the
 * method holding the pass is compiled as a whole with the action inlined (until then, those
 * objects once per pass, never per record); [useChunks] allocates its [Sequence] and a box per
 * chunk.
 *
 * **Threads and errors**: as the core [Table]: a single writer for structure (add, remove,
 * clear, defragment, close), many threads for fields of distinct records, structural changes
 * during an iteration fail fast with [java.util.ConcurrentModificationException], and every
 * failing call leaves the table as it was. For parallel per-chunk work see [processChunks] and
 * [chunkFlow].
 *
 * **Java** calls it with `long` handles: `add()` returns one, and `get`, `set`, `remove`,
 * `contains` and `format` take them, with the declaration's static columns
 * (`table.set(h, Particles.X, 1f)`; a column of another declaration does not compile there
 * either); a Java lambda `(a, b) -> ...` over two `long`s is a [TypedRecordOrder] for
 * [defragment]. The Kotlin-only members (the lambdas and `it[column]`) are hidden from Java;
 * [core] (`core()`) is the core table for everything else.
 *
 * @param D the table declaration
 */
@TableDsl
public class TypedTable<D : TableDef<D>> internal constructor(
    /** The declaration this table was opened from. */
    @get:JvmName("def")
    public val def: D,
    /** The core table underneath, for the Java API and for what this class does not wrap. */
    @get:JvmName("core")
    public val core: Table,
) : GeneratedTypedTableAccessors<D>(core), AutoCloseable {
    // The constructors are internal, which the JVM cannot express: Java sees them as public, so
    // one takes only the declaration and opens the core table itself (a new, empty table of
    // it), and the other (for a loaded table) refuses a core table of another schema.

    internal constructor(def: D) : this(def, def.openCore())

    init {
        require(core.schema() === def.schema) {
            "table '${core.name()}' was not made from the declaration '${def.name}'"
        }
    }

    /**
     * Saves this table to a file, replacing it (the core `Snapshots.save`): [TableDef.load]
     * gives it back exactly, with every handle valid. Use a fixed [TableOptions.tag] for a table
     * that is loaded in a later run.
     *
     * @throws java.io.IOException if writing fails; an earlier file at [path] is left as it was
     * @throws IllegalStateException if the table is closed
     */
    @Throws(java.io.IOException::class)
    public fun save(path: Path) {
        Snapshots.save(core, path)
    }

    /**
     * Makes everything written to this table before the call durable, if it is mapped from a
     * file ([TableDef.open] with a path, or [TableOptions.file]): the core `Table.checkpoint`,
     * which says what a crash keeps. Closing a mapped table checkpoints too.
     *
     * @throws java.io.IOException if writing the file fails; it then holds the previous checkpoint
     * @throws IllegalStateException if the table is closed or not mapped from a file
     */
    @Throws(java.io.IOException::class)
    public fun checkpoint() {
        core.checkpoint()
    }

    /**
     * Checks the blocks unchanged since the last checkpoint against their checksums, for a
     * table mapped with [TableOptions.blockChecksums]: the core `Table.verify`. Returns the
     * number of blocks checked.
     *
     * @throws dev.bulkdata.storage.SnapshotException (`CHECKSUM`) naming the first damaged block
     * @throws java.io.IOException if reading the file fails
     * @throws IllegalStateException if the table is closed, not mapped, or has no block checksums
     */
    @Throws(java.io.IOException::class)
    public fun verify(): Int = core.verify()

    /**
     * Which checkpoint of its file this mapped table was opened at, and why (the core
     * `Table.openedCheckpoint`). Throws [IllegalStateException] if the table is not mapped.
     */
    public val openedCheckpoint: dev.bulkdata.storage.OpenedCheckpoint get() = core.openedCheckpoint()

    /** The number of live records. O(1). Throws [IllegalStateException] if closed. */
    @get:JvmName("size")
    public val size: Int get() = core.size()

    /** Whether the table holds no record. O(1). Throws [IllegalStateException] if closed. */
    public fun isEmpty(): Boolean = core.isEmpty

    /** Whether [close] has been called. */
    public val isClosed: Boolean get() = core.isClosed

    /** Counts and memory of the table. O(1); all zero once the table is closed. */
    public fun stats(): TableStats = core.stats()

    /**
     * Adds a record with every field zero. O(1), allocation-free once its block exists.
     *
     * @throws dev.bulkdata.storage.CapacityExceededException if the table is full
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    @JvmName("add")
    public fun add(): Handle<D> = Handle(core.add())

    /**
     * Adds a record and initialises it: `table.add { it[X] = 1f; it[VX] = 2f }`. The lambda is
     * inlined (no allocation); `it` is the new handle and `this` the table.
     *
     * If [init] throws, the add is undone with the core's `Table.cancelAdd` and [init]'s own
     * exception propagates. Unless [init] changed the table's structure itself, the table is then
     * exactly as it was before the call: [size], capacity and every count of [stats], native
     * bytes included (a block the add allocated is kept as a spare outside them); the new handle
     * stays stale for good. If [init] added records, they stay and the new one is removed; if it
     * removed the new record, nothing more is removed. If undoing fails (because [init] closed
     * the table or left an iteration open), that failure is added to [init]'s exception as
     * suppressed, and the record stays.
     *
     * @throws dev.bulkdata.storage.CapacityExceededException if the table is full
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
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
     * Removes a record; every copy of its handle becomes stale. O(fields).
     *
     * @throws dev.bulkdata.storage.InvalidHandleException if the handle is null, stale or foreign
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    @JvmName("remove")
    public fun remove(handle: Handle<D>): Unit = core.remove(handle.raw)

    /**
     * Removes a record once no pass over the table is open: inside [forEach], [forEachChunk] and
     * `processChunks`, where [remove] throws, the removal is queued and applied when the last
     * open pass ends (the record is still visited and readable until then); with no pass open it
     * is [remove]. The handle is checked now. O(1), allocates nothing; any thread. The core
     * `Table.removeLater` has the whole contract, `Table.applyQueued` the order.
     *
     * @throws dev.bulkdata.storage.InvalidHandleException if the handle is not live
     * @throws IllegalStateException if the table is closed
     */
    @JvmName("removeLater")
    public fun removeLater(handle: Handle<D>): Unit = core.removeLater(handle.raw)

    /**
     * Adds a record once no pass over the table is open, [init] writing its fields: inside a pass
     * the add is queued (the record does not exist, and has no handle, until the last open pass
     * ends); with no pass open it is `add(init)`. If [init] throws, the record is taken back.
     * From the chunks of `processChunks`, queue through [TypedChunk.addLater] for an order that
     * does not depend on the threads. See the core `Table.addLater`.
     *
     * ```
     * particles.forEach {
     *     it[LIFE] -= DT
     *     if (it[LIFE] <= 0f) {
     *         it.removeLater()
     *         particles.addLater { h -> this[h, LIFE] = 2f }
     *     }
     * }                                   // applied here: removals, then adds
     * ```
     *
     * @throws IllegalStateException if the table is closed
     */
    @JvmSynthetic
    public fun addLater(init: TypedTable<D>.(Handle<D>) -> Unit): Unit = core.addLater { init(Handle(it)) }

    /** Applies what is queued now (see the core `Table.applyQueued`); only needed after an `init` threw. */
    public fun applyQueued(): Int = core.applyQueued()

    /** `handle in table`: whether [handle] refers to a live record. O(1); never throws. */
    @JvmName("contains")
    public operator fun contains(handle: Handle<D>): Boolean = core.contains(handle.raw)

    /** Removes every record; all handles become stale. O(capacity). Throws as `Table.clear`. */
    public fun clear(): Unit = core.clear()

    /**
     * Removes every record at once, the fast purge of a table emptied every frame: all handles
     * become stale, the blocks stay, the next adds take the same slots. O(blocks): no slot's
     * metadata and no record byte written. Throws as `Table.reset`, whose Javadoc gives the
     * contract (handles, tag, change versions, mapped tables, generation budget).
     */
    public fun reset(): Unit = core.reset()

    /** Frees the table's native memory and tag. Idempotent. */
    override fun close(): Unit = core.close()

    /** Formats [handle] as `name#index@generation` with this table's name; `null` for the null handle. */
    @JvmName("format")
    public fun format(handle: Handle<D>): String = core.format(handle.raw)

    // The typed get and set of the other column types: GeneratedTypedTableAccessors (a template).

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
     * Calls [action] for every live record once, in chunk order and slot order within a chunk,
     * with `it` the visited record (a [Visited]) and `this` a [RecordScope]:
     * `forEach { it[X] += it[VX] * dt }`. `it[column]` reads and writes the record straight from
     * its chunk: no handle is computed or looked up; `it.handle` gives its handle when the record
     * must be referred to later, and other handles (`other[X]`, `this[other, X]`) are looked up
     * as in [get]. Inlined, the action once; holes are skipped 64 at a time; allocates at most
     * the scope and the iteration, two small objects per call and nothing per record, which
     * escape analysis removes once the calling method is compiled with the action inlined
     * (AllocationTest: an action reading six fields and writing three). An iteration is open
     * during the call: [add], [remove] and [clear] throw
     * [java.util.ConcurrentModificationException] (the scope does not offer them), field writes
     * are fine.
     *
     * @throws IllegalStateException if the table is closed
     */
    @JvmSynthetic
    public inline fun forEach(action: RecordScope<D>.(Visited<D>) -> Unit): Unit = forEachIn(core.iterate(), action)

    /**
     * [forEach] over the records of the chunks that changed after [since] in a way [changes]
     * looks for (a version from [markVersion]; build [changes] with [changeFilter]): a chunk is
     * the unit, so its unchanged records are visited too. Each chunk is tested when the pass
     * reaches it. Inlined; allocates what [forEach] does.
     *
     * ```
     * val moved = changeFilter(Particles.X)          // once
     * table.forEach(moved, seen) { upload(it.handle, it[Particles.X]) }
     * seen = table.markVersion()
     * ```
     *
     * @throws IllegalArgumentException if [changes] names columns of another declaration
     * @throws IllegalStateException if the table is closed
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
                    while (live != 0L) {
                        val slot = (w shl 6) + java.lang.Long.numberOfTrailingZeros(live)
                        live = live and (live - 1)
                        scope.action(Visited(base + slot))
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
     * Calls [action] for every chunk (block), in order, with an iteration open: read and write
     * with `chunk[slot, column]` (see [TypedChunk]). Inlined; nothing is allocated per chunk. A
     * chunk kept past the call (while no other iteration is open) throws
     * [IllegalStateException] from every method.
     *
     * @throws IllegalStateException if the table is closed
     */
    @JvmSynthetic
    public inline fun forEachChunk(action: (TypedChunk<D>) -> Unit): Unit = forEachChunkIn(core.iterate(), action)

    /**
     * [forEachChunk] over the chunks that changed after [since] in a way [changes] looks for
     * (a version from [markVersion]; build [changes] with [changeFilter]). Each chunk is tested
     * when the pass reaches it: O(columns of the filter) per chunk, nothing per record.
     *
     * @throws IllegalArgumentException if [changes] names columns of another declaration
     * @throws IllegalStateException if the table is closed
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

    /**
     * Returns the table's current change version and moves its counter on (the core
     * `Table.markVersion`): every write before the call is at or before the result, every write
     * after it later. Give the result to the next filtered pass ([forEach], [forEachChunk],
     * [processChunks], [chunkFlow] with a [ChangeFilter]) to visit only the chunks changed since.
     * O(1); call it on the writer thread while no other thread writes the table.
     *
     * @throws IllegalStateException if the table is closed
     */
    public fun markVersion(): Int = core.markVersion()

    /**
     * Opens an iteration and hands [block] the chunks as a lazy [Sequence], closing the
     * iteration when [block] returns. The sequence must not be used after that, and a chunk
     * kept past it (while no other iteration is open) throws [IllegalStateException] from every
     * method. Allocates the sequence and a 16-byte box per chunk (a value class in a generic
     * sequence); [forEachChunk] allocates neither.
     *
     * @throws IllegalStateException if the table is closed
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
     * Moves a PACKED table's rows toward [order], making at most [maxSwaps] swaps of
     * neighbouring rows, and returns how many it made (the core `PackedTable.defragment`): call
     * it again, e.g. once a frame, to continue. No handle is affected; records change rows.
     * After a call that gets through every row, later calls with the same [order] instance
     * return 0 at once until the table is fragmented again (add, remove, clear or
     * [markFragmented]), so keep the order in a `val`. Allocates nothing.
     *
     * ```
     * val byX = TypedRecordOrder<Bullets> { a, b -> table[a, Bullets.X].compareTo(table[b, Bullets.X]) }
     * table.defragment(1_000, byX)
     * ```
     *
     * Cost: insertion sort, O(n + I) comparisons and I swaps for n rows with I inversions.
     *
     * @throws UnsupportedOperationException if the table is not `TableKind.PACKED` (a BULK
     *   table's records never move); the message names the table
     * @throws IllegalArgumentException if [maxSwaps] is negative
     * @throws java.util.ConcurrentModificationException if an iteration is open or [order]
     *   adds, removes or clears (rows moved so far stay moved; every handle stays valid)
     * @throws IllegalStateException if the table is closed
     */
    public fun defragment(maxSwaps: Long, order: TypedRecordOrder<D>): Long =
        packed("defragment").defragment(maxSwaps, order)

    /**
     * Tells [defragment] that the rows may be out of order although no record was added or
     * removed, e.g. after writing the fields the order reads (writes do not fragment the table). O(1).
     *
     * @throws UnsupportedOperationException if the table is not `TableKind.PACKED`
     * @throws IllegalStateException if the table is closed
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
