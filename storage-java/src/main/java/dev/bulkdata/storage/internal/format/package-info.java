/**
 * The file format: snapshots and mapped tables' files, specified in {@code docs/format.md}.
 * {@code FileFormat} holds the byte layout's constants; {@code SnapshotWriter},
 * {@code SnapshotReader} (with {@code MetadataReader} and {@code TableRestore}) write and read
 * snapshots; {@code MappedOpen} opens a mapped table's file and {@code MappedStore} makes its
 * checkpoints.
 *
 * <p>Not exported. The package knows no engine class: it sees a table through a small seam the
 * engine ({@code dev.bulkdata.storage.StoredTables}) implements, {@code StoredTable} and
 * {@code StoredComponents} (a table's {@code TableState}, slot sections and blocks, and how to
 * restore them) and {@code Engine} (make a table of a kind, make the library's exceptions).
 * Blocks go between the file and the tables' own segments without a copy.
 */
package dev.bulkdata.storage.internal.format;
