package dev.bulkdata.storage;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An open iteration over a table's chunks, from {@link Table#iterate()}. While any iteration
 * of a table is open, adding, removing and clearing fail fast with
 * {@link java.util.ConcurrentModificationException}. Close it to end the iteration; closing
 * twice does nothing.
 *
 * <p>The chunks may be handed to several threads (one chunk per task), which may then read and
 * write their records concurrently. The iteration itself is closed once, by one thread, after
 * all tasks are done.
 */
public final class ChunkIteration implements Iterable<Chunk>, AutoCloseable {
    private final AbstractTable table;
    private final int count;
    private boolean closed;

    ChunkIteration(AbstractTable table) {
        this.table = table;
        this.count = table.chunkCount();
    }

    /** {@return the number of chunks, fixed when the iteration was opened} */
    public int count() {
        return count;
    }

    /**
     * Returns the chunk.
     *
     * @param index a chunk index, {@code 0 <= index < count()}
     * @return the chunk
     * @throws IndexOutOfBoundsException if the index is out of range
     * @throws IllegalStateException if this iteration is closed
     */
    public Chunk chunk(int index) {
        if (closed) {
            throw new IllegalStateException("this iteration of table '" + table.name() + "' is closed");
        }
        return table.chunkAt(java.util.Objects.checkIndex(index, count));
    }

    /** {@return the chunks in order} */
    @Override
    public Iterator<Chunk> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public Chunk next() {
                if (next >= count) {
                    throw new NoSuchElementException();
                }
                return chunk(next++);
            }
        };
    }

    /** Ends the iteration; structural changes are allowed again once all iterations are closed. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            table.endIteration();
        }
    }
}
