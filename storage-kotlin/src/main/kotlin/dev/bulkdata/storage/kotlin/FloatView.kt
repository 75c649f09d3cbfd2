// Generated from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/FloatView.kt by codegen/Generate.java: edit the template, not this file.
package dev.bulkdata.storage.kotlin

import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * The values of one `float` column of one chunk, for reading: `view[slot]`, from
 * [TypedChunk.view], taken once per chunk before the loop. No check per access but the chunk's
 * bounds ([IndexOutOfBoundsException]): a hole reads whatever its bytes are, a view kept past its
 * pass reads the slot's current bytes until the table closes. Inline, so the loop compiles to the
 * loop over the raw column. Guide: docs/kotlin.md, "Coroutines per chunk".
 *
 * @param D the table declaration
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

/**
 * [FloatView] for writing too (`view[slot] = value`), from [TypedChunk.writableView], which stamps
 * the column's change version when taken. Writing a hole is harmless (a reusing add zeroes it).
 *
 * @param D the table declaration
 */
@JvmInline
public value class WritableFloatView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots, the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_FLOAT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a hole's is undefined). */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Float = segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong())

    /** Writes [value] into [slot]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun set(slot: Int, value: Float) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong(), value)
    }
}
