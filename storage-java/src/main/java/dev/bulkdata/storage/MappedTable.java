package dev.bulkdata.storage;

import java.io.IOException;

/**
 * A table whose blocks are regions of a file, mapped into memory: what a builder's
 * {@link TableBuilder#mapped(java.nio.file.Path) mapped(path)} returns, as a
 * {@link MappedBulkTable} or a {@link MappedPackedTable}. It is a table of its kind in every
 * way, and it alone has a file to make durable: {@link #checkpoint()}, {@link #verify()} and
 * {@link #openedCheckpoint()}. {@link #close()} checkpoints, then unmaps and unlocks the file.
 * What a reopened file holds after a crash, which checkpoint opens and what a schema change does
 * are in {@link TableBuilder#mapped(java.nio.file.Path)} and the guide
 * (docs/saving-and-mapped-tables.md).
 *
 * <p>Threads and errors: as {@link Table}; {@code checkpoint} and {@code verify} hold the
 * table's iteration guard while they run.
 */
public sealed interface MappedTable extends Table permits MappedBulkTable, MappedPackedTable {
    /**
     * Makes everything written to a mapped table before this call durable: a crash of the
     * process or the machine after it returns reopens the file to exactly this table's
     * structure (live handles, generations, free list, tag) and every record as written before
     * the call, unless written again later (see {@link TableBuilder#mapped} for what a
     * reopened file shows of writes after its last checkpoint). Incremental: it forces the
     * blocks' pages written since the last checkpoint, then builds the metadata in memory
     * (O(slots): 4 bytes per slot, 8 in a {@code PackedTable}, plus its rows' back-links) and
     * writes and forces only its 4 KiB pages that differ from what the file holds (field writes
     * change none; each added or removed record a few). Holds the
     * table's iteration guard meanwhile, like {@link Snapshots#save}: structural changes from
     * other threads throw {@link java.util.ConcurrentModificationException}; field writes from
     * other threads during the call may or may not be covered.
     *
     * @throws java.io.IOException if writing or forcing the file fails; the file then still holds the
     *     previous checkpoint
     * @throws IllegalStateException if the table is closed or corrupt
     */
    void checkpoint() throws IOException;

    /**
     * Checks the blocks of a mapped table opened with
     * {@link TableBuilder#blockChecksums(boolean) block checksums} against the CRC32C the last
     * checkpoint stored for each: every block not changed since that checkpoint (by the change
     * versions: a write through the table's API, a writable view taken, an add, removal or
     * move). A block changed since is skipped, its checksum is the next checkpoint's; so is
     * every block after an open that found the table not closed (a crash), until the next
     * checkpoint. A write through a writable view taken before the last checkpoint and kept
     * after it is not seen by the versions and is reported as damage: take views again after
     * a checkpoint. O(bytes of the blocks checked). Holds the table's iteration guard, like
     * {@link #checkpoint()}; call it while no other thread writes the table.
     *
     * @return the number of blocks checked
     * @throws StorageFileException ({@code CHECKSUM}) naming the first block whose bytes no longer
     *     match its checksum: the file was changed by something other than this table
     * @throws java.io.IOException if reading the file fails
     * @throws IllegalStateException if the table is closed, or its file has no block checksums
     */
    int verify() throws IOException;

    /**
     * {@return which checkpoint of its file this mapped table was opened at, and why that one}
     * ({@link OpenedCheckpoint}: created, closed cleanly, not closed, or a fallback past an
     * interrupted or damaged checkpoint). O(1); answers also after {@link #close()}.
     */
    OpenedCheckpoint openedCheckpoint();
}
