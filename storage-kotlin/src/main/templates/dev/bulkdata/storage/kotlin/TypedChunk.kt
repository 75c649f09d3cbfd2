package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk
import java.lang.foreign.MemorySegment

/**
 * One chunk (16 KiB block) of a table declared by [D], as [TypedTable.forEachChunk],
 * [TypedTable.useChunks], [processChunks] and [chunkFlow] hand it out: the core [Chunk] with
 * the table's type attached, so `chunk[slot, column]` compiles only for a column of [D] and
 * [handle] gives a `Handle<D>`.
 *
 * ```
 * fun move(chunk: TypedChunk<Particles>, dt: Float) {  // a function of its own
 *     val x = chunk.writableView(Particles.X)           // once per chunk, before the loop
 *     val vx = chunk.view(Particles.VX)
 *     chunk.forEachLive { s -> x[s] += vx[s] * dt }     // the fast loop: no check per access
 *     val first = chunk.nextLive(0)                     // slot access, checked every time:
 *     if (first >= 0) chunk[first, Particles.X] = 0f    // a hole throws
 * }
 * table.forEachChunk { move(it, dt) }
 * ```
 *
 * **Views** ([view], [writableView]) and [forEachLive] are the loop for passes over many
 * records: a view is the chunk's column, read and written by slot with no check but the
 * chunk's bounds, and `forEachLive` is the loop shape the JIT compiles best (see [FloatView]).
 * Keep a chunk's work in a function of its own, as above: the JIT compiles it apart from the
 * chunk loop, so a body of many accesses stays within its inlining budget.
 *
 * **Typed access**: `chunk[slot, column]` and `chunk[slot, column] = value` exist for each of
 * the nine column types ([ByteColumn] .. [BooleanColumn], and [HandleColumn], whose values are
 * `Handle<T>`) and read or write that column of the
 * live record in `slot`, as the core `Chunk.get` / `Chunk.set` with the column's field: O(1),
 * no allocation, no handle check. A slot outside the chunk throws [IndexOutOfBoundsException],
 * a hole [IllegalArgumentException].
 *
 * **Costs**: a value class over the core chunk, so a `TypedChunk` is the core object at run
 * time and every call is the core call. It is boxed (16 bytes) where it is a generic type
 * argument: the elements of [useChunks][TypedTable.useChunks]' sequence and of [chunkFlow].
 *
 * **Validity**: as the core chunk's, only while its pass is open (inside `forEachChunk`, the
 * `useChunks` block, `processChunks`, a `chunkFlow` collection); kept past it (while no other
 * iteration of the table is open), every method throws [IllegalStateException]. Keep handles
 * ([handle]), not chunks.
 *
 * **Raw memory**: [column] and [records] (read-only), [writableColumn] and [writableRecords]
 * (which stamp the chunk's change versions) and [core] give the chunk's memory as a
 * [MemorySegment] and need `@OptIn(RawMemoryApi::class)`; see [RawMemoryApi].
 *
 * **Change versions**: `chunk[slot, column] = value` stamps the column's version in the chunk;
 * [changedSince] and [structureChangedSince] ask whether the chunk changed after a version from
 * [TypedTable.markVersion].
 *
 * **Threads**: distinct slots may be read and written from many threads at once (one chunk
 * per coroutine in [processChunks]).
 *
 * @param D the table declaration
 */
@JvmInline
public value class TypedChunk<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val chunk: Chunk,
) {
    /**
     * The core chunk, for Java APIs that take a [Chunk]. It accepts fields of any table
     * (rejected at run time only) and its `column` and `records` are raw memory.
     */
    @RawMemoryApi
    public val core: Chunk get() = chunk

    /** This chunk's position in the table, from 0. */
    public fun index(): Int = chunk.index()

    /** The number of slots in this chunk (the schema's slots per block). */
    public fun slotCount(): Int = chunk.slotCount()

    /** The number of live records in this chunk. O(1). */
    public fun liveCount(): Int = chunk.liveCount()

    /** Whether [slot] holds a live record; throws [IndexOutOfBoundsException] outside the chunk. */
    public fun isLive(slot: Int): Boolean = chunk.isLive(slot)

    /** The first live slot at or after [from] (which may be [slotCount]), or -1; skips holes 64 at a time. */
    public fun nextLive(from: Int): Int = chunk.nextLive(from)

    /**
     * The end of the run of live slots at [from]: the first slot at or after [from] (which may be
     * [slotCount]) that holds no record, or [slotCount]. With [nextLive] it walks the chunk run by
     * run, each run a counted loop; O(1) without holes. Throws [IndexOutOfBoundsException] if
     * [from] is negative.
     */
    public fun nextHole(from: Int): Int = chunk.nextHole(from)

    /** The number of 64-bit words of the live bitmap. */
    public fun liveWordCount(): Int = chunk.liveWordCount()

    /** Bit `b` of [word] is set if slot `word * 64 + b` is live; throws [IndexOutOfBoundsException] out of range. */
    public fun liveBits(word: Int): Long = chunk.liveBits(word)

    /** The handle of the record in [slot]; throws [IllegalArgumentException] for a hole. */
    public fun handle(slot: Int): Handle<D> = Handle(chunk.handle(slot))

    /**
     * Queues the removal of the record in [slot], applied when the last open pass over the table
     * ends (see [TypedTable.removeLater]); any coroutine or thread visiting this chunk may call
     * it. O(1), allocates nothing. Throws as the core `Chunk.removeLater`.
     */
    public fun removeLater(slot: Int): Unit = chunk.removeLater(slot)

    /**
     * Queues an add, applied when the last open pass ends, ordered by this chunk's index: adds
     * queued from the chunks of a `processChunks` pass are applied in chunk order (in the order
     * queued within a chunk) whichever threads ran the chunks, so the new records' handles do
     * not depend on the scheduling. [init] receives the new record's handle to write its fields.
     * Throws as the core `Chunk.addLater`.
     */
    public fun addLater(init: (Handle<D>) -> Unit): Unit = chunk.addLater { init(Handle(it)) }

    /**
     * The zero-copy column of [column] for every slot of this chunk (SOA only), for reading:
     * value `s` at byte `s * column.type.byteSize()`, holes included; read-only (a write throws
     * [IllegalArgumentException]); valid until the table is closed. Take it once per chunk
     * visit. See the core `Chunk.column`.
     *
     * @throws IllegalStateException if the table's layout is AOS (use [records])
     */
    @RawMemoryApi
    public fun column(column: Column<D, *>): MemorySegment = chunk.column(column.field)

    /**
     * The column of [column], for writing: as [column], writable; taking it stamps the column's
     * change version in this chunk ([changedSince]). See the core `Chunk.writableColumn` for
     * what a write to a hole does.
     *
     * @throws IllegalStateException if the table's layout is AOS (use [writableRecords])
     */
    @RawMemoryApi
    public fun writableColumn(column: Column<D, *>): MemorySegment = chunk.writableColumn(column.field)

    /** The whole block's bytes, every slot, holes included, for reading (read-only); valid until the table is closed. */
    @RawMemoryApi
    public fun records(): MemorySegment = chunk.records()

    /** The whole block's bytes, for writing; taking it stamps the change version of every column in this chunk. */
    @RawMemoryApi
    public fun writableRecords(): MemorySegment = chunk.writableRecords()

    /**
     * Whether [column] was written in this chunk after [version] (a version from
     * [TypedTable.markVersion]), by a set, a writable view, or a record added or moved in. O(1).
     * See the core `Table` documentation, Change versions.
     */
    public fun changedSince(column: Column<D, *>, version: Int): Boolean = chunk.changedSince(column.field, version)

    /** Whether records were added to, removed from or moved in this chunk after [version]. O(1). */
    public fun structureChangedSince(version: Int): Boolean = chunk.structureChangedSince(version)

    // @each-type except Handle
    public operator fun get(slot: Int, column: FloatColumn<D>): Float = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: FloatColumn<D>, value: Float): Unit = chunk.set(slot, column.field, value)
    // @end

    /**
     * Calls [action] with every live slot of this chunk, in slot order, in one counted loop from
     * 0 to [slotCount]: in a chunk without holes every slot, in any other the slots whose bit
     * of [liveBits] is set (one word read per 64 slots). The loop to write with [view]s
     * (`chunk.forEachLive { s -> x[s] += vx[s] * dt }`): a loop from 0 over a chunk without
     * holes is the JIT's best case for column access, and the test of holes, the same in every
     * iteration of such a chunk, leaves the loop. The action is inlined once; allocates nothing.
     * Call it in a function of its own per chunk (see the class comment).
     *
     * @throws IllegalStateException if the chunk is used past its pass
     */
    public inline fun forEachLive(action: (slot: Int) -> Unit) {
        val c = chunk
        val slots = c.slotCount()
        val holes = c.liveCount() != slots
        var live = 0L
        for (s in 0 until slots) {
            if (holes) {
                if (s and 63 == 0) live = c.liveBits(s ushr 6)
                if (live and (1L shl s) == 0L) continue
            }
            action(s)
        }
    }

    // @each-type except Handle, Boolean
    /**
     * The values of [column] in this chunk, for reading in a loop (`val vx = chunk.view(VX)`,
     * then `vx[s]`): take it once per chunk, before the loop. No check per access but the
     * chunk's bounds (see [FloatView]), which is what makes the loop as fast as one over the raw
     * column; O(1) to take, nothing allocated once the chunk has made its column view.
     *
     * @throws IllegalStateException if the table's layout is AOS (use `chunk[slot, column]`) or
     *   the chunk is used past its pass
     */
    public fun view(column: FloatColumn<D>): FloatView<D> = FloatView(chunk.column(column.field))

    /**
     * The values of [column] in this chunk, for reading and writing (`val x =
     * chunk.writableView(X)`, then `x[s] += ...`): taking it stamps the column's change version
     * in this chunk once (the core `Chunk.writableColumn`), so take it only in the chunks you
     * write, once per chunk, before the loop. See [WritableFloatView].
     *
     * @throws IllegalStateException if the table's layout is AOS (use `chunk[slot, column]`) or
     *   the chunk is used past its pass
     */
    public fun writableView(column: FloatColumn<D>): WritableFloatView<D> = WritableFloatView(chunk.writableColumn(column.field))
    // @end

    /** `chunk[slot, column]` of a handle column: the handle of table [T] it holds. */
    public operator fun <T : TableDef<T>> get(slot: Int, column: HandleColumn<D, T>): Handle<T> =
        Handle(chunk.get(slot, column.field))

    /** `chunk[slot, column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> set(slot: Int, column: HandleColumn<D, T>, value: Handle<T>): Unit =
        chunk.set(slot, column.field, value.raw)
}
