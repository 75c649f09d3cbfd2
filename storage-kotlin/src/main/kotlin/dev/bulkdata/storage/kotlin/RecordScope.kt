package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk

/**
 * A record visited by [TypedTable.forEach]: `it` in `forEach { it[X] += it[VX] * dt }`, named by its place in the pass,
 * so an access costs a chunk access and no handle check (`it.handle` gives the handle). Valid only in its pass: used in
 * another it throws [IllegalStateException], never reading another record. A `long` at run time.
 */
@JvmInline
public value class Visited<D : TableDef<D>> @PublishedApi internal constructor(
    /** The pass's stamp in the high 32 bits, the record's index in the pass in the low 31. */
    @PublishedApi internal val at: Long,
)

/**
 * The receiver of [TypedTable.forEach]'s action: `visited[column]` (and `= value`) accesses the visited record (`it`, a
 * [Visited]), `handle[column]` and `this[handle, column]` any record by handle as [TypedTable]'s do, for each column
 * type. Kept past its action, its visited-record access throws [IllegalStateException].
 */
@TableDsl
public class RecordScope<D : TableDef<D>> @PublishedApi internal constructor(
    /** The table being visited. */
    public val table: TypedTable<D>,
    stamp: Int,
) {
    private val pass: Long = stamp.toLong() shl 32

    @PublishedApi
    internal val slots: Int = table.core.schema().slotsPerBlock()

    @PublishedApi
    internal var chunk: Chunk? = null

    @PublishedApi
    internal var base: Long = 0L

    /** The record the action runs on and its slot: a slot that is the pass loop's `int` counter lets C2 optimise the access. */
    @PublishedApi
    internal var visitedAt: Long = -1L

    @PublishedApi
    internal var visitedSlot: Int = 0

    @PublishedApi
    internal fun enter(chunk: Chunk) {
        this.chunk = chunk
        this.base = pass or (chunk.index().toLong() * slots)
        this.visitedAt = -1L
    }

    private fun slotHere(at: Long): Int {
        if (at == visitedAt) return visitedSlot
        val offset = at - base
        return if (offset >= 0L && offset < slots) offset.toInt() else -1
    }

    /** The slow path: the handle of [at], a record of an earlier chunk of this pass (throws for another pass). */
    private fun handleOfEarlier(at: Long): Long {
        check(at and PASS_MASK == pass) {
            "a Visited record of table '${table.core.name()}' is valid only in the forEach pass that visited it;" +
                " keep its handle (it.handle) to refer to it later"
        }
        val index = at and INDEX_MASK
        return table.core.iterate().use { it.chunk((index / slots).toInt()).handle((index % slots).toInt()) }
    }

    private fun current(): Chunk = chunk ?: throw IllegalStateException("this RecordScope has not visited a record")

    /** Queues the removal of the visited record until the pass ends ([TypedTable.removeLater]). O(1). */
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

    // @generated
    // from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/RecordScope.kt by codegen/Generate.java: edit the template, not these lines
    public operator fun Visited<D>.get(column: ByteColumn<D>): Byte {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: ByteColumn<D>, value: Byte) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: ByteColumn<D>): Byte = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: ByteColumn<D>, value: Byte) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: ByteColumn<D>): Byte = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: ByteColumn<D>, value: Byte) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: ShortColumn<D>): Short {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: ShortColumn<D>, value: Short) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: ShortColumn<D>): Short = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: ShortColumn<D>, value: Short) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: ShortColumn<D>): Short = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: ShortColumn<D>, value: Short) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: CharColumn<D>): Char {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: CharColumn<D>, value: Char) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: CharColumn<D>): Char = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: CharColumn<D>, value: Char) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: CharColumn<D>): Char = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: CharColumn<D>, value: Char) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: IntColumn<D>): Int {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: IntColumn<D>, value: Int) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: IntColumn<D>): Int = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: IntColumn<D>, value: Int) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: IntColumn<D>): Int = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: IntColumn<D>, value: Int) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: LongColumn<D>): Long {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: LongColumn<D>, value: Long) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: LongColumn<D>): Long = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: LongColumn<D>, value: Long) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: LongColumn<D>): Long = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: LongColumn<D>, value: Long) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: FloatColumn<D>): Float {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: FloatColumn<D>, value: Float) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: DoubleColumn<D>): Double {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: DoubleColumn<D>, value: Double) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: DoubleColumn<D>): Double = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: DoubleColumn<D>, value: Double) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: DoubleColumn<D>): Double = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: DoubleColumn<D>, value: Double) {
        table.core.set(raw, column.field, value)
    }

    public operator fun Visited<D>.get(column: BooleanColumn<D>): Boolean {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: BooleanColumn<D>, value: Boolean) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: BooleanColumn<D>): Boolean = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: BooleanColumn<D>, value: Boolean) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: BooleanColumn<D>): Boolean = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: BooleanColumn<D>, value: Boolean) {
        table.core.set(raw, column.field, value)
    }
    // @end-generated

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

private const val PASS_MASK: Long = -1L shl 32

private const val INDEX_MASK: Long = 0x7fff_ffffL
