package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ComponentTable

/**
 * Generated from a template: the typed get and set of [TypedComponentTable], by entity and by
 * [Row], for each column type but [HandleColumn] (`components[entity, column]`,
 * `components[row, column]` and their `= value` forms); what they check, cost and throw is
 * [TypedComponentTable]'s Typed access. Every other member of a component table is declared in
 * [TypedComponentTable], the only subclass.
 *
 * @param E the entity table's declaration
 * @param C the component declaration
 */
public sealed class GeneratedTypedComponentTableAccessors<E : TableDef<E>, C : TableDef<C>>(
    /** The core component table underneath ([TypedComponentTable.core]). */
    private val core: ComponentTable,
) {
    // @each-type except Handle
    public operator fun get(entity: Handle<E>, column: FloatColumn<C>): Float = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: FloatColumn<C>, value: Float): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: FloatColumn<C>): Float = core.getAt(row.index, column.field)

    public operator fun set(row: Row<C>, column: FloatColumn<C>, value: Float): Unit =
        core.setAt(row.index, column.field, value)
    // @end
}
