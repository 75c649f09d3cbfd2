package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Join

/**
 * A join of two component tables of the entities of [E]: visits every live entity that has a component in both, once,
 * with its [Row] in each (the core [Join] with typed rows). Make it once ([join]), run it every frame. Costs, errors
 * and threads are the core [Join]'s: a run follows the smallest table's row order, never joins a stale component, and
 * refuses structural changes of its tables while it runs (removing entities is allowed). One run at a time per join.
 */
public class TypedJoin2<E : TableDef<E>, A : TableDef<A>, B : TableDef<B>> internal constructor(
    a: TypedComponentTable<E, A>,
    b: TypedComponentTable<E, B>,
) {
    /** The core join underneath. */
    @get:JvmName("core")
    public val core: Join = Join.of(a.core, b.core)

    /**
     * Calls [action] per entity in both tables with its rows; returns the visit count, allocating nothing per entity.
     */
    public inline fun forEach(crossinline action: (entity: Handle<E>, a: Row<A>, b: Row<B>) -> Unit): Int =
        core.forEach { entity, rows -> action(Handle(entity), Row(rows[0]), Row(rows[1])) }

    /** As the core join's. */
    override fun toString(): String = core.toString()
}

/** A join of three component tables of the entities of [E]; as [TypedJoin2] with a third row. */
public class TypedJoin3<E : TableDef<E>, A : TableDef<A>, B : TableDef<B>, C : TableDef<C>> internal constructor(
    a: TypedComponentTable<E, A>,
    b: TypedComponentTable<E, B>,
    c: TypedComponentTable<E, C>,
) {
    /** The core join underneath. */
    @get:JvmName("core")
    public val core: Join = Join.of(a.core, b.core, c.core)

    /** As [TypedJoin2.forEach], with the third row. */
    public inline fun forEach(
        crossinline action: (entity: Handle<E>, a: Row<A>, b: Row<B>, c: Row<C>) -> Unit,
    ): Int = core.forEach { entity, rows -> action(Handle(entity), Row(rows[0]), Row(rows[1]), Row(rows[2])) }

    /** As the core join's. */
    override fun toString(): String = core.toString()
}

/** The join ([TypedJoin2]) of [a] and [b], of the same open entity table (else [IllegalArgumentException]). */
public fun <E : TableDef<E>, A : TableDef<A>, B : TableDef<B>> join(
    a: TypedComponentTable<E, A>,
    b: TypedComponentTable<E, B>,
): TypedJoin2<E, A, B> = TypedJoin2(a, b)

/** The join of [a], [b] and [c], as [join] of two; throws [IllegalArgumentException] as it does. */
public fun <E : TableDef<E>, A : TableDef<A>, B : TableDef<B>, C : TableDef<C>> join(
    a: TypedComponentTable<E, A>,
    b: TypedComponentTable<E, B>,
    c: TypedComponentTable<E, C>,
): TypedJoin3<E, A, B, C> = TypedJoin3(a, b, c)
