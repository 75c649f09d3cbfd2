/**
 * The file format: snapshots and mapped tables' files, specified in {@code docs/format.md}. {@code FileFormat} holds
 * the byte layout's constants; {@code SnapshotWriter}, {@code SnapshotReader} (with {@code MetadataReader} and
 * {@code TableRestore}) write and read snapshots; {@code MappedOpen} opens a mapped table's file and
 * {@code MappedStore} makes its checkpoints.
 *
 * <p>Not exported. The package knows no engine class: it sees a table through the seam the engine
 * ({@code dev.bulkdata.storage.StoredTables}) implements, {@code StoredTable}, {@code StoredComponents} and
 * {@code Engine}. Blocks go between the file and the tables' own segments without a copy.
 */
package dev.bulkdata.storage.internal.format;
