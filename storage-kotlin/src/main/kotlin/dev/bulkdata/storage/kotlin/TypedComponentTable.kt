package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ComponentTable

/**
 * A dense row of a component table whose records are declared by [C], as a loop or a join
 * hands it out ([TypedComponentTable.forEach], [TypedJoin2.forEach], [TypedJoin3.forEach]):
 * `components[row, column]` reads the component in that row without looking its entity up.
 * `Row<Velocity>` and `Row<Position>` are different types, so a join's rows cannot be mixed up.
 *
 * A row is valid only during the visit that handed it out: rows move when components are
 * added, removed, swept or defragmented, and a kept row would then name another entity's
 * component (only the row count is checked). Keep entity handles instead.
 *
 * An `Int` at run time (a value class), so loops allocate nothing.
 *
 * @param C the component declaration
 * @property index the dense row, from 0
 */
@JvmInline
public value class Row<C : TableDef<C>> @PublishedApi internal constructor(public val index: Int)

/**
 * Optional records of the columns of [C] for the entities of a table declared by [E]: at most
 * one component per entity, keyed by the entity's `Handle<E>` (the core [ComponentTable] typed
 * at both ends). Obtain it from [TableDef.openComponents]; close it with [close] or `use { }`.
 *
 * ```
 * Velocity.openComponents(ships).use { velocities ->
 *     velocities.add(ship)                        // all fields zero
 *     velocities[ship, Velocity.DX] = 2f
 *     if (ship in velocities) { ... }
 *     velocities.forEach { entity, row -> velocities[row, Velocity.DX] *= 0.9f }
 * }
 * ```
 *
 * **Stale components**: removing an entity from its table leaves its component *stale*: it is
 * no longer `in` this table, access by the old handle throws `InvalidHandleException` (STALE),
 * [forEach] and joins skip it, and it keeps its row until the entity's slot is reused by an
 * [add], [removeDead] sweeps it, or [clear].
 *
 * **Typed access**: `components[entity, column]` and `components[entity, column] = value`
 * exist for each of the nine column types (a [HandleColumn]'s values are `Handle<T>`) and read or write the entity's component, as the
 * core `ComponentTable.get` / `set` (O(1): the entity table's handle check, then the row):
 * they throw `InvalidHandleException` for a null, stale or foreign entity handle,
 * [IllegalArgumentException] if the entity has no component here, [IllegalStateException] once
 * closed. `components[row, column]` and `components[row, column] = value` take a [Row] handed
 * out by a loop or join instead (the core `getAt` / `setAt`: O(1), no entity check). A handle
 * of another entity table, a row or a column of another component declaration does not
 * compile. None of them allocates.
 *
 * **Threads and errors**: as the core [ComponentTable]: one writer for structure (add, remove,
 * removeDead, clear, defragment, close); a structural change while a loop or join over this
 * table runs throws [java.util.ConcurrentModificationException]; a failing call leaves the
 * table as it was.
 *
 * @param E the entity table's declaration
 * @param C the component declaration
 */
public class TypedComponentTable<E : TableDef<E>, C : TableDef<C>> private constructor(
    /** The component declaration. */
    @get:JvmName("def")
    public val def: C,
    /** The core component table underneath, for the Java API and for what this class does not wrap. */
    @get:JvmName("core")
    public val core: ComponentTable,
) : GeneratedTypedComponentTableAccessors<E, C>(core), AutoCloseable {
    // The constructors are internal, which the JVM cannot express (see TypedTable): one opens
    // the core table itself, the other (for a loaded table) refuses a core table of another
    // schema or entity table, so the types always match the tables.

    internal constructor(def: C, entities: TypedTable<E>) : this(def, ComponentTable.of(entities.core, def.schema))

    internal constructor(def: C, entities: TypedTable<E>, loaded: ComponentTable) : this(def, loaded) {
        require(loaded.schema() === def.schema && loaded.entities() === entities.core) {
            "component table '${loaded.name()}' was not made from the declaration '${def.name}' for these entities"
        }
    }

    /**
     * Saves this component table to a file, replacing it (the core `Snapshots.save`): save its
     * entity table too, at the same point; [TableDef.loadComponents] gives it back for the
     * loaded entity table, with every entity's component.
     *
     * @throws java.io.IOException if writing fails; an earlier file at [path] is left as it was
     * @throws IllegalStateException if the table is closed
     */
    @Throws(java.io.IOException::class)
    public fun save(path: java.nio.file.Path) {
        dev.bulkdata.storage.Snapshots.save(core, path)
    }

    /** The number of components, stale ones included until they are swept. O(1); throws if closed. */
    @get:JvmName("size")
    public val size: Int get() = core.size()

    /** Whether [close] has been called. */
    public val isClosed: Boolean get() = core.isClosed

    /**
     * Gives [entity] a component, all fields zero (taking over the stale component of a removed
     * entity in the same slot, if any). O(1).
     *
     * @throws dev.bulkdata.storage.InvalidHandleException if the entity handle is null, stale
     *   or foreign
     * @throws IllegalArgumentException if the entity already has a component here
     * @throws java.util.ConcurrentModificationException if a loop or join over this table runs
     * @throws IllegalStateException if this table or the entity table is closed
     */
    public fun add(entity: Handle<E>) {
        core.add(entity.raw)
    }

    /** `entity in components`: whether [entity] is live and has a component here. O(1); never throws. */
    public operator fun contains(entity: Handle<E>): Boolean = core.contains(entity.raw)

    /**
     * Removes [entity]'s component; the last row moves into its row. O(fields).
     *
     * @throws dev.bulkdata.storage.InvalidHandleException if the entity handle is null, stale
     *   or foreign (a removed entity's stale component goes with [removeDead])
     * @throws IllegalArgumentException if the entity has no component here
     * @throws java.util.ConcurrentModificationException if a loop or join over this table runs
     * @throws IllegalStateException if this table or the entity table is closed
     */
    public fun remove(entity: Handle<E>): Unit = core.remove(entity.raw)

    /**
     * Removes [entity]'s component once no loop or join over this table (or its group) runs:
     * queued inside one, applied when it ends; at once otherwise. Checked now; throws as the
     * core `ComponentTable.removeLater`.
     */
    public fun removeLater(entity: Handle<E>): Unit = core.removeLater(entity.raw)

    /**
     * Gives [entity] a component once no loop or join over this table (or its group) runs, [init]
     * then writing its fields: queued inside one, applied when it ends (after the queued
     * removals); at once otherwise. Throws as the core `ComponentTable.addLater`.
     */
    public fun addLater(entity: Handle<E>, init: (Handle<E>) -> Unit): Unit =
        core.addLater(entity.raw) { init(Handle(it)) }

    /**
     * Removes every stale component (of an entity removed from its table) and returns how many.
     * O(size). Throws as [remove] for a running loop or a closed table.
     */
    public fun removeDead(): Int = core.removeDead()

    /** Removes every component. O(size). Throws as [remove] for a running loop or a closed table. */
    public fun clear(): Unit = core.clear()

    /** Removes every component: the same as [clear], by the name the entity table's reset has. */
    public fun reset(): Unit = core.reset()

    /**
     * Moves rows toward entity order (the entity table's slot order), at most [maxSwaps] swaps
     * of neighbouring rows per call, so that loops and joins over several component tables
     * walk memory in the same order; returns the swaps made. After a complete pass, calls
     * return 0 at once until a component is added or removed. No entity handle is affected.
     * Allocates nothing.
     *
     * @throws IllegalArgumentException if [maxSwaps] is negative
     * @throws java.util.ConcurrentModificationException if a loop or join over this table runs
     * @throws IllegalStateException if this table is closed
     */
    public fun defragment(maxSwaps: Long): Long = core.defragment(maxSwaps)

    /** Frees the native memory. Idempotent; the entity table is not touched. */
    override fun close(): Unit = core.close()

    /**
     * Calls [action] for every component whose entity is live, in row order, with the entity
     * and the component's [Row]: `forEach { entity, row -> components[row, X] += 1f }`. Stale
     * components are skipped; structural changes of this table from [action] throw
     * [java.util.ConcurrentModificationException] (removing entities from their table is
     * allowed). Inlined into one core visitor per call; nothing is allocated per component.
     *
     * @throws IllegalStateException if this table is closed
     */
    public inline fun forEach(crossinline action: (entity: Handle<E>, row: Row<C>) -> Unit) {
        core.forEach { entity, row -> action(Handle(entity), Row(row)) }
    }

    // The typed get and set of the other column types: GeneratedTypedComponentTableAccessors (a template).

    /** `components[entity, column]` of a handle column: the handle of table [T] it holds. */
    public operator fun <T : TableDef<T>> get(entity: Handle<E>, column: HandleColumn<C, T>): Handle<T> =
        Handle(core.get(entity.raw, column.field))

    /** `components[entity, column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> set(entity: Handle<E>, column: HandleColumn<C, T>, value: Handle<T>): Unit =
        core.set(entity.raw, column.field, value.raw)

    /** `components[row, column]` of a handle column. */
    public operator fun <T : TableDef<T>> get(row: Row<C>, column: HandleColumn<C, T>): Handle<T> =
        Handle(core.getAt(row.index, column.field))

    /** `components[row, column] = value` of a handle column. */
    public operator fun <T : TableDef<T>> set(row: Row<C>, column: HandleColumn<C, T>, value: Handle<T>): Unit =
        core.setAt(row.index, column.field, value.raw)

    /** `TypedComponentTable(name of entities)`. */
    override fun toString(): String = "Typed$core"
}
