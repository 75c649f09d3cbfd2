package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.StorageFileException;

import java.io.IOException;

/**
 * A table whose blocks are regions of a mapped file ({@link TableBuilder#mapped(java.nio.file.Path) mapped(path)}), a
 * {@link MappedBulkTable} or {@link MappedPackedTable}: a table of its kind that alone can make its file durable
 * ({@link #checkpoint()}, {@link #verify()}, {@link #openedCheckpoint()}); {@link #close()} checkpoints, unmaps and
 * unlocks. Crashes, reopening and schema changes: {@link TableBuilder#mapped(java.nio.file.Path)}. Threads and errors
 * as {@link Table}. Guide: docs/saving-and-mapped-tables.md.
 */
public sealed interface MappedTable extends Table permits MappedBulkTable, MappedPackedTable {
    /**
     * Makes everything written before this call durable: after a crash the file reopens to this structure (handles,
     * generations, free list, tag) and every record as written, unless written again later
     * ({@link TableBuilder#mapped}). Incremental: O(slots) plus the pages written since the last checkpoint. Holds the
     * iteration guard; other threads' field writes meanwhile may or may not be covered.
     *
     * @throws java.io.IOException if writing or forcing the file fails; the file keeps the previous checkpoint
     * @throws IllegalStateException if the table is corrupt
     */
    void checkpoint() throws IOException;

    /**
     * Checks every block unchanged since the last checkpoint (by the change versions) against the CRC32C it stored
     * ({@link TableBuilder#blockChecksums(boolean)}); changed blocks, and all after a crash, wait for the next
     * checkpoint. A writable view kept across a checkpoint is not seen by the versions and reports damage: take views
     * again after one. O(bytes checked). Holds the iteration guard; call it while no other thread writes the table.
     *
     * @return the number of blocks checked
     * @throws StorageFileException ({@code CHECKSUM}) naming the first block whose bytes no longer match its
     *     checksum: the file was changed by something other than this table
     * @throws java.io.IOException if reading the file fails
     * @throws IllegalStateException if its file has no block checksums
     */
    int verify() throws IOException;

    /** {@return which checkpoint this table was opened at, and why} O(1); answers also after {@link #close()}. */
    OpenedCheckpoint openedCheckpoint();
}
