// Generated from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/FloatView.kt by codegen/Generate.java: edit the template, not this file.
package dev.bulkdata.storage.kotlin

import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * The values of one `short` column of one chunk, for reading: `view[slot]`, from
 * [TypedChunk.view], taken once per chunk before the loop over [TypedChunk.forEachLive]'s slots.
 * No check per access but the chunk's bounds ([IndexOutOfBoundsException]): a hole reads whatever
 * its bytes are, and a view kept past its pass reads the slot's current bytes until the table
 * closes. `get` is inline, so the loop compiles to the loop over the raw column. Guide:
 * docs/kotlin.md, "Coroutines per chunk".
 *
 * @param D the table declaration
 */
@JvmInline
public value class ShortView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots: the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_SHORT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a live slot: a hole has no defined value). Inline: see [ShortView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Short = segment.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong())
}

/**
 * The values of one `short` column of one chunk, for reading and writing: `view[slot]` and
 * `view[slot] = value`, from [TypedChunk.writableView], which stamps the column's change version
 * in the chunk when it is taken (take it only in the chunks you write). Otherwise as [ShortView];
 * writing a hole is harmless (the add that reuses the slot zeroes it).
 *
 * @param D the table declaration
 */
@JvmInline
public value class WritableShortView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots: the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_SHORT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a live slot: a hole has no defined value). Inline: see [ShortView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Short = segment.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong())

    /** Writes [value] into [slot]. Inline: see [ShortView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun set(slot: Int, value: Short) {
        segment.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, slot.toLong(), value)
    }
}
