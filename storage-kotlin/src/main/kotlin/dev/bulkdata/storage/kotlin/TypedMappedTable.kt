package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.MappedTable
import dev.bulkdata.storage.schema.OpenedCheckpoint

/**
 * An open table of declaration [D] whose blocks are regions of a file, the core `MappedTable` with typed handles: what
 * [TableDef.open] with a path returns (and `open()` with [TableOptions.file] set, typed [TypedTable]). Closing it
 * checkpoints. What a crash keeps and which checkpoint opens: `TableBuilder.mapped`, docs/saving-and-mapped-tables.md.
 */
public class TypedMappedTable<D : TableDef<D>> internal constructor(
    def: D,
    private val mapped: MappedTable,
) : TypedTable<D>(def, mapped) {
    /** Makes everything written before the call durable (`MappedTable.checkpoint`, which says what a crash keeps). */
    @Throws(java.io.IOException::class)
    public fun checkpoint() {
        mapped.checkpoint()
    }

    /** Checks the blocks against their checksums and returns how many (`MappedTable.verify`). */
    @Throws(java.io.IOException::class)
    public fun verify(): Int = mapped.verify()

    /** Which checkpoint of its file this table was opened at, and why (the core `MappedTable.openedCheckpoint`). */
    public val openedCheckpoint: OpenedCheckpoint get() = mapped.openedCheckpoint()
}
