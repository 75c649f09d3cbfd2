package dev.bulkdata.storage.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * The memory backend of one table: a shared {@link Arena} that every block of the table comes
 * from, with a count of the bytes handed out. Blocks are never freed one by one; closing frees
 * them all at once (a shared arena's close costs a thread handshake, so it happens once per
 * table, never per block).
 *
 * <p>The arena is shared so that chunk-parallel code on many threads (and coroutines that hop
 * threads) can touch the blocks. Access after close throws {@link IllegalStateException} from
 * the FFM runtime; it never crashes the JVM.
 *
 * <p>If the owner becomes unreachable without {@link #close()}, a cleaner closes the arena and
 * releases the owner's tag, so a forgotten table leaks neither native memory nor its tag.
 *
 * <p>Threads: {@link #allocate} and {@link #close} follow the owning table's single-writer
 * rule; {@link #bytes()} may be read from the writer thread.
 */
public final class BlockArena {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Arena arena;
    private final Cleaner.Cleanable cleanable;
    private final int tag;
    private long bytes;
    private int blocks;
    private boolean closeCalled;

    /**
     * Opens the arena of a new table.
     *
     * @param owner the table; when it becomes unreachable, the arena is closed and the tag
     *     released
     * @param tag the owner's tag, released on close
     */
    public BlockArena(Object owner, int tag) {
        this.arena = Arena.ofShared();
        this.tag = tag;
        this.cleanable = CLEANER.register(owner, new Release(arena, tag, this));
        TableEvents.opened(owner, tag, this);
    }

    /**
     * Allocates zeroed native memory.
     *
     * @param size bytes
     * @param alignment byte alignment, a power of two
     * @return a native segment of the arena, filled with zeros
     * @throws OutOfMemoryError if the allocation fails
     * @throws IllegalStateException if the arena is closed
     */
    public MemorySegment allocate(long size, long alignment) {
        MemorySegment segment = arena.allocate(size, alignment);
        bytes += size;
        TableEvents.allocated(tag, size, ++blocks, bytes);
        return segment;
    }

    /** {@return bytes handed out by {@link #allocate} since creation (not reset by close)} */
    public long bytes() {
        return bytes;
    }

    /** {@return allocations by {@link #allocate} since creation: a table's blocks} */
    int blocks() {
        return blocks;
    }

    /** Frees every segment of the arena and releases the tag. Idempotent. */
    public void close() {
        closeCalled = true;
        cleanable.clean();
    }

    /** Must not refer to the owner, or the owner would never become unreachable. */
    private record Release(Arena arena, int tag, BlockArena counts) implements Runnable {
        @Override
        public void run() {
            try {
                TableEvents.closed(tag, counts.blocks, counts.bytes, !counts.closeCalled);
                arena.close();
            } finally {
                TagRegistry.release(tag);
            }
        }
    }
}
