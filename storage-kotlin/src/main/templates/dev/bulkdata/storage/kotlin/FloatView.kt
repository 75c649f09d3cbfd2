// @types Byte, Short, Char, Int, Long, Float, Double
package dev.bulkdata.storage.kotlin

import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * The values of one `float` column of one chunk of a table declared by [D], for reading:
 * `view[slot]`. Made by [TypedChunk.view] once per chunk visit, before the loop over the slots;
 * read with the slots [TypedChunk.forEachLive] gives.
 *
 * The fast way to read a column in a chunk loop: at run time a view is the chunk's column
 * segment, and `view[slot]` reads the value at `slot * size` of it, so a loop over the slots of
 * a chunk compiles to the loop over the raw column (a chunk without holes, one loop from 0, is
 * the JIT's best case: the bounds checks leave the loop). What it does not check, the slot
 * accessor `chunk[slot, column]` does on every access:
 * - a hole is not refused: it reads whatever the hole's bytes are (no defined value);
 * - the view is not tied to the pass: kept past it, it reads the slot's current bytes until
 *   the table is closed (then it throws [IllegalStateException]); keep handles, not views.
 *
 * A slot outside the chunk throws [IndexOutOfBoundsException]. Distinct slots may be read from
 * many threads at once.
 *
 * `get` and `set` are inline functions, so the caller's code calls the `MemorySegment` access
 * itself, which the JIT always inlines: a wrapper method between them is subject to the JIT's
 * inlining budget, and a loop of nine accesses passed it (the last access a call per record).
 *
 * @param D the table declaration
 */
@JvmInline
public value class FloatView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots: the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_FLOAT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a live slot: a hole has no defined value). Inline: see [FloatView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Float = segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong())
}

/**
 * The values of one `float` column of one chunk, for reading and writing: `view[slot]` and
 * `view[slot] = value`. Made by [TypedChunk.writableView], which stamps the column's change
 * version in the chunk once, when the view is taken (take it only in the chunks you write);
 * writes through the view are not stamped again. Otherwise as [FloatView]: no per-access check
 * but the chunk's bounds, a hole is not refused (writing one is harmless: its bytes belong to
 * no record, and the add that reuses the slot zeroes them), valid until the table is closed.
 *
 * @param D the table declaration
 */
@JvmInline
public value class WritableFloatView<D : TableDef<D>> @PublishedApi internal constructor(
    @PublishedApi internal val segment: MemorySegment,
) {
    /** The number of slots: the chunk's [TypedChunk.slotCount]. */
    public val size: Int get() = (segment.byteSize() / ValueLayout.JAVA_FLOAT_UNALIGNED.byteSize()).toInt()

    /** The value in [slot] (a live slot: a hole has no defined value). Inline: see [FloatView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun get(slot: Int): Float = segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong())

    /** Writes [value] into [slot]. Inline: see [FloatView]. */
    @Suppress("NOTHING_TO_INLINE")
    public inline operator fun set(slot: Int, value: Float) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, slot.toLong(), value)
    }
}
