package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk
import java.lang.foreign.MemorySegment

/**
 * One chunk (16 KiB block) of a table declared by [D]: the core [Chunk] typed by its table, so `chunk[slot, column]`
 * compiles only for a column of [D] and [handle] gives a `Handle<D>`. A value class: at run time the core chunk (boxed
 * where it is a generic type argument, as in [chunkFlow]). Each member is the core `Chunk` method of its name, with its
 * costs, errors and thread rules. `chunk[slot, column]` (and `= value`) check every access; fast loops take a column's
 * values once per chunk, before the loop: [view] (reading) or [writableView] (writing too; taking it stamps the
 * column's change version in this chunk), with [forEachLive]. Valid only while its pass is open (then every method
 * throws [IllegalStateException]): keep handles, not chunks. Guide: docs/kotlin.md, "Coroutines per chunk".
 */
@JvmInline
public value class TypedChunk<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val chunk: Chunk,
) {
    /** The core chunk, for Java APIs that take a [Chunk] (fields of any table compile there). */
    @RawMemoryApi
    public val core: Chunk get() = chunk

    /** The chunk's number: its block's position in the table, from 0 (the core [Chunk.index]). */
    public fun index(): Int = chunk.index()

    /** The number of slots in this chunk (the schema's slots per block). */
    public fun slotCount(): Int = chunk.slotCount()

    /** The number of live records in this chunk. O(1). */
    public fun liveCount(): Int = chunk.liveCount()

    /** Whether [slot] holds a live record; throws [IndexOutOfBoundsException] outside the chunk. */
    public fun isLive(slot: Int): Boolean = chunk.isLive(slot)

    /** The first live slot at or after [from] (which may be [slotCount]), or -1; skips holes 64 at a time. */
    public fun nextLive(from: Int): Int = chunk.nextLive(from)

    /** The first slot at or after [from] that holds no record, or [slotCount]: the end of a run of live slots. */
    public fun nextHole(from: Int): Int = chunk.nextHole(from)

    /** The number of 64-bit words of the live bitmap. */
    public fun liveWordCount(): Int = chunk.liveWordCount()

    /** Bit `b` of [word] is set if slot `word * 64 + b` is live; throws [IndexOutOfBoundsException] out of range. */
    public fun liveBits(word: Int): Long = chunk.liveBits(word)

    /** The handle of the record in [slot]; throws [IllegalArgumentException] for a hole. */
    public fun handle(slot: Int): Handle<D> = Handle(chunk.handle(slot))

    /** Queues the removal of the record in [slot] until the pass ends (the core `Chunk.removeLater`); O(1). */
    public fun removeLater(slot: Int): Unit = chunk.removeLater(slot)

    /** The core `Chunk.addLater`: in this chunk's order whichever thread ran it; [init] writes the record. */
    public fun addLater(init: (Handle<D>) -> Unit): Unit = chunk.addLater { init(Handle(it)) }

    /** The read-only zero-copy column of [column] in this chunk (the core `Chunk.column`; SOA only). */
    @RawMemoryApi
    public fun column(column: Column<D, *>): MemorySegment = chunk.column(column.field)

    /** The column of [column], writable; taking it stamps its change version (the core `Chunk.writableColumn`). */
    @RawMemoryApi
    public fun writableColumn(column: Column<D, *>): MemorySegment = chunk.writableColumn(column.field)

    /** The whole block's bytes, every slot, holes included, for reading (read-only); valid until the table is closed. */
    @RawMemoryApi
    public fun records(): MemorySegment = chunk.records()

    /** The whole block's bytes, for writing; taking it stamps the change version of every column in this chunk. */
    @RawMemoryApi
    public fun writableRecords(): MemorySegment = chunk.writableRecords()

    /** Whether [column] was written in this chunk after [version], from [TypedTable.markVersion]. O(1). */
    public fun changedSince(column: Column<D, *>, version: Int): Boolean = chunk.changedSince(column.field, version)

    /** Whether records were added to, removed from or moved in this chunk after [version]. O(1). */
    public fun structureChangedSince(version: Int): Boolean = chunk.structureChangedSince(version)

    // @generated
    // from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/TypedChunk.kt by codegen/Generate.java: edit the template, not these lines
    public operator fun get(slot: Int, column: ByteColumn<D>): Byte = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: ByteColumn<D>, value: Byte): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: ShortColumn<D>): Short = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: ShortColumn<D>, value: Short): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: CharColumn<D>): Char = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: CharColumn<D>, value: Char): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: IntColumn<D>): Int = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: IntColumn<D>, value: Int): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: LongColumn<D>): Long = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: LongColumn<D>, value: Long): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: FloatColumn<D>): Float = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: FloatColumn<D>, value: Float): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: DoubleColumn<D>): Double = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: DoubleColumn<D>, value: Double): Unit = chunk.set(slot, column.field, value)

    public operator fun get(slot: Int, column: BooleanColumn<D>): Boolean = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: BooleanColumn<D>, value: Boolean): Unit = chunk.set(slot, column.field, value)

    public fun view(column: ByteColumn<D>): ByteView<D> = ByteView(chunk.column(column.field))

    public fun writableView(column: ByteColumn<D>): WritableByteView<D> = WritableByteView(chunk.writableColumn(column.field))

    public fun view(column: ShortColumn<D>): ShortView<D> = ShortView(chunk.column(column.field))

    public fun writableView(column: ShortColumn<D>): WritableShortView<D> = WritableShortView(chunk.writableColumn(column.field))

    public fun view(column: CharColumn<D>): CharView<D> = CharView(chunk.column(column.field))

    public fun writableView(column: CharColumn<D>): WritableCharView<D> = WritableCharView(chunk.writableColumn(column.field))

    public fun view(column: IntColumn<D>): IntView<D> = IntView(chunk.column(column.field))

    public fun writableView(column: IntColumn<D>): WritableIntView<D> = WritableIntView(chunk.writableColumn(column.field))

    public fun view(column: LongColumn<D>): LongView<D> = LongView(chunk.column(column.field))

    public fun writableView(column: LongColumn<D>): WritableLongView<D> = WritableLongView(chunk.writableColumn(column.field))

    public fun view(column: FloatColumn<D>): FloatView<D> = FloatView(chunk.column(column.field))

    public fun writableView(column: FloatColumn<D>): WritableFloatView<D> = WritableFloatView(chunk.writableColumn(column.field))

    public fun view(column: DoubleColumn<D>): DoubleView<D> = DoubleView(chunk.column(column.field))

    public fun writableView(column: DoubleColumn<D>): WritableDoubleView<D> = WritableDoubleView(chunk.writableColumn(column.field))
    // @end-generated

    /**
     * Calls [action] with every live slot in slot order, in one counted loop from 0 to [slotCount] (in a chunk with
     * holes, those whose [liveBits] bit is set): a hole-free chunk's loop is the JIT's best case for [view]s (sample:
     * docs/kotlin.md). Inlined once, allocates nothing; call it in a function of its own per chunk.
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

    /** The handle of table [T] a handle column holds. */
    public operator fun <T : TableDef<T>> get(slot: Int, column: HandleColumn<D, T>): Handle<T> =
        Handle(chunk.get(slot, column.field))

    public operator fun <T : TableDef<T>> set(slot: Int, column: HandleColumn<D, T>, value: Handle<T>): Unit =
        chunk.set(slot, column.field, value.raw)
}
