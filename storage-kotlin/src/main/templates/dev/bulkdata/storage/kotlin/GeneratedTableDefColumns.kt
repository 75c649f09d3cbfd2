package dev.bulkdata.storage.kotlin

/**
 * Generated from a template: the functions that declare a column of each type but handles
 * ([byte], [short], [char], [int], [long], [float], [double], [boolean]), called in the body of
 * a declaration. Every other member of a declaration, [TableDef.handle] included, is declared
 * in [TableDef], the only direct subclass.
 *
 * @param D the declaring object itself
 */
public sealed class GeneratedTableDefColumns<D : TableDef<D>> {
    /** Adds [column] to the declaration (`TableDef.declare`) and returns it. */
    @JvmSynthetic
    internal abstract fun <C : Column<D, *>> declare(column: C): C

    /** The declaration itself, for a new column: [TableDef] is the only direct subclass. */
    private val def: TableDef<D> get() = this as TableDef<D>

    // @each-type except Handle
    /** Declares a `float` column named [name]. */
    protected fun float(name: String): FloatColumn<D> = declare(FloatColumn(def, name))
    // @end
}
