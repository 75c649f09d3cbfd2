package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ComponentTable

/**
 * A dense row of a component table declared by [C], as a loop or a join hands it out: `components[row, column]` reads
 * that row's component without looking its entity up, and a `Row<Velocity>` is no `Row<Position>`. Valid only during
 * its visit (rows move; keep entity handles instead). An `Int` at run time.
 * @property value the dense row, from 0
 */
@JvmInline
public value class Row<C : TableDef<C>> @PublishedApi internal constructor(public val value: Int)

/**
 * Optional records of the columns of [C] for the entities of an [E] table: at most one component per entity, keyed by
 * `Handle<E>` (the core [ComponentTable] typed at both ends), from [TableDef.openComponents]. An entity removed from
 * its table leaves its component stale: not `in` the table, skipped by loops and joins, its row kept until the slot is
 * reused, [removeDead] or [clear]. `components[entity, column]` and `= value` are the core `get`/`set` by entity,
 * `components[row, column]` the core `getAt`/`setAt` by [Row]; none allocates. Each member is the core `ComponentTable`
 * method of its name, with its costs, errors and thread rules. Guide: docs/kotlin.md, "Components and joins".
 */
public class TypedComponentTable<E : TableDef<E>, C : TableDef<C>> private constructor(
    /** The component declaration. */
    @get:JvmName("def")
    public val def: C,
    /** The core component table underneath, for the Java API and for what this class does not wrap. */
    @get:JvmName("core")
    public val core: ComponentTable,
) : AutoCloseable {

    internal constructor(def: C, entities: TypedTable<E>) : this(def, ComponentTable.of(entities.core, def.schema))

    internal constructor(def: C, entities: TypedTable<E>, loaded: ComponentTable) : this(def, loaded) {
        require(loaded.schema() === def.schema && loaded.entities() === entities.core) {
            "component table '${loaded.name()}' was not made from the declaration '${def.name}' for these entities"
        }
    }

    /** `Snapshots.save`; [TableDef.loadComponents] loads it for its entity table saved and loaded at the same point. */
    @Throws(java.io.IOException::class)
    public fun save(path: java.nio.file.Path) {
        dev.bulkdata.storage.Snapshots.save(core, path)
    }

    /** The number of components, stale ones included until they are swept. */
    @get:JvmName("size")
    public val size: Int get() = core.size()

    /** Whether [close] has been called. */
    public val isClosed: Boolean get() = core.isClosed

    /** Gives [entity] a component, all fields zero. */
    public fun add(entity: Handle<E>) {
        core.add(entity.raw)
    }

    /** `entity in components`: whether [entity] is live and has a component here. O(1); never throws. */
    public operator fun contains(entity: Handle<E>): Boolean = core.contains(entity.raw)

    /** Removes [entity]'s component; the last row moves into its row. */
    public fun remove(entity: Handle<E>): Unit = core.remove(entity.raw)

    /** Removes [entity]'s component once no loop or join over it runs. */
    public fun removeLater(entity: Handle<E>): Unit = core.removeLater(entity.raw)

    /** Gives [entity] a component once no loop or join over it runs, [init] writing its fields. */
    public fun addLater(entity: Handle<E>, init: (Handle<E>) -> Unit): Unit =
        core.addLater(entity.raw) { init(Handle(it)) }

    /** Removes every stale component and returns how many. */
    public fun removeDead(): Int = core.removeDead()

    /** Removes every component. */
    public fun clear(): Unit = core.clear()

    /** Removes every component: the same as [clear], by the name the entity table's reset has. */
    public fun reset(): Unit = core.reset()

    /** Moves rows toward entity order, so joins walk memory in order: at most [maxSwaps] swaps, returned. */
    public fun defragment(maxSwaps: Long): Long = core.defragment(maxSwaps)

    /** Frees the native memory. Idempotent; the entity table is not touched. */
    override fun close(): Unit = core.close()

    /** Calls [action] with each live entity and its [Row], in row order; allocates nothing per component. */
    public inline fun forEach(crossinline action: (entity: Handle<E>, row: Row<C>) -> Unit) {
        core.forEach { entity, row -> action(Handle(entity), Row(row)) }
    }

    // @generated
    // from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/TypedComponentTable.kt by codegen/Generate.java: edit the template, not these lines
    public operator fun get(entity: Handle<E>, column: ByteColumn<C>): Byte = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: ByteColumn<C>, value: Byte): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: ByteColumn<C>): Byte = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: ByteColumn<C>, value: Byte): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: ShortColumn<C>): Short = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: ShortColumn<C>, value: Short): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: ShortColumn<C>): Short = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: ShortColumn<C>, value: Short): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: CharColumn<C>): Char = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: CharColumn<C>, value: Char): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: CharColumn<C>): Char = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: CharColumn<C>, value: Char): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: IntColumn<C>): Int = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: IntColumn<C>, value: Int): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: IntColumn<C>): Int = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: IntColumn<C>, value: Int): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: LongColumn<C>): Long = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: LongColumn<C>, value: Long): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: LongColumn<C>): Long = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: LongColumn<C>, value: Long): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: FloatColumn<C>): Float = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: FloatColumn<C>, value: Float): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: FloatColumn<C>): Float = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: FloatColumn<C>, value: Float): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: DoubleColumn<C>): Double = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: DoubleColumn<C>, value: Double): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: DoubleColumn<C>): Double = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: DoubleColumn<C>, value: Double): Unit =
        core.setAt(row.value, column.field, value)

    public operator fun get(entity: Handle<E>, column: BooleanColumn<C>): Boolean = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: BooleanColumn<C>, value: Boolean): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: BooleanColumn<C>): Boolean = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: BooleanColumn<C>, value: Boolean): Unit =
        core.setAt(row.value, column.field, value)
    // @end-generated

    /** `components[entity, column]` of a handle column: the handle of table [T] it holds. */
    public operator fun <T : TableDef<T>> get(entity: Handle<E>, column: HandleColumn<C, T>): Handle<T> =
        Handle(core.get(entity.raw, column.field))

    /** `components[entity, column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> set(entity: Handle<E>, column: HandleColumn<C, T>, value: Handle<T>): Unit =
        core.set(entity.raw, column.field, value.raw)

    /** `components[row, column]` of a handle column. */
    public operator fun <T : TableDef<T>> get(row: Row<C>, column: HandleColumn<C, T>): Handle<T> =
        Handle(core.getAt(row.value, column.field))

    /** `components[row, column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> set(row: Row<C>, column: HandleColumn<C, T>, value: Handle<T>): Unit =
        core.setAt(row.value, column.field, value.raw)

    /** `TypedComponentTable(name of entities)`. */
    override fun toString(): String = "Typed$core"
}
