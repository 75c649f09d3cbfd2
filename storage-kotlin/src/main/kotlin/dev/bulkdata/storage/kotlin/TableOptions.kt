package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.CheckpointFallback
import dev.bulkdata.storage.schema.HandleLayout
import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.schema.ReuseOrder

/** Which core table a [TableDef] opens. */
public enum class TableKind {
    /** A `dev.bulkdata.storage.BulkTable`: records never move; a hole is reused in [TableOptions.reuseOrder]. */
    BULK,

    /** A `PackedTable`: records kept contiguous, handles valid through moves; never set [TableOptions.reuseOrder]. */
    PACKED,
}

/**
 * The options block of a [TableDef]: `TableDef<Particles>("particles", { layout = RecordLayout.AOS })`. Each option is
 * the core `TableBuilder`'s of that name, with its default. The block runs on the declaration's first use
 * ([TableDef.open], [TableDef.schema]); invalid values, and any exception the block throws, are reported there as an
 * [IllegalArgumentException] naming the table. Not thread-safe (the declaration runs it under its lock).
 */
@TableDsl
public class TableOptions internal constructor() {
    /** How records are arranged in a block: [RecordLayout.SOA] (default) or [RecordLayout.AOS]. */
    public var layout: RecordLayout = RecordLayout.SOA

    /** The table kind; [TableKind.BULK] by default. */
    public var kind: TableKind = TableKind.BULK

    /** The order in which holes are reused; [ReuseOrder.SWEEP] by default. [TableKind.BULK] only. */
    public var reuseOrder: ReuseOrder = ReuseOrder.SWEEP
        set(value) {
            field = value
            reuseOrderSet = true
        }

    @get:JvmSynthetic
    internal var reuseOrderSet: Boolean = false
        private set

    /**
     * How handles split into slot, generation and epoch bits; `null` (the default): the core builder's choice,
     * `HandleLayout.forCapacity(maxCapacity)` with a [maxCapacity].
     */
    public var handleLayout: HandleLayout? = null

    /** The most slots the table may use (live, holes and retired); unlimited by default. */
    public var maxCapacity: Int = Int.MAX_VALUE

    /** A fixed tag, [HandleLayout.MIN_FIXED_TAG] to [HandleLayout.MAX_TAG], never taken automatically; 0: automatic. */
    public var tag: Int = 0

    /** A file to map the table from: [TableDef.open] creates it or reopens its last checkpoint; `null`: in memory. */
    public var file: java.nio.file.Path? = null

    /** Whether a mapped file made for this table keeps a CRC32C per block; reopen a file with what it was made with. */
    public var blockChecksums: Boolean = false

    /** Whether opening a mapped file may take its previous checkpoint. */
    public var checkpointFallback: CheckpointFallback = CheckpointFallback.AFTER_CRASH

    /** Sets [handleLayout] to `HandleLayout.of(slotBits, generationBits)`; throws as that does. */
    public fun handleLayout(slotBits: Int, generationBits: Int) {
        handleLayout = HandleLayout.of(slotBits, generationBits)
    }
}
