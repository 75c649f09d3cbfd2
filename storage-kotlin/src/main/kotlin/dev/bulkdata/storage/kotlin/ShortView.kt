// Generated from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/FloatView.kt by codegen/Generate.java: edit the template, not this file.
package dev.bulkdata.storage.kotlin

import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * One chunk's `short` column, `view[slot]`, from [TypedChunk.view]; inline, so a loop compiles to the raw column's.
 * Checks only bounds ([IndexOutOfBoundsException]); kept past its pass, it reads current bytes until the table closes.
 */
@JvmInline
public value class ShortView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots, the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_SHORT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a hole's is undefined). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Short = segment.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong())
}

/** [ShortView] for writing too (`view[slot] = value`), from [TypedChunk.writableView]. */
@JvmInline
public value class WritableShortView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots, the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_SHORT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a hole's is undefined). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Short = segment.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong())

    /** Writes [value] into [slot]; writing a hole is harmless (a reusing add zeroes it). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun set(slot: Int, value: Short) {
        segment.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong(), value)
    }
}
