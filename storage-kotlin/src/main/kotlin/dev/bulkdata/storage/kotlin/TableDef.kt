package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.BulkTable
import dev.bulkdata.storage.PackedTable
import dev.bulkdata.storage.Schema
import dev.bulkdata.storage.Table

/**
 * Declares a table: its name, options and columns, in the style of an Exposed table object.
 *
 * ```
 * object Particles : TableDef<Particles>("particles", { layout = Layout.SOA }) {
 *     @JvmField val X = float("x")
 *     @JvmField val VX = float("vx")
 *     @JvmField val AGE = int("age")
 * }
 * typealias ParticleId = Handle<Particles>
 *
 * Particles.open().use { table ->
 *     val id: ParticleId = table.add { it[Particles.VX] = 1f }
 * }
 * ```
 *
 * Columns are declared in the object body with [byte], [short], [char], [int], [long],
 * [float], [double] and [boolean], in record order. The core [Schema] is built from them the
 * first time [schema] or [open] is called; every mistake (no columns, a column name used twice,
 * an invalid name, a record larger than a block) is reported there with an
 * [IllegalArgumentException] that says how to fix it, and the call can be repeated after the fix.
 *
 * **Java**: the declaration is a Kotlin `object`, so Java reaches it statically as
 * `Particles.INSTANCE`, its `@JvmField` columns as `Particles.X`, a column's core field as
 * `Particles.X.getField()`, and a table's core [Table] as `Particles.INSTANCE.open().core()`.
 *
 * Thread-safe once built: [schema] is built once under a lock; columns must be declared during
 * the object's construction only.
 *
 * @param D the declaring object itself (`object Particles : TableDef<Particles>(...)`)
 * @param name the table name: a letter or `_` followed by letters, digits, `_`, `.` or `-`
 * @param options the options block, see [TableOptions]
 */
@TableDsl
public abstract class TableDef<D : TableDef<D>>(
    /** The table's name, as in the core schema and in formatted handles. */
    public val name: String,
    options: TableOptions.() -> Unit = {},
) {
    private val columns = ArrayList<Column<D, *>>()
    private val options = TableOptions().apply(options)

    /** The null handle of this table: [Handle.isNull] is true and no table contains it. */
    @Suppress("PropertyName", "VariableNaming")
    public val NULL: Handle<D> get() = Handle(0L)

    /** The chosen options (read-only after construction). */
    public val layout: dev.bulkdata.storage.Layout get() = options.layout

    /** The chosen table kind. */
    public val kind: TableKind get() = options.kind

    /**
     * The core schema, built from the declared columns on first access. O(columns) once, then O(1).
     *
     * @throws IllegalArgumentException if the declaration is invalid; the message says how to
     *   fix it
     */
    public val schema: Schema by lazy { buildSchema() }

    /** Declares a `byte` column named [name]. */
    protected fun byte(name: String): ByteColumn<D> = declare(ByteColumn(this, name))

    /** Declares a `short` column named [name]. */
    protected fun short(name: String): ShortColumn<D> = declare(ShortColumn(this, name))

    /** Declares a `char` column named [name]. */
    protected fun char(name: String): CharColumn<D> = declare(CharColumn(this, name))

    /** Declares an `int` column named [name]. */
    protected fun int(name: String): IntColumn<D> = declare(IntColumn(this, name))

    /** Declares a `long` column named [name]. */
    protected fun long(name: String): LongColumn<D> = declare(LongColumn(this, name))

    /** Declares a `float` column named [name]. */
    protected fun float(name: String): FloatColumn<D> = declare(FloatColumn(this, name))

    /** Declares a `double` column named [name]. */
    protected fun double(name: String): DoubleColumn<D> = declare(DoubleColumn(this, name))

    /** Declares a `boolean` column named [name]. */
    protected fun boolean(name: String): BooleanColumn<D> = declare(BooleanColumn(this, name))

    /** The declared columns, in record order. */
    public fun columns(): List<Column<D, *>> = columns.toList()

    /**
     * Opens a new, empty table of this declaration. It holds no native memory until the first
     * add. Close it (`use { }`) to free its memory at once.
     *
     * @throws IllegalArgumentException if the declaration or an option is invalid
     * @throws IllegalStateException if all 4095 table tags are in use by open tables
     */
    public fun open(): TypedTable<D> {
        @Suppress("UNCHECKED_CAST")
        return TypedTable(this as D, openCore())
    }

    private fun openCore(): Table = when (options.kind) {
        TableKind.STABLE -> BulkTable.builder(schema)
            .reuseOrder(options.reuseOrder)
            .handleLayout(options.handleLayout)
            .maxCapacity(options.maxCapacity)
            .build()
        TableKind.PACKED -> {
            require(!options.reuseOrderSet) {
                "table '$name': a PACKED table has no free list, so reuseOrder does not apply; remove" +
                    " `reuseOrder = ${options.reuseOrder}` or use `kind = TableKind.STABLE`"
            }
            PackedTable.builder(schema)
                .handleLayout(options.handleLayout)
                .maxCapacity(options.maxCapacity)
                .build()
        }
    }

    private fun <C : Column<D, *>> declare(column: C): C {
        check(!schemaBuilt) {
            "table '$name': column '${column.name}' is declared after the schema was built; declare every" +
                " column as a property in the object body, before the first open() or schema access"
        }
        columns += column
        return column
    }

    @Volatile
    private var schemaBuilt = false

    private fun buildSchema(): Schema {
        require(columns.isNotEmpty()) {
            "table '$name' declares no columns; declare at least one in its object body," +
                " e.g. `val x = float(\"x\")`"
        }
        val seen = HashMap<String, Column<D, *>>()
        for (c in columns) {
            val earlier = seen.put(c.name, c)
            require(earlier == null) {
                "table '$name' declares column '${c.name}' twice (${earlier!!.type} and ${c.type});" +
                    " give each column its own name"
            }
        }
        val builder = Schema.builder(name).layout(options.layout)
        for (c in columns) builder.add(c.type, c.name)
        val built = try {
            builder.build()
        } catch (e: IllegalArgumentException) {
            throw IllegalArgumentException(
                "table '$name' cannot be built: ${e.message} (in Kotlin: move some columns to a second" +
                    " TableDef and link the records with a long column holding Handle.raw)",
                e,
            )
        }
        for (c in columns) bind(c, built)
        schemaBuilt = true
        return built
    }

    private fun <F : dev.bulkdata.storage.Field> bind(column: Column<D, F>, schema: Schema) {
        @Suppress("UNCHECKED_CAST")
        column.built = schema.field(column.name) as F
    }

    /** `TableDef(name, columns)`. */
    override fun toString(): String = "TableDef($name, ${columns.joinToString { "${it.name}:${it.type}" }})"
}
