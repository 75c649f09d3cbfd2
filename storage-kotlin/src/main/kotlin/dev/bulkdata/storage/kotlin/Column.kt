package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.Field
import dev.bulkdata.storage.schema.FieldType
import dev.bulkdata.storage.schema.HandleField

/**
 * A column declared in a [TableDef] body, typed by its table [D] and by its value type [F], so `table[handle, column]`
 * and `chunk[slot, column]` only compile for a column of the table's own declaration. The core [Field] behind it,
 * [field], exists once the declaration's schema is built. Java sees a `@JvmField` column as a static field typed by
 * table (`FloatColumn<Particles>`), which a [TypedTable] takes directly. Immutable once built and thread-safe.
 */
public sealed class Column<D : TableDef<D>, F : Field>(
    /** The declaration this column belongs to. */
    @get:JvmName("table")
    public val table: TableDef<D>,
    /** The column's name, unique within its table. */
    @get:JvmName("name")
    public val name: String,
    /** The column's primitive type. */
    @get:JvmName("type")
    public val type: FieldType,
) {
    // Null until built; written once under the declaration's lock before its volatile publication of the schema.
    private var built: F? = null

    @JvmSynthetic
    internal fun bind(field: Field) {
        @Suppress("UNCHECKED_CAST")
        built = field as F
    }

    /** The core field, for the core API; O(1); throws [IllegalArgumentException] if the schema cannot be built. */
    @get:JvmName("field")
    public val field: F
        get() = built ?: run {
            table.schema // builds the schema and fills every column, or throws saying why
            built!!
        }

    /** `table.name:TYPE`, e.g. `particles.x:FLOAT`. */
    override fun toString(): String = "${table.name}.$name:$type"
}

/** Handles of table [T] in table [D], from [TableDef.handle]; core field: a `HandleField` targeting [T]'s name. */
public class HandleColumn<D : TableDef<D>, T : TableDef<T>> internal constructor(
    table: TableDef<D>,
    name: String,
    private val targetType: Class<T>,
) : Column<D, HandleField>(table, name, FieldType.HANDLE) {
    /** [T]'s declaration, initialised on first use; throws [IllegalArgumentException] if [T] is not an `object`. */
    @get:JvmName("target")
    public val target: T get() = declarationOf(targetType)
}

