/**
 * Tables of fixed-size records in 16 KiB native blocks, referenced by 64-bit handles that detect stale and foreign use:
 * the whole public API of bulkdata's core, and (package-private) the engine behind it.
 *
 * <p>Start with a {@link dev.bulkdata.storage.schema.Schema} (the record's fields and their
 * {@link dev.bulkdata.storage.schema.RecordLayout}), open a {@link dev.bulkdata.storage.BulkTable} (stable slots, holes
 * reused) or a {@link dev.bulkdata.storage.PackedTable} (dense rows) on it, and keep the {@code long} handles that
 * {@code add()} returns. Every operation both kinds share is on {@link dev.bulkdata.storage.Table}: typed access by
 * handle, chunk-by-chunk iteration ({@link dev.bulkdata.storage.Chunk}, {@link dev.bulkdata.storage.ChunkIteration}),
 * change versions ({@link dev.bulkdata.storage.ChangeFilter}) and statistics ({@link dev.bulkdata.storage.TableStats}).
 * Relations between tables are {@link dev.bulkdata.storage.schema.HandleField}s, {@link dev.bulkdata.storage.ComponentTable}s
 * and {@link dev.bulkdata.storage.Join}s; {@link dev.bulkdata.storage.Snapshots} saves and loads tables, and a table
 * opened on a file is kept in it with crash-safe checkpoints.
 *
 * <p>Misuse is reported with {@link dev.bulkdata.storage.schema.InvalidHandleException} (a handle that is not live in the
 * table), {@link dev.bulkdata.storage.schema.CapacityExceededException} (slot space or memory used up),
 * {@link dev.bulkdata.storage.schema.StorageFileException} (a file that cannot be read),
 * {@link java.util.ConcurrentModificationException} (a second writer, or a structural change during an iteration) and
 * {@link IllegalStateException} (a closed table). One thread at a time changes a table's structure (add, remove, clear,
 * close); fields of distinct records may be read and written from many threads at once, which is how chunks are
 * processed in parallel (the guide "Errors and threads" has the rules).
 *
 * <p>The package-private classes and the non-exported {@code dev.bulkdata.storage.internal} packages are the engine;
 * the repository's ARCHITECTURE.md maps them for maintainers.
 */
package dev.bulkdata.storage;
