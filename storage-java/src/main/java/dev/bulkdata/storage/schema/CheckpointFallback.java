package dev.bulkdata.storage.schema;

/**
 * Whether a mapped table's file may open at the checkpoint before its newest one
 * ({@link dev.bulkdata.storage.TableBuilder#checkpointFallback(CheckpointFallback)}). Opening tells two reasons apart:
 * <ul>
 * <li><b>interrupted</b>: a crash during {@link dev.bulkdata.storage.MappedTable#checkpoint()} tore its header; the one before is the last
 *     completed checkpoint (a checkpoint that had not begun its header leaves no trace).</li>
 * <li><b>damaged</b>: the checkpoint completed but its header or metadata no longer matches its CRC32C: something other
 *     than this library changed the file. A crash never causes this.</li>
 * </ul>
 * {@link dev.bulkdata.storage.MappedTable#openedCheckpoint()} says which checkpoint opened and why.
 */
public enum CheckpointFallback {
    /**
     * Never open an older checkpoint: an interrupted or damaged newest checkpoint throws {@link StorageFileException}
     * ({@code CHECKSUM}).
     */
    NEVER,
    /**
     * The default: open the checkpoint before an interrupted one (a crash during {@code checkpoint()}); a damaged
     * newest checkpoint throws {@link StorageFileException} ({@code CHECKSUM}) naming it and the intact one before it.
     */
    AFTER_CRASH,
    /**
     * Open the checkpoint before an interrupted or a damaged one: recovers what the file still holds intact. The table
     * then reports {@link OpenedCheckpoint.State#DAMAGED}; its next checkpoint overwrites the damaged one.
     */
    AFTER_CRASH_OR_DAMAGE
}
