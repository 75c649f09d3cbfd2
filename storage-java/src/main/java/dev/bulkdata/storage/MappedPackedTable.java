package dev.bulkdata.storage;

/**
 * A {@link PackedTable} whose blocks are regions of a file: what {@link TableBuilder#mapped(java.nio.file.Path)
 * PackedTable.builder(schema).mapped(path)} returns; see {@link MappedTable} for the file's contract.
 */
public sealed interface MappedPackedTable extends PackedTable, MappedTable permits MappedPackedTableImpl {
}
