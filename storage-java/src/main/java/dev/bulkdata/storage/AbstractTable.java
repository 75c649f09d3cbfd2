package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.BlockArena;
import dev.bulkdata.storage.internal.TagRegistry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ConcurrentModificationException;

/**
 * What every table kind shares: name, schema, tag and handle layout, the native arena, the
 * open/closed state, and the iteration guard that makes structural changes fail fast while
 * chunks are being visited.
 *
 * <p>The iteration guard is a counter of open iterations, changed atomically so that several
 * threads may each open an iteration at once; structural operations read it and throw
 * {@link ConcurrentModificationException} while it is non-zero.
 */
abstract sealed class AbstractTable implements Table permits StableTable {
    private static final VarHandle OPEN_ITERATIONS;

    static {
        try {
            OPEN_ITERATIONS = MethodHandles.lookup().findVarHandle(AbstractTable.class, "openIterations", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Schema schema;
    final HandleLayout layout;
    /** This table's tag, 1 to {@link HandleLayout#MAX_TAG}; released on close. */
    final int tag;
    final BlockArena arena;
    /** Set once by {@link #close()}; never cleared. */
    boolean closed;
    /** Iterations open right now; structural changes require 0. */
    @SuppressWarnings("unused") // accessed through OPEN_ITERATIONS
    private volatile int openIterations;

    AbstractTable(Schema schema, HandleLayout layout) {
        this.schema = schema;
        this.layout = layout;
        this.tag = TagRegistry.register(schema.name(), layout);
        this.arena = new BlockArena(this, tag);
    }

    /** {@return the number of chunks an iteration visits} */
    abstract int chunkCount();

    /** {@return chunk {@code index}, {@code 0 <= index < chunkCount()}} */
    abstract Chunk chunkAt(int index);

    /** Visits the live records of one chunk in slot order. */
    abstract void forEachLive(Chunk chunk, RecordVisitor visitor);

    /** Releases what the table kind holds besides the arena; called once by {@link #close()}. */
    abstract void onClose();

    @Override
    public final String name() {
        return schema.name();
    }

    @Override
    public final Schema schema() {
        return schema;
    }

    @Override
    public final HandleLayout handleLayout() {
        return layout;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final String format(long handle) {
        return layout.format(name(), handle);
    }

    /** @throws IllegalStateException if the table is closed */
    final void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    final IllegalStateException closedException() {
        return new IllegalStateException("table '" + name() + "' is closed");
    }

    /**
     * Guards every structural change.
     *
     * @param operation what the caller is about to do, for the message
     * @throws IllegalStateException if the table is closed
     * @throws ConcurrentModificationException if an iteration is open
     */
    final void ensureMutable(String operation) {
        ensureOpen();
        int open = openIterations;
        if (open != 0) {
            throw new ConcurrentModificationException("cannot " + operation + " table '" + name() + "' while "
                    + open + " iteration(s) of it are open; finish or close the iteration first");
        }
    }

    final void beginIteration() {
        ensureOpen();
        OPEN_ITERATIONS.getAndAdd(this, 1);
    }

    final void endIteration() {
        OPEN_ITERATIONS.getAndAdd(this, -1);
    }

    @Override
    public final ChunkIteration iterate() {
        beginIteration();
        return new ChunkIteration(this);
    }

    @Override
    public final void forEachChunk(ChunkVisitor visitor) {
        beginIteration();
        try {
            for (int i = 0, n = chunkCount(); i < n; i++) {
                visitor.visit(chunkAt(i));
            }
        } finally {
            endIteration();
        }
    }

    @Override
    public final void forEach(RecordVisitor visitor) {
        beginIteration();
        try {
            for (int i = 0, n = chunkCount(); i < n; i++) {
                forEachLive(chunkAt(i), visitor);
            }
        } finally {
            endIteration();
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        ensureMutable("close");
        closed = true;
        onClose();
        arena.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name() + (closed ? ", closed]" : ", size=" + size() + "]");
    }
}
