package dev.bulkdata.storage.kotlin

/**
 * Marks the scopes of the table DSL ([TableDef] bodies, [TableOptions] blocks and the [TypedTable] receiver of
 * `add { }` / `forEach { }` lambdas), so an inner block cannot call an outer block's members by accident.
 */
@DslMarker
@Target(AnnotationTarget.CLASS, AnnotationTarget.TYPE)
public annotation class TableDsl
