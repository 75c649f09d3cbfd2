package dev.bulkdata.storage;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open iteration over a table's chunks ({@link Table#iterate()}) or changed chunks
 * ({@link Table#iterate(ChangeFilter, int)}); while any is open, structural changes throw
 * {@link java.util.ConcurrentModificationException}. Close it once, idempotently. Chunks may go to several threads, one
 * per task; close the iteration on one thread after all tasks are done, as
 * {@link Table#forEachChunk(Executor, int, ChunkVisitor)} does. {@link #selects} and {@link #chunk} take a chunk's
 * number ({@link Chunk#index()}) in {@code [0, count())} and throw {@link IndexOutOfBoundsException} for any other and
 * {@link IllegalStateException} once the iteration is closed.
 */
public sealed class ChunkIteration implements Iterable<Chunk>, AutoCloseable permits ChunkIteration.Holding {
    private final AbstractTable table;
    private final int count;
    // null for every chunk
    private final ChangeFilter changes;
    private final int since;
    private boolean closed;

    // No ChangeFilter in the signature: C2 won't inline a constructor naming a class not loaded yet (then it escapes).
    ChunkIteration(AbstractTable table) {
        this.table = table;
        this.count = table.chunkCount();
        this.changes = null;
        this.since = 0;
    }

    ChunkIteration(AbstractTable table, ChangeFilter changes, int since) {
        this.table = table;
        this.count = table.chunkCount();
        this.changes = changes;
        this.since = since;
    }

    /** {@return the table's chunk count when opened: the range of {@link #chunk(int)}, selected or not} */
    public int count() {
        return count;
    }

    /**
     * {@return whether the chunk passes the change filter (always, unfiltered)}: the iterator yields exactly these.
     * Tested at the call, so a later write counts. O(fields of the filter).
     *
     * @param index the chunk's number
     */
    public boolean selects(int index) {
        if (closed) {
            throw new IllegalStateException("this iteration of table '" + table.name() + "' is closed");
        }
        java.util.Objects.checkIndex(index, count);
        return changes == null || changes.selects(table.versions, index, since);
    }

    /**
     * {@return the chunk}
     *
     * @param index the chunk's number
     */
    public Chunk chunk(int index) {
        if (closed) {
            throw new IllegalStateException("this iteration of table '" + table.name() + "' is closed");
        }
        return table.chunkAt(java.util.Objects.checkIndex(index, count));
    }

    /** {@return the selected chunks in order: every chunk, or those that pass the change filter} */
    @Override
    public Iterator<Chunk> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                while (next < count && changes != null && !changes.selects(table.versions, next, since)) {
                    next++;
                }
                return next < count;
            }

            @Override
            public Chunk next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return chunk(next++);
            }
        };
    }

    /** {@link Table#forEachChunk}: visits the chunks that {@code changes} selects after {@code since}, every chunk if it is null. */
    static void chunkPass(AbstractTable table, ChangeFilter changes, int since, ChunkVisitor visitor) {
        table.beginIteration();
        Throwable failure = null;
        try {
            for (int i = 0, n = table.chunkCount(); i < n; i++) {
                if (changes == null || changes.selects(table.versions, i, since)) {
                    visitor.visit(table.chunkAt(i));
                }
            }
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            table.endPass(failure);
        }
    }

    /** {@link Table#forEachChunk(Executor, int, ChunkVisitor)}, every chunk if {@code changes} is null. */
    static void parallelPass(AbstractTable table, ChangeFilter changes, int since, Executor executor, int parallelism,
                             ChunkVisitor visitor) {
        if (executor == null || visitor == null) {
            throw new IllegalArgumentException((executor == null ? "executor" : "visitor") + " is null (a parallel"
                    + " pass over table '" + table.name() + "')");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be at least 1 (a parallel pass"
                    + " over table '" + table.name() + "')");
        }
        table.beginIteration();
        ParallelPass pass = new ParallelPass(table, changes, since, visitor);
        table.guard.parallelPassBegan();
        Throwable failure = null;
        try {
            int helpers = Math.min(parallelism - 1, pass.count - 1);
            for (int i = 0; i < helpers && !pass.stopped; i++) {
                try {
                    executor.execute(pass);
                } catch (RejectedExecutionException e) {
                    break; // the threads that run take the chunks the rejected task would have taken
                }
            }
            pass.run(); // the calling thread takes chunks too: no deadlock on a busy or same-thread executor
            pass.finish();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            table.guard.parallelPassEnded();
            if (failure != null) {
                table.endPass(failure);
            }
        }
        try {
            pass.rethrow();
        } catch (RuntimeException | Error e) {
            table.endPass(e);
            throw e;
        }
        table.endIteration();
    }

    /** One parallel pass: workers share a chunk counter; a task starting after {@link #finish()} does nothing. */
    private static final class ParallelPass implements Runnable {
        private final AbstractTable table;
        private final ChangeFilter changes;
        private final int since;
        private final ChunkVisitor visitor;
        final int count;
        private final AtomicInteger next = new AtomicInteger();
        // stopped: set by the first failure; the rest guarded by this
        volatile boolean stopped;
        private Throwable failure;
        private int active;
        private boolean finished;

        ParallelPass(AbstractTable table, ChangeFilter changes, int since, ChunkVisitor visitor) {
            this.table = table;
            this.changes = changes;
            this.since = since;
            this.visitor = visitor;
            this.count = table.chunkCount();
        }

        @Override
        public void run() {
            synchronized (this) {
                if (finished) {
                    return;
                }
                active++;
            }
            try {
                for (int c = next.getAndIncrement(); c < count && !stopped; c = next.getAndIncrement()) {
                    if (changes == null || changes.selects(table.versions, c, since)) {
                        try {
                            visitor.visit(table.chunkAt(c));
                        } catch (Throwable t) {
                            fail(t);
                        }
                    }
                }
            } finally {
                synchronized (this) {
                    if (--active == 0) {
                        notifyAll();
                    }
                }
            }
        }

        private synchronized void fail(Throwable t) {
            stopped = true;
            if (failure == null) {
                failure = t;
            } else if (failure != t) {
                failure.addSuppressed(t);
            }
        }

        /** Lets no more worker in and waits for those at work (their writes then happen-before the return). */
        synchronized void finish() {
            finished = true;
            boolean interrupted = false;
            while (active > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the workers still touch the table: wait for them anyway
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        synchronized void rethrow() {
            if (failure instanceof RuntimeException e) {
                throw e;
            } else if (failure instanceof Error e) {
                throw e;
            } else if (failure != null) {
                throw new IllegalStateException("a visitor of a parallel pass over table '" + table.name() + "' threw",
                        failure);
            }
        }
    }

    /** {@link Table#forEach}: visits the live records of the chunks that {@code changes} selects after {@code since}, of every chunk if it is null. */
    static void recordPass(AbstractTable table, ChangeFilter changes, int since, RecordVisitor visitor) {
        table.beginIteration();
        Throwable failure = null;
        try {
            for (int i = 0, n = table.chunkCount(); i < n; i++) {
                if (changes == null || changes.selects(table.versions, i, since)) {
                    table.chunkAt(i).forEachLive(visitor);
                }
            }
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            table.endPass(failure);
        }
    }

    /**
     * Opens an iteration, as {@link Table#iterate()} or, with {@code changes},
     * {@link Table#iterate(ChangeFilter, int)}, that holds the table open until closed: meanwhile {@link Table#close()}
     * throws {@link IllegalStateException} naming {@code holder} and changes nothing. For blocks read by code the table
     * cannot stop (a foreign consumer of an Arrow export's raw addresses). O(1). Close it on the opening thread or
     * after a happens-before edge from it.
     *
     * @param table a {@link BulkTable} or {@link PackedTable}
     * @param changes what counts as a change, or null for every chunk
     * @param since a version from {@link Table#markVersion()}; ignored without {@code changes}
     * @param holder who holds the table, for the message of {@code close()}
     * @return the open iteration
     * @throws IllegalArgumentException if {@code table} or {@code holder} is null, or {@code changes} names fields
     *     of another schema
     * @throws IllegalStateException if the table is closed or corrupt
     */
    public static ChunkIteration holding(Table table, ChangeFilter changes, int since, String holder) {
        if (!(table instanceof AbstractTable t)) { // Table is sealed: only null is not one
            throw new IllegalArgumentException("ChunkIteration.holding: table is null");
        }
        if (holder == null) {
            throw new IllegalArgumentException("holder is null (table '" + t.name() + "'); name who holds"
                    + " the table open, for the message of its close()");
        }
        return t.iterateHolding(changes, since, holder);
    }

    /** An iteration that holds its table open ({@link #holding}) until it is closed. */
    static final class Holding extends ChunkIteration {
        private boolean released;

        Holding(AbstractTable table, ChangeFilter changes, int since) {
            super(table, changes, since);
        }

        Holding(AbstractTable table) {
            super(table);
        }

        @Override
        public void close() {
            if (!released) {
                released = true;
                table().guard.releaseClose(this);
            }
            super.close();
        }
    }

    AbstractTable table() {
        return table;
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
