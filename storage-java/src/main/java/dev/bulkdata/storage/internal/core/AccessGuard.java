package dev.bulkdata.storage.internal.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ConcurrentModificationException;

/**
 * A table's iteration guard (structural changes throw {@link ConcurrentModificationException} while an iteration is
 * open; a chunk is valid only then) and writer claim (a structural change overlapping another thread's throws, or, if
 * detected only at its end, marks the table corrupt); {@link #end()} ends both for good. Iterations may also hold the
 * table open ({@link #hold}). Field accesses are not claimed. ARCHITECTURE.md, "Errors and chunk validity", "Threads".
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class AccessGuard {
    /** The guarded table, as the guard sees it: its name, its open state, and its exception once it is not open. */
    public interface Owner {
        String name();

        /** @throws IllegalStateException if the table is closed or corrupt */
        void ensureOpen();

        /** {@return the exception for a closed or corrupt table} */
        IllegalStateException unusable();

        /** Marks the table corrupt (idempotent); ends this guard. */
        void poison(String what);

        boolean isClosed();

        boolean isCorrupt();
    }

    private static final VarHandle OPEN_ITERATIONS;
    private static final VarHandle WRITER;
    private static final VarHandle PARALLEL_PASSES;
    /** The writer word's bit for "a change is running"; the rest is the writer thread's id. */
    private static final long CHANGING = 1L;
    /** The writer word of a corrupt or closed table: no thread's own, and marked changing. */
    private static final long NO_WRITER = -1L;
    /** How long a thread taking a table over from another thread waits for that thread's last stores. */
    private static final long HANDOFF_NANOS = 5_000;
    /** The iteration counter once closed or corrupt: no number of begins makes it positive. */
    private static final int ENDED = Integer.MIN_VALUE / 2;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OPEN_ITERATIONS = lookup.findVarHandle(AccessGuard.class, "openIterations", int.class);
            WRITER = lookup.findVarHandle(AccessGuard.class, "writer", long.class);
            PARALLEL_PASSES = lookup.findVarHandle(AccessGuard.class, "parallelPasses", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Parallel passes running ({@link #parallelPassBegan}), read only for the message of a refused change. */
    private volatile int parallelPasses;
    /** The guarded table: its name, whether it is open, and its exception once it is not. */
    private final Owner table;
    /** Iterations open right now; structural changes require 0; {@link #ENDED} once ended. */
    @SuppressWarnings("unused") // accessed through OPEN_ITERATIONS
    private volatile int openIterations;
    // threadId << 1 of the last structural change's thread (0: none yet), CHANGING while one runs; NO_WRITER: ended.
    @SuppressWarnings("unused") // accessed through WRITER
    private long writer;
    /** The name of the thread in {@code writer}, for messages; not the thread, which would stay reachable. */
    private String writerName;
    // The iterations holding the table open and their holders; null until the first hold; guarded by this.
    private java.util.IdentityHashMap<Object, String> holders;

    public AccessGuard(Owner table) {
        this.table = table;
    }

    /** Ends both guards for good (the table closed or corrupt): no iteration opens, no change starts. */
    public void end() {
        OPEN_ITERATIONS.setVolatile(this, ENDED);
        WRITER.setVolatile(this, NO_WRITER);
    }

    // ---- Writer claim

    /**
     * Starts a structural change, ended by {@link #endChange} or, if it throws, {@link #abortChange}; returns the
     * writer word. Throws {@link IllegalStateException} if the table is closed or corrupt, else
     * {@link ConcurrentModificationException} if an iteration is open or another thread is inside a change.
     */
    public long beginChange(String operation) {
        table.ensureOpen();
        int open = openIterations;
        if (open != 0) {
            if (parallelPasses > 0) {
                throw new ConcurrentModificationException("cannot " + operation + " table '" + table.name()
                        + "' on thread '" + Thread.currentThread().getName() + "': a parallel pass over its chunks"
                        + " (forEachChunk with an Executor) is running, and its visitors may only read and write"
                        + " the records of the chunk each was handed, never add, remove or clear; queue the"
                        + " changes with removeLater and addLater (of the chunk or the table), applied when the pass"
                        + " ends. Nothing was changed");
            }
            throw new ConcurrentModificationException("cannot " + operation + " table '" + table.name() + "' while "
                    + open + " iteration(s) of it are open; finish or close the iteration first, or queue the change"
                    + " with removeLater or addLater, applied when the last pass ends. Nothing was changed");
        }
        long idle = Thread.currentThread().threadId() << 1;
        long word = (long) WRITER.getOpaque(this);
        if (word == idle) {
            WRITER.setOpaque(this, idle | CHANGING);
            // The mark must reach memory before any store of the change (x86: orders the compiler only).
            VarHandle.storeStoreFence();
        } else {
            claim(word, idle, operation);
        }
        return idle | CHANGING;
    }

    // Takes the table over from writer word seen: CAS, a wait of HANDOFF_NANOS for the previous writer's last stores,
    // and a check that it did not take the table back ("Threads").
    private void claim(long seen, long idle, String operation) {
        if (seen == NO_WRITER || (long) WRITER.getVolatile(this) == NO_WRITER) {
            throw table.unusable();
        }
        if (seen == (idle | CHANGING)) {
            throw refused(operation, "this thread is already changing it (a change called back into the table)");
        }
        if ((seen & CHANGING) != 0 || !WRITER.compareAndSet(this, seen, idle | CHANGING)) {
            throw refused(operation, writerName() + " is changing it right now");
        }
        String previous = writerName;
        writerName = Thread.currentThread().getName();
        if (seen != 0) {
            // Another thread made the last change: let its last stores land.
            long deadline = System.nanoTime() + HANDOFF_NANOS;
            while (System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            if ((long) WRITER.getVolatile(this) != (idle | CHANGING)) {
                // The previous writer's change was still running: its mark landed over ours.
                writerName = previous;
                throw refused(operation, "thread '" + previous + "' is changing it right now");
            }
        }
    }

    private String writerName() {
        String name = writerName;
        return name == null ? "another thread" : "thread '" + name + "'";
    }

    private ConcurrentModificationException refused(String operation, String why) {
        return new ConcurrentModificationException("cannot " + operation + " table '" + table.name() + "': " + why
                + "; a table has a single writer for add, remove, clear and defragment. Nothing was changed.");
    }

    /**
     * Ends a structural change that completed; throws {@link ConcurrentModificationException} if another thread changed
     * the table meanwhile, and the table is then corrupt.
     */
    public void endChange(long me) {
        // A writer word written over a just-poisoned one: `corrupt` catches it.
        if ((long) WRITER.getOpaque(this) != me || table.isCorrupt()) {
            throw concurrentChange(null);
        }
        WRITER.setRelease(this, me & ~CHANGING);
    }

    /**
     * Ends a change that threw {@code failure}; returns it, or a {@link ConcurrentModificationException} suppressing
     * it if another thread changed the table meanwhile. An internal error (NPE, AIOOBE, ...) marks the table corrupt
     * and returns its exception, except an NPE {@code fromCallback} (a record order's).
     */
    public RuntimeException abortChange(long me, Throwable failure, boolean fromCallback) {
        if ((long) WRITER.getOpaque(this) != me || table.isCorrupt()) {
            return concurrentChange(failure);
        }
        if (!fromCallback && failure instanceof NullPointerException || failure instanceof ArrayIndexOutOfBoundsException
                || failure instanceof ClassCastException || failure instanceof NegativeArraySizeException) {
            table.poison("an internal " + failure.getClass().getSimpleName() + " during a change");
            IllegalStateException e = table.unusable();
            e.initCause(failure);
            return e;
        }
        WRITER.setRelease(this, me & ~CHANGING);
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(failure);
    }

    /** Marks the table corrupt after a detected concurrent change and returns the exception for it. */
    private ConcurrentModificationException concurrentChange(Throwable failure) {
        table.poison("two threads changed its structure at the same time");
        ConcurrentModificationException e = new ConcurrentModificationException("table '" + table.name()
                + "' was changed by another thread during this change: a table has a single writer for add,"
                + " remove, clear and defragment. The table is now marked corrupt and throws"
                + " IllegalStateException on every call but close()");
        if (failure != null) {
            e.addSuppressed(failure);
        }
        return e;
    }

    // ---- Iterations

    /**
     * Checks that chunks may be used now: an iteration is open (the structure cannot change under the chunk) and the
     * table is open, else throws {@link IllegalStateException} naming the reason. One plain read on the fast path.
     */
    public void checkChunkAccess() {
        if ((int) OPEN_ITERATIONS.get(this) <= 0) {
            throw chunkUnusable();
        }
    }

    /**
     * {@link #checkChunkAccess()} with a volatile read, for a slow path that may have raced a {@code close()}: a close
     * whose effects this thread met is reported as such, not as a hole.
     */
    public void recheckChunkAccess() {
        if ((int) OPEN_ITERATIONS.getVolatile(this) <= 0) {
            throw chunkUnusable();
        }
    }

    private IllegalStateException chunkUnusable() {
        if (table.isClosed() || table.isCorrupt()) {
            return table.unusable();
        }
        return new IllegalStateException("a chunk of table '" + table.name() + "' was used after its iteration ended:"
                + " a chunk is valid only while an iteration of its table is open (inside forEach or forEachChunk,"
                + " or before ChunkIteration.close()), because once it ends records may be added, removed and"
                + " moved; keep handles (chunk.handle(slot)) instead of chunks");
    }

    /** A parallel pass began: for the message of a change it refuses. */
    public void parallelPassBegan() {
        PARALLEL_PASSES.getAndAdd(this, 1);
    }

    public void parallelPassEnded() {
        PARALLEL_PASSES.getAndAdd(this, -1);
    }

    public void beginIteration() {
        table.ensureOpen();
        OPEN_ITERATIONS.getAndAdd(this, 1);
    }

    /** {@return whether the iteration this ends was the last open one} */
    public boolean endIteration() {
        return (int) OPEN_ITERATIONS.getAndAdd(this, -1) == 1;
    }

    /** {@return whether an iteration (a pass) of the table is open}; false once ended */
    public boolean passOpen() {
        return (int) OPEN_ITERATIONS.getVolatile(this) > 0;
    }

    /** Records that {@code iteration}, open already, holds the table open until {@link #releaseClose}. */
    public synchronized void hold(Object iteration, String holder) {
        if (holders == null) {
            holders = new java.util.IdentityHashMap<>();
        }
        holders.put(iteration, holder);
    }

    /** Ends the hold of {@code iteration}, if it holds the table. */
    public synchronized void releaseClose(Object iteration) {
        if (holders != null) {
            holders.remove(iteration);
        }
    }

    /** @throws IllegalStateException if an iteration holds the table open, naming its holders */
    public synchronized void checkNotHeld() {
        if (holders != null && !holders.isEmpty()) {
            throw new IllegalStateException("table '" + table.name() + "' cannot be closed: " + holders.size()
                    + " open iteration(s) hold it open, whose memory is still read outside the table: "
                    + String.join("; ", holders.values()) + ". Close them first (an Arrow export closes when"
                    + " its consumer releases the stream); the table is unchanged");
        }
    }
}
