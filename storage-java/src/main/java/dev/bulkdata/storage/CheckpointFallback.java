package dev.bulkdata.storage;

/**
 * Whether a mapped table's file may open at the checkpoint before its newest one
 * ({@link TableBuilder#checkpointFallback(CheckpointFallback)}). A file keeps two checkpoints
 * (see {@link TableBuilder#mapped}); the newest is the one with the higher number. Opening tells
 * apart two reasons why the newest one cannot be used:
 * <ul>
 * <li><b>interrupted</b>: a crash during {@link MappedTable#checkpoint()} left that checkpoint's
 *     header torn; it never completed, so the one before is the file's last completed
 *     checkpoint (what the crash rule promises). A checkpoint interrupted before it began to
 *     write its header leaves no trace: the file simply opens at its newest completed one.</li>
 * <li><b>damaged</b>: the checkpoint completed (its commit record says so, or its header is
 *     intact) but its header or metadata no longer matches its CRC32C: the file was changed
 *     after the checkpoint was written, by something other than this library. A crash never
 *     causes this.</li>
 * </ul>
 * {@link MappedTable#openedCheckpoint()} says which checkpoint a table opened and why.
 */
public enum CheckpointFallback {
    /**
     * Never open an older checkpoint: an interrupted or damaged newest checkpoint throws
     * {@link StorageFileException} ({@code CHECKSUM}).
     */
    NEVER,
    /**
     * The default: open the checkpoint before an interrupted one (a crash during
     * {@code checkpoint()}); a damaged newest checkpoint throws {@link StorageFileException}
     * ({@code CHECKSUM}) naming it and the intact one before it.
     */
    AFTER_CRASH,
    /**
     * Open the checkpoint before an interrupted or a damaged one: recovers what the file still
     * holds intact. The table then reports {@link OpenedCheckpoint.State#DAMAGED}; its next
     * checkpoint overwrites the damaged one.
     */
    AFTER_CRASH_OR_DAMAGE
}
