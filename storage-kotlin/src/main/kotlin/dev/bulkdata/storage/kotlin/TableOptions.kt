package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.CheckpointFallback
import dev.bulkdata.storage.HandleLayout
import dev.bulkdata.storage.RecordLayout
import dev.bulkdata.storage.ReuseOrder

/** Which core table a [TableDef] opens. */
public enum class TableKind {
    /**
     * A `dev.bulkdata.storage.BulkTable`: records never move, removal leaves a hole that a later
     * add reuses in [TableOptions.reuseOrder].
     */
    BULK,

    /**
     * A `dev.bulkdata.storage.PackedTable`: live records stay contiguous (removal moves the
     * last record into the hole), so iteration touches no holes; handles stay valid through
     * moves. Has no free-list order: setting [TableOptions.reuseOrder] is an error.
     */
    PACKED,
}

/**
 * The options block of a [TableDef]: `TableDef<Particles>("particles", { layout = RecordLayout.AOS })`.
 * Every option has the core's default. The block runs when the declaration is first used
 * ([TableDef.open], [TableDef.schema]), never while the declaration object is constructed;
 * invalid values, and any exception the block throws, are reported there as an
 * [IllegalArgumentException] that names the table and says how to fix it.
 *
 * Not thread-safe; the declaration runs it under its lock and then only reads it.
 */
@TableDsl
public class TableOptions internal constructor() {
    /** How records are arranged in a block: [RecordLayout.SOA] (default) or [RecordLayout.AOS]. */
    public var layout: RecordLayout = RecordLayout.SOA

    /** The table kind; [TableKind.BULK] by default. */
    public var kind: TableKind = TableKind.BULK

    /**
     * The order in which holes are reused (the free-list order); [ReuseOrder.SWEEP] by default.
     * Only for [TableKind.BULK] tables.
     */
    public var reuseOrder: ReuseOrder = ReuseOrder.SWEEP
        set(value) {
            field = value
            reuseOrderSet = true
        }

    @get:JvmSynthetic
    internal var reuseOrderSet: Boolean = false
        private set

    /**
     * How handles split into slot, generation and epoch bits; `null` (the default) lets the core
     * builder choose: [HandleLayout.DEFAULT] without a [maxCapacity], else
     * `HandleLayout.forCapacity(maxCapacity)`, which gives the slot bits the table cannot use to
     * generations and epochs (docs/tables-and-handles.md, "Generation budget").
     */
    public var handleLayout: HandleLayout? = null

    /** The most slots the table may use (live, holes and retired); unlimited by default. */
    public var maxCapacity: Int = Int.MAX_VALUE

    /**
     * A fixed tag, [HandleLayout.MIN_FIXED_TAG] to [HandleLayout.MAX_TAG], for a table that is
     * saved and loaded ([TypedTable.save], [TableDef.load]): automatic tags never take it, so a
     * saved table finds its tag free in a new run. 0 (the default) takes an automatic tag.
     */
    public var tag: Int = 0

    /**
     * A file to map the table from: [TableDef.open] then opens the table whose blocks are
     * regions of this file (created if absent, else reopened at its last checkpoint; the core
     * `TableBuilder.mapped`), and [TypedMappedTable.checkpoint] makes its writes durable. `null` (the
     * default): a table in memory. [TableDef.open] with a path maps another file.
     */
    public var file: java.nio.file.Path? = null

    /**
     * Whether a mapped file made for this table keeps a CRC32C per block (the core
     * `TableBuilder.blockChecksums`): written at [TypedMappedTable.checkpoint], checked when a file
     * closed cleanly is opened and by [TypedMappedTable.verify]. `false` by default; a reopened file
     * must be opened with what it was created with.
     */
    public var blockChecksums: Boolean = false

    /**
     * Whether opening a mapped file may take the checkpoint before its newest one (the core
     * `TableBuilder.checkpointFallback`): [CheckpointFallback.AFTER_CRASH] by default,
     * [CheckpointFallback.NEVER] makes any fallback an error. [TypedMappedTable.openedCheckpoint]
     * says which checkpoint was opened.
     */
    public var checkpointFallback: CheckpointFallback = CheckpointFallback.AFTER_CRASH

    /**
     * Sets [handleLayout] to `HandleLayout.of(slotBits, generationBits)`.
     *
     * @throws IllegalArgumentException if the bits do not fit (the message gives the limits);
     *   [TableDef.open] reports it with the table's name
     */
    public fun handleLayout(slotBits: Int, generationBits: Int) {
        handleLayout = HandleLayout.of(slotBits, generationBits)
    }
}
