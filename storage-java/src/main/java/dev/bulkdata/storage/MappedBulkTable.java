package dev.bulkdata.storage;

/**
 * A {@link BulkTable} whose blocks are regions of a file: what {@link TableBuilder#mapped(java.nio.file.Path)
 * BulkTable.builder(schema).mapped(path)} returns; see {@link MappedTable} for the file's contract.
 */
public sealed interface MappedBulkTable extends BulkTable, MappedTable permits MappedBulkTableImpl {
}
