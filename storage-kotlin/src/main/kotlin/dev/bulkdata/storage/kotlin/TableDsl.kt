package dev.bulkdata.storage.kotlin

/** Marks DSL scopes ([TableDef], [TableOptions], [TypedTable]): inner blocks cannot implicitly call outer members. */
@DslMarker
@Target(AnnotationTarget.CLASS, AnnotationTarget.TYPE)
public annotation class TableDsl
