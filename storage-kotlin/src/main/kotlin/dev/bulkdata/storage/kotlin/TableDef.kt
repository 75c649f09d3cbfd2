package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.BulkTable
import dev.bulkdata.storage.MappedTable
import dev.bulkdata.storage.PackedTable
import dev.bulkdata.storage.schema.Schema
import dev.bulkdata.storage.schema.StorageFileException
import dev.bulkdata.storage.Snapshots
import dev.bulkdata.storage.Table
import dev.bulkdata.storage.TableBuilder
import java.nio.file.Path
import java.util.concurrent.atomic.AtomicReference

private val DECLARATIONS = object : ClassValue<AtomicReference<TableDef<*>?>>() {
    override fun computeValue(type: Class<*>): AtomicReference<TableDef<*>?> = AtomicReference(null)
}

internal fun <T : TableDef<T>> declarationOf(type: Class<T>): T {
    val cell = DECLARATIONS.get(type)
    if (cell.get() == null) Class.forName(type.name, true, type.classLoader)
    return type.cast(cell.get()) ?: throw IllegalArgumentException(
        "${type.name} is not a TableDef object declaration; handle<T>(name) needs T to be an `object`",
    )
}

/**
 * Declares a table: name, options and columns
 * (`object Particles : TableDef<Particles>("particles") { @JvmField val X = float("x") }`), columns in record order.
 * Constructing it only records them; the options block ([TableOptions]) runs and the core [Schema] is built on first
 * use ([open], [schema], [Column.field]), where every mistake throws an [IllegalArgumentException] naming the table and
 * the fix (so do not call them in the object body). Thread-safe once constructed. Guide: docs/kotlin.md.
 * @param D the declaring object itself (`object Particles : TableDef<Particles>(...)`)
 * @param name the table name: a letter or `_` followed by letters, digits, `_`, `.` or `-`
 */
@TableDsl
public abstract class TableDef<D : TableDef<D>>(
    /** The table's name, as in the core schema and in formatted handles. */
    @get:JvmName("name")
    public val name: String,
    options: TableOptions.() -> Unit = {},
) {
    private val optionsBlock = options
    private val columns = ArrayList<Column<D, *>>()
    private val lock = Any()

    init {
        DECLARATIONS.get(javaClass).set(this)
    }

    private var lateColumn: String? = null

    @Volatile
    private var settings: TableOptions? = null

    @Volatile
    private var built: Built? = null

    private class Built(val schema: Schema, val factory: () -> Table, val mapper: (Path) -> MappedTable)

    /** The null handle of this table: [Handle.isNull] is true and no table contains it. */
    @Suppress("PropertyName", "VariableNaming")
    @get:JvmSynthetic // Java's null handle is 0L (Handles.NULL)
    public val NULL: Handle<D> get() = Handle(0L)

    /** The chosen record layout; runs the options block on first use (throws [IllegalArgumentException] as [schema]). */
    @get:JvmName("layout")
    public val layout: dev.bulkdata.storage.schema.RecordLayout get() = settings().layout

    /** The chosen table kind; runs the options block on first use (throws [IllegalArgumentException] as [schema]). */
    @get:JvmName("kind")
    public val kind: TableKind get() = settings().kind

    /** The core schema, built on first access (O(columns) once); an invalid declaration throws [IllegalArgumentException]. */
    @get:JvmName("schema")
    public val schema: Schema get() = resolved().schema

    // @generated
    // from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/TableDef.kt by codegen/Generate.java: edit the template, not these lines
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
    // @end-generated

    /** Declares a column of handles of table [T], the null handle in a new record: `val SOUND = handle<Sounds>("sound")`. */
    protected inline fun <reified T : TableDef<T>> handle(name: String): HandleColumn<D, T> =
        declareHandle(name, T::class.java)

    @PublishedApi
    @JvmSynthetic
    internal fun <T : TableDef<T>> declareHandle(name: String, target: Class<T>): HandleColumn<D, T> =
        declare(HandleColumn(this, name, target))

    /** The declared columns, in record order. */
    public fun columns(): List<Column<D, *>> = synchronized(lock) { columns.toList() }

    /**
     * Opens a new, empty table (no native memory until the first add); with [TableOptions.file], a [TypedMappedTable].
     * @throws IllegalStateException if all automatic table tags are in use by open tables
     * @throws java.io.UncheckedIOException with [TableOptions.file] set, wrapping what `open(file)` throws
     */
    @Suppress("UNCHECKED_CAST")
    public fun open(): TypedTable<D> = typedTableOf(this as D, openCore())

    /**
     * Opens the table mapped from [file] (`TableBuilder.mapped`): created if absent, else reopened at its last
     * checkpoint, handles valid. Give the declaration a fixed [TableOptions.tag].
     */
    @Suppress("UNCHECKED_CAST")
    @Throws(java.io.IOException::class)
    public fun open(file: Path): TypedMappedTable<D> = TypedMappedTable(this as D, resolved().mapper(file))

    /** `Snapshots.load` of a table saved by [TypedTable.save], this kind and schema; handles valid under its tag. */
    @Suppress("UNCHECKED_CAST")
    @Throws(java.io.IOException::class)
    public fun load(path: Path, vararg options: Snapshots.LoadOption): TypedTable<D> {
        val kind = if (this.kind == TableKind.BULK) BulkTable::class.java else PackedTable::class.java
        return typedTableOf(this as D, Snapshots.load(path, kind, schema, *options))
    }

    /** Loads a component table saved with [TypedComponentTable.save] for [entities] (`Snapshots.loadComponents`). */
    @Suppress("UNCHECKED_CAST")
    @Throws(java.io.IOException::class)
    public fun <E : TableDef<E>> loadComponents(path: Path, entities: TypedTable<E>): TypedComponentTable<E, D> =
        TypedComponentTable(this as D, entities, Snapshots.loadComponents(path, entities.core, schema))

    @JvmSynthetic
    internal fun openCore(): Table = try {
        resolved().factory()
    } catch (e: java.io.IOException) {
        throw java.io.UncheckedIOException("table '$name': opening its file failed: ${e.message}", e)
    }

    /**
     * Opens a component table of this declaration for [entities] (`ComponentTable.of`); of the options only [layout]
     * applies. Close it (`use { }`): closing [entities] does not. Throws [IllegalArgumentException] as [open] does.
     */
    @Suppress("UNCHECKED_CAST")
    public fun <E : TableDef<E>> openComponents(entities: TypedTable<E>): TypedComponentTable<E, D> =
        TypedComponentTable(this as D, entities)

    @JvmSynthetic
    internal fun <C : Column<D, *>> declare(column: C): C {
        // Never throws: a column declared too late is reported by the next open() or schema.
        synchronized(lock) {
            if (built != null && lateColumn == null) lateColumn = column.name
            columns += column
        }
        return column
    }

    private fun settings(): TableOptions = settings ?: synchronized(lock) {
        settings ?: runOptions().also { settings = it }
    }

    private fun runOptions(): TableOptions {
        val options = TableOptions()
        try {
            options.optionsBlock()
        } catch (e: Exception) {
            throw IllegalArgumentException(
                "table '$name': its options block threw ${e.javaClass.simpleName}: ${e.message}; fix the" +
                    " options in TableDef(\"$name\", { ... })",
                e,
            )
        }
        require(!(options.kind == TableKind.PACKED && options.reuseOrderSet)) {
            "table '$name': a PACKED table has no free list, so reuseOrder does not apply; remove" +
                " `reuseOrder = ${options.reuseOrder}` or use `kind = TableKind.BULK`"
        }
        return options
    }

    private fun resolved(): Built {
        val done = built ?: synchronized(lock) { built ?: build().also { built = it } }
        val late = lateColumn
        require(late == null) {
            "table '$name': column '$late' is declared after the schema was built (open(), schema or a" +
                " column's field was used in the object body); declare every column as a property of the" +
                " object body and use the table only after the object is initialised"
        }
        return done
    }

    private fun build(): Built {
        val options = settings()
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
        val schema = try {
            val builder = Schema.builder(name).layout(options.layout)
            for (c in columns) {
                if (c is HandleColumn<*, *>) builder.addHandle(c.name, c.target.name) else builder.add(c.type, c.name)
            }
            builder.build()
        } catch (e: IllegalArgumentException) {
            val tooLarge = columns.sumOf { it.type.byteSize().toLong() } > Schema.BLOCK_BYTES
            throw IllegalArgumentException(
                "table '$name' cannot be built: ${e.message}" + if (tooLarge) {
                    " (in Kotlin: move some columns to a second TableDef and link the records with a" +
                        " handle column, handle<Second>(\"name\"))"
                } else {
                    ""
                },
                e,
            )
        }
        val builder = tableBuilder(schema, options)
        for (c in columns) bind(c, schema)
        val file = options.file
        return Built(
            schema,
            if (file == null) { { builder.build() } } else { { builder.mapped(file) } },
            { path -> builder.mapped(path) as MappedTable },
        )
    }

    private fun tableBuilder(schema: Schema, options: TableOptions): TableBuilder<*, *, *> = try {
        when (options.kind) {
            TableKind.BULK -> BulkTable.builder(schema)
                .reuseOrder(options.reuseOrder)
                .let { b -> options.handleLayout?.let { b.handleLayout(it) } ?: b }
                .maxCapacity(options.maxCapacity)
                .blockChecksums(options.blockChecksums)
                .checkpointFallback(options.checkpointFallback)
                .let { if (options.tag != 0) it.tag(options.tag) else it }
            TableKind.PACKED -> PackedTable.builder(schema)
                .let { b -> options.handleLayout?.let { b.handleLayout(it) } ?: b }
                .maxCapacity(options.maxCapacity)
                .blockChecksums(options.blockChecksums)
                .checkpointFallback(options.checkpointFallback)
                .let { if (options.tag != 0) it.tag(options.tag) else it }
        }
    } catch (e: IllegalArgumentException) {
        throw IllegalArgumentException(
            "table '$name': an option is invalid: ${e.message}; fix it in TableDef(\"$name\", { ... })",
            e,
        )
    }

    private fun bind(column: Column<D, *>, schema: Schema) = column.bind(schema.field(column.name))

    override fun toString(): String = "TableDef($name, ${columns().joinToString { "${it.name}:${it.type}" }})"
}
