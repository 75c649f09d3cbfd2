// @types Byte, Short, Char, Int, Long, Float, Double
package dev.bulkdata.storage.kotlin

import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * One chunk's `float` column, `view[slot]`, from [TypedChunk.view]; inline, so a loop compiles to the raw column's.
 * Checks only bounds ([IndexOutOfBoundsException]); kept past its pass, it reads current bytes until the table closes.
 */
@JvmInline
public value class FloatView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots, the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_FLOAT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a hole's is undefined). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Float = segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong())
}

/** [FloatView] for writing too (`view[slot] = value`), from [TypedChunk.writableView]. */
@JvmInline
public value class WritableFloatView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots, the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_FLOAT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a hole's is undefined). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Float = segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong())

    /** Writes [value] into [slot]; writing a hole is harmless (a reusing add zeroes it). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun set(slot: Int, value: Float) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong(), value)
    }
}
