package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Chunk

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: ByteColumn<*>): Byte = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: ByteColumn<*>, value: Byte): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: ShortColumn<*>): Short = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: ShortColumn<*>, value: Short): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: CharColumn<*>): Char = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: CharColumn<*>, value: Char): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: IntColumn<*>): Int = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: IntColumn<*>, value: Int): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: LongColumn<*>): Long = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: LongColumn<*>, value: Long): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: FloatColumn<*>): Float = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: FloatColumn<*>, value: Float): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: DoubleColumn<*>): Double = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: DoubleColumn<*>, value: Double): Unit = set(slot, column.field, value)

/** `chunk[slot, column]`: reads [column] of the live record in [slot]; as `Chunk.get`. */
public operator fun Chunk.get(slot: Int, column: BooleanColumn<*>): Boolean = get(slot, column.field)

/** `chunk[slot, column] = value`: writes [column] of the live record in [slot]; as `Chunk.set`. */
public operator fun Chunk.set(slot: Int, column: BooleanColumn<*>, value: Boolean): Unit = set(slot, column.field, value)
