package dev.bulkdata.storage.schema;

/**
 * Which checkpoint of its file a mapped table was opened at, and why that one ({@link dev.bulkdata.storage.MappedTable#openedCheckpoint()}).
 * Also recorded as the flight recorder event {@code dev.bulkdata.MappedOpen}.
 *
 * @param sequence the checkpoint's number in the file: 1 for a file just created, one more at every completed
 *     checkpoint (a {@code close()} checkpoints too)
 * @param state how the file was found
 * @param detail a sentence saying what was found, naming the newer checkpoint for a fallback
 */
public record OpenedCheckpoint(long sequence, State state, String detail) {
    /** How a mapped table's file was found when it was opened. */
    public enum State {
        /** The file was absent or empty: it was created with checkpoint 1. */
        CREATED,
        /** The newest checkpoint, written by {@code close()}: nothing was written after it. */
        CLOSED,
        /**
         * The newest checkpoint, but the table was not closed after it (a crash, a table dropped without
         * {@code close()}, or a file whose close left no record of it): writes after it may be partly there (the crash
         * rule of {@link dev.bulkdata.storage.TableBuilder#mapped}).
         */
        NOT_CLOSED,
        /**
         * The checkpoint before the newest, whose header a crash during {@code checkpoint()} left torn: the last
         * completed checkpoint ({@link CheckpointFallback}).
         */
        INTERRUPTED,
        /**
         * The checkpoint before the newest, which completed but no longer verifies; only with
         * {@link CheckpointFallback#AFTER_CRASH_OR_DAMAGE}.
         */
        DAMAGED
    }

    /** {@return whether the table opened at an older checkpoint than the newest the file shows} */
    public boolean isFallback() {
        return state == State.INTERRUPTED || state == State.DAMAGED;
    }
}
