package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.MappedTable
import dev.bulkdata.storage.OpenedCheckpoint

/**
 * An open table of declaration [D] whose blocks are regions of a file: what [TableDef.open] with
 * a path returns (and `open()` with [TableOptions.file] set, typed [TypedTable]). The core
 * `MappedTable` with typed handles: every member of [TypedTable], and the three only a mapped
 * table has, [checkpoint], [verify] and [openedCheckpoint]. Closing it checkpoints. What a crash
 * keeps and which checkpoint opens: the core `TableBuilder.mapped` and docs/saving-and-mapped-tables.md.
 *
 * @param D the table declaration
 */
public class TypedMappedTable<D : TableDef<D>> internal constructor(
    def: D,
    private val mapped: MappedTable,
) : TypedTable<D>(def, mapped) {
    /**
     * Makes everything written to this table before the call durable (the core
     * `MappedTable.checkpoint`, which says what a crash keeps).
     *
     * @throws java.io.IOException if writing the file fails; it then holds the previous checkpoint
     * @throws IllegalStateException if the table is closed
     */
    @Throws(java.io.IOException::class)
    public fun checkpoint() {
        mapped.checkpoint()
    }

    /**
     * Checks the blocks unchanged since the last checkpoint against their checksums, for a
     * table mapped with [TableOptions.blockChecksums] (the core `MappedTable.verify`). Returns
     * the number of blocks checked.
     *
     * @throws dev.bulkdata.storage.StorageFileException (`CHECKSUM`) naming the first damaged block
     * @throws java.io.IOException if reading the file fails
     * @throws IllegalStateException if the table is closed or has no block checksums
     */
    @Throws(java.io.IOException::class)
    public fun verify(): Int = mapped.verify()

    /** Which checkpoint of its file this table was opened at, and why (the core `MappedTable.openedCheckpoint`). */
    public val openedCheckpoint: OpenedCheckpoint get() = mapped.openedCheckpoint()
}
