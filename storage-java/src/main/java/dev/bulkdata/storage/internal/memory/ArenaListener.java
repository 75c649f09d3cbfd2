package dev.bulkdata.storage.internal.memory;

/**
 * What a {@link BlockArena} reports as its memory changes: the seam through which observability
 * (the flight recorder's events) learns of blocks without this package knowing of it.
 * Called on the owner's writer thread, except {@link #closed} which the cleaner may call.
 */
public interface ArenaListener {
    /** Reports nothing. */
    ArenaListener NONE = new ArenaListener() {
        @Override
        public void allocated(int tag, long bytes, int blocks, long nativeBytes) {
        }

        @Override
        public void closed(int tag, int blocks, long nativeBytes, boolean reclaimed) {
        }
    };

    /**
     * A block was handed out.
     *
     * @param tag the owner's tag
     * @param bytes the block's bytes
     * @param blocks the owner's blocks, this one counted
     * @param nativeBytes the owner's bytes, this block counted
     */
    void allocated(int tag, long bytes, int blocks, long nativeBytes);

    /**
     * The arena is about to be freed, by {@code close()} or by the cleaner.
     *
     * @param tag the owner's tag
     * @param blocks the owner's blocks
     * @param nativeBytes the owner's bytes
     * @param reclaimed whether the cleaner frees it (the owner was dropped unclosed)
     */
    void closed(int tag, int blocks, long nativeBytes, boolean reclaimed);
}
