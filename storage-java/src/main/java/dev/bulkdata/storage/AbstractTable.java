package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.BlockArena;
import dev.bulkdata.storage.internal.TagLease;
import dev.bulkdata.storage.internal.TagRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * What every table kind shares: name, schema, tag, the native arena, the open/closed state,
 * the iteration guard that makes structural changes fail fast while chunks are being visited,
 * the writer claim, and the operations of {@link Table} written once over two parts that each
 * kind provides:
 * <ul>
 * <li>a {@link SlotIndex} (the slots handles name: meta words, free list, retirement,
 *     rejection), which the kind creates with its link storage;
 * <li>its records: a handle resolves to a slot in the index, then to a <em>record index</em>
 *     by the kind's rule ({@link #recordOf}: a BulkTable's slot, a PackedTable's row); record
 *     {@code r} lives in {@code segments[r >>> recordShift]} at position {@code r & recordMask}
 *     (both kinds put {@link Schema#slotsPerBlock()} records in a block), so the typed
 *     accessors by handle are written once, in {@link GeneratedAbstractTableAccessors} (generated).
 * </ul>
 * The kind's hooks are about records only: make room, activate a slot, drop a record, clear,
 * chunks for iteration.
 *
 * <p>The iteration guard is a counter of open iterations, changed atomically so that several
 * threads may each open an iteration at once; structural operations read it and throw
 * {@link ConcurrentModificationException} while it is non-zero. It is also what makes a chunk
 * valid: every chunk access checks that the counter is positive ({@link #checkChunkAccess()}),
 * so a chunk kept after the last iteration ended throws instead of reaching a slot whose
 * record may have changed since. Closing sets the counter to {@link #ENDED}, far below zero,
 * so that it never becomes positive again.
 *
 * <h2>Structural changes and the writer claim</h2>
 * Every structural change (add, remove, clear, cancelAdd, defragment) runs between
 * {@link #beginChange} and {@link #endChange}, over the writer word ({@code threadId << 1},
 * bit 0 set while a change runs). The writer thread's own changes use opaque reads and writes
 * only; another thread takes the table over in {@link #claim} (a compare-and-set, then a short
 * wait for the previous writer's last stores), so a change that starts while another thread's
 * runs throws {@link ConcurrentModificationException} and changes nothing. If the word is found
 * changed at the end (another writer, or a concurrent {@code close()}), or a change fails with
 * an internal exception that only a broken structure explains, the table is marked <em>corrupt</em> ({@link #poison}):
 * {@code limit} drops to 0, so every access by handle takes the slow path, which throws
 * {@link IllegalStateException}, as do every chunk and every later change; only {@code close()}
 * still works. Field reads and writes are not claimed: one racing a structural change on
 * another thread is a data race the table does not detect.
 */
abstract sealed class AbstractTable extends GeneratedAbstractTableAccessors permits BulkTableImpl, PackedTableImpl {
    private static final VarHandle OPEN_ITERATIONS;
    private static final VarHandle WRITER;
    /** The writer word's bit for "a change is running"; the rest is the writer thread's id. */
    private static final long CHANGING = 1L;
    /** The writer word of a corrupt or closed table: no thread's own, and marked changing. */
    private static final long NO_WRITER = -1L;
    /** How long a thread taking a table over from another thread waits for that thread's last stores. */
    private static final long HANDOFF_NANOS = 5_000;
    /** The iteration counter once closed or corrupt: no number of begins makes it positive. */
    static final int ENDED = Integer.MIN_VALUE / 2;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OPEN_ITERATIONS = lookup.findVarHandle(AbstractTable.class, "openIterations", int.class);
            WRITER = lookup.findVarHandle(AbstractTable.class, "writer", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How this table's handles split into tag, generation and slot index. */
    final HandleLayout handles;
    /** The tag's lease: records every handle made, for the next table under this tag. */
    final TagLease lease;
    final BlockArena arena;
    /** The slots: created by the kind's constructor with {@link #newIndex}. */
    final SlotIndex index;
    /** Live records. */
    int size;
    /** Set once by {@link #close()}; never cleared. */
    boolean closed;
    /** Set once by {@link #poison}: two threads changed the structure at once. */
    boolean corrupt;
    /** What {@link #poison} detected, for messages. */
    private String corruption;
    /** Iterations open right now; structural changes require 0; {@link #ENDED} once closed. */
    @SuppressWarnings("unused") // accessed through OPEN_ITERATIONS
    private volatile int openIterations;
    /**
     * The writer word: {@code threadId << 1} of the thread that made the last structural
     * change (0 before the first), with {@link #CHANGING} set while one runs;
     * {@link #NO_WRITER} once corrupt or closed.
     */
    @SuppressWarnings("unused") // accessed through WRITER
    private long writer;
    /**
     * The name of the thread whose id is in {@code writer}, for messages; no reference to the
     * thread itself, so a table never keeps a finished thread's objects reachable.
     */
    private String writerName;
    /**
     * The handle returned by the last structural change if it was {@link #add()}, else 0; with
     * what {@link #cancelAdd} needs to undo it: {@code limit} and the kind's block count before.
     */
    private long lastAdd;
    /** removeAll's slots, sorted; grown to the largest batch and kept, so a removeAll allocates nothing. */
    private int[] removeScratch = new int[0];
    private int lastAddLimit;
    /** The file and checkpoint state of a mapped table ({@link MappedFormat}); null for a table in memory. */
    MappedFormat.Store mapped;
    private int lastAddBlocks;
    /**
     * A table loaded from a snapshot under a new tag ({@link Snapshots.LoadOption#NEW_TAG}): the
     * identity and tag the snapshot held and by how much the load moved every generation up, for
     * {@link Snapshots#remap} and component snapshots; 0, 0, 0 for any other table.
     */
    long savedIdentity;
    int savedTag;
    int generationShift;
    /**
     * The iterations that hold this table open ({@link ChunkIteration#holding}), with what
     * holds them: while there is one, {@link #close()} throws. Guarded by {@code this}: an
     * iteration may be closed on another thread than the table's writer. Null until the first hold.
     */
    private java.util.IdentityHashMap<ChunkIteration, String> holders;
    /** The referrers {@link Snapshots#remap} has rewritten for this table, so that it runs once for each. */
    private java.util.Set<Object> remapped;

    /** {@return whether {@code referrer}'s references to this table were remapped} */
    final synchronized boolean remapped(Object referrer) {
        return remapped != null && remapped.contains(referrer);
    }

    /** Records that {@code referrer}'s references to this table were remapped. */
    final synchronized void markRemapped(Object referrer) {
        if (remapped == null) {
            remapped = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());
        }
        remapped.add(referrer);
    }

    /** A table under a tag already leased (see {@link TableBuilder} and {@link Snapshots}). */
    AbstractTable(Schema schema, HandleLayout handles, ReuseOrder reuseOrder, int maxCapacity, TagLease lease) {
        super(schema);
        this.handles = handles;
        this.lease = lease;
        this.index = new SlotIndex(schema.name(), handles, lease.tag, lease.floor, maxCapacity, reuseOrder,
                newLinks());
        this.arena = new BlockArena(this, lease);
        index.reserveRange(arena);
    }

    /** {@return the number of chunks an iteration visits} */
    abstract int chunkCount();

    /** {@return chunk {@code index}, {@code 0 <= index < chunkCount()}} */
    abstract Chunk chunkAt(int index);

    /** Visits the live records of one chunk in slot order. */
    abstract void forEachLive(Chunk chunk, RecordVisitor visitor);

    /** Releases what the table kind holds besides the arena; called once by {@link #close()}. */
    abstract void onClose();

    /** Removes every record, every slot's generation advanced; the caller holds the writer mark. */
    abstract void clearRecords();

    /** {@return the blocks the table holds (the number {@link TableStats#blocks()} reports)} */
    abstract int blockCount();

    /**
     * Gives back the blocks past the first {@code count}, which hold no record, as zeroed
     * spares for the next growth ({@link BlockArena#setAside}).
     */
    abstract void trimBlocks(int count);

    /**
     * Where free slots keep their free-list links, or null to keep them beside the meta words
     * (see {@link SlotIndex}). Called once, by the constructor: the result may keep a
     * reference to the table but must not use it yet.
     */
    abstract SlotIndex.Links newLinks();

    /** @return the slot of {@code handle} if it is live in this table, else -1 */
    final int findSlot(long handle) {
        return index.find(handle);
    }

    /** Clears the live state of a live slot; {@link #releaseDead(int)} or {@link #markLive} follows. */
    abstract void markDead(int slot);

    /** Undoes {@link #markDead(int)}. */
    abstract void markLive(int slot);

    /**
     * Makes room for {@code count} more records, so that {@code count} activations cannot fail:
     * record storage for every slot up to {@code highestSlot} (a BulkTable's blocks; -1 if no
     * fresh slot is needed) or for {@code count} more rows (a PackedTable's).
     *
     * @throws CapacityExceededException if memory runs out; no record is added
     */
    abstract void reserveRecords(int count, long highestSlot);

    /** Makes a slot from {@link SlotIndex#take()} live, with an all-zero record, and returns its handle. */
    abstract long activate(int slot);

    /**
     * Adds the first records of a batch at once where the kind can ({@link #addAll}): makes
     * live and counts in as many as it can of the {@code to - from} records reserved, writing
     * their handles to {@code handlesOut} from {@code from}, and returns the index after the
     * last one written; the rest are added one by one. By default none.
     */
    int addRun(long[] handlesOut, int from, int to) {
        return from;
    }

    /**
     * Drops the record of a slot whose live state is already cleared (a packed table moves its
     * last row into the gap) and counts it out of {@code size}. No record byte needs zeroing:
     * {@link #activate} zeroes a reused record. The slot's meta word is left to the caller.
     */
    abstract void dropRecord(int slot);

    /**
     * Restores the kind's invariant for records of never-opened slots after {@link #undoAdd}
     * gave {@code slot} back ({@link SlotIndex#untake}): a BulkTable zeroes the record if the
     * slot is now past the index's limit.
     */
    abstract void wipeUntaken(int slot);

    // ---------------------------------------------------------------------------------------
    // Structure, shared by every kind

    /**
     * Finishes removing a slot whose live state is already cleared: drops its record, then the
     * index advances or retires its generation and frees the slot.
     */
    final void releaseDead(int slot) {
        dropRecord(slot);
        index.release(slot);
    }

    /** Tells the tag lease about a handle this table hands out. */
    private void issue(long handle) {
        lease.issued(handles.generation(handle), (int) (handle & index.indexMask));
    }

    /** Checks room for {@code count} records, slots and storage, so that as many takes and activations cannot fail. */
    private void reserve(int count) {
        long highest = index.reserve(count, size);
        reserveRecords(count, highest);
    }

    @Override
    public final long add() {
        long me = beginChange("add to");
        long handle;
        try {
            int limitBefore = index.limit;
            int blocksBefore = blockCount();
            reserve(1);
            handle = activate(index.take());
            issue(handle);
            lastAdd = handle;
            lastAddLimit = limitBefore;
            lastAddBlocks = blocksBefore;
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
        return handle;
    }

    @Override
    public final void addAll(long[] handlesOut, int from, int to) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        long me = beginChange("add to");
        try {
            reserve(to - from);
            int run = addRun(handlesOut, from, to);
            for (int i = from; i < run; i++) {
                issue(handlesOut[i]);
            }
            for (int i = run; i < to; i++) {
                long handle = activate(index.take());
                issue(handle);
                handlesOut[i] = handle;
            }
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
    }

    @Override
    public final boolean cancelAdd(long handle) {
        long last = lastAdd;
        long me = beginChange("cancel an add in");
        boolean exact = false;
        try {
            int slot = findSlot(handle);
            if (slot >= 0) {
                markDead(slot);
                if (handle == last && SlotMeta.generation(index.meta(slot)) < index.maxGeneration) {
                    undoAdd(slot);
                    exact = true;
                } else {
                    releaseDead(slot);
                }
            }
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
        return exact;
    }

    /**
     * Puts a slot that the last add took back where it came from: the head of the free list,
     * or the slots never opened, with blocks that add allocated set aside as spares. Its
     * generation still advances, so the handle the add returned stays stale for good.
     */
    private void undoAdd(int slot) {
        dropRecord(slot);
        index.untake(slot, lastAddLimit);
        wipeUntaken(slot);
        trimBlocks(lastAddBlocks);
    }

    @Override
    public final void remove(long handle) {
        long me = beginChange("remove from");
        try {
            int slot = slotOf(handle);
            markDead(slot);
            releaseDead(slot);
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
    }

    @Override
    public final void clear() {
        long me = beginChange("clear");
        try {
            clearRecords();
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
    }

    @Override
    public final int size() {
        ensureOpen();
        return size;
    }

    @Override
    public final boolean contains(long handle) {
        return findSlot(handle) >= 0;
    }

    @Override
    public final void removeAll(long[] handles, int from, int to) {
        Objects.checkFromToIndex(from, to, handles.length);
        long me = beginChange("remove from");
        try {
            removeChecked(handles, from, to);
        } catch (Throwable t) {
            throw abortChange(me, t, false);
        }
        endChange(me);
    }

    private void removeChecked(long[] handles, int from, int to) {
        // Phase 1: validate every handle, clearing live states as we go so that a handle given
        // twice fails the second time; on failure restore them and report.
        for (int i = from; i < to; i++) {
            int slot = findSlot(handles[i]);
            if (slot < 0) {
                RuntimeException e = rejection(handles[i]);
                for (int j = from; j < i; j++) {
                    markLive((int) (handles[j] & index.indexMask));
                }
                if (findSlot(handles[i]) >= 0) {
                    // Valid once the earlier marks are undone: it repeats an earlier handle, and
                    // removing a record twice is using a stale handle the second time.
                    throw new InvalidHandleException(name(), handles[i], InvalidHandleException.Reason.STALE,
                            "handles[" + i + "]: handle " + format(handles[i]) + " appears twice in the batch;"
                                    + " the second removal would use a stale handle; nothing was removed");
                }
                if (e instanceof InvalidHandleException ie) {
                    throw new InvalidHandleException(ie.table(), ie.handle(), ie.reason(),
                            "handles[" + i + "]: " + ie.getMessage() + "; nothing was removed");
                }
                throw e;
            }
            markDead(slot);
        }
        // Phase 2: every slot is valid and distinct; release them in slot order, so that memory
        // is touched in address order and FIFO reuse hands the slots out again in that order
        // (SWEEP reuses in slot order whatever the release order).
        int count = to - from;
        int[] slots = removeScratch;
        if (slots.length < count) {
            slots = new int[count];
            removeScratch = slots;
        }
        for (int i = 0; i < count; i++) {
            slots[i] = (int) (handles[from + i] & index.indexMask);
        }
        Arrays.sort(slots, 0, count);
        for (int i = 0; i < count; i++) {
            releaseDead(slots[i]);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Rejections

    /**
     * Resolves a handle to its slot index.
     *
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws IllegalStateException if the table is closed
     */
    final int slotOf(long handle) {
        int slot = findSlot(handle);
        if (slot < 0) {
            throw rejection(handle);
        }
        return slot;
    }

    /** Explains why {@code handle} is not live in this table; the slow path of every access. */
    final RuntimeException rejection(long handle) {
        if (closed || corrupt) {
            return unusable();
        }
        return index.rejection(handle, lease.previousName);
    }

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
        return handles;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final String format(long handle) {
        return handles.format(name(), handle);
    }

    /** @throws IllegalStateException if the table is closed or corrupt */
    final void ensureOpen() {
        if (closed || corrupt) {
            throw unusable();
        }
    }

    /** {@return the exception for a closed or corrupt table} */
    final IllegalStateException unusable() {
        if (closed) {
            return new IllegalStateException("table '" + name() + "' is closed");
        }
        return new IllegalStateException("table '" + name() + "' is corrupt: " + corruption
                + ". Its structure was changed by two threads at once (add, remove, clear, cancelAdd and"
                + " defragment need a single writer thread, or a lock around them); every later call but close()"
                + " throws this exception. Close the table and rebuild its contents.");
    }

    /**
     * Starts a structural change: checks that the table is open, that no iteration is open and
     * that no other thread is inside a change, then marks this thread's change as running.
     * Every change ends with {@link #endChange} or, if it throws, {@link #abortChange}.
     *
     * <p>The writer thread's own changes cost two opaque reads and two opaque writes of
     * {@code writer} and no fence; another thread takes the table over in {@link #claim}.
     *
     * @param operation what the caller is about to do, for the message
     * @return this change's writer word ({@code threadId << 1 | CHANGING}), for {@link #endChange}
     * @throws IllegalStateException if the table is closed or corrupt
     * @throws ConcurrentModificationException if an iteration is open or another thread is
     *     changing the table
     */
    final long beginChange(String operation) {
        ensureOpen();
        int open = openIterations;
        if (open != 0) {
            throw new ConcurrentModificationException("cannot " + operation + " table '" + name() + "' while "
                    + open + " iteration(s) of it are open; finish or close the iteration first");
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
        lastAdd = 0;
        return idle | CHANGING;
    }

    /**
     * Takes the table over for this thread ({@code idle}, its idle writer word) from the
     * writer word {@code seen}: one compare-and-set that succeeds only if no change of the
     * previous writer is visible, then a wait of {@link #HANDOFF_NANOS} so that the previous
     * writer's last stores, if it is still running, have landed, and a check that they did not
     * take the table back. Costs a few microseconds once per hand-over between threads.
     */
    private void claim(long seen, long idle, String operation) {
        if (seen == NO_WRITER || (long) WRITER.getVolatile(this) == NO_WRITER) {
            throw unusable();
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
        return new ConcurrentModificationException("cannot " + operation + " table '" + name() + "': " + why
                + "; a table has a single writer for add, remove, clear and defragment. Nothing was changed.");
    }

    /**
     * Ends a structural change that completed.
     *
     * @throws ConcurrentModificationException if another thread changed the table meanwhile;
     *     the table is then corrupt
     */
    final void endChange(long me) {
        // A thread that read the writer word just before another thread poisoned the table can
        // have overwritten the poisoned word with its own: `corrupt` catches that case.
        if ((long) WRITER.getOpaque(this) != me || corrupt) {
            throw concurrentChange(null);
        }
        WRITER.setRelease(this, me & ~CHANGING);
    }

    /**
     * Ends a structural change that threw {@code failure}, returning what to throw: the failure
     * itself, unless another thread changed the table meanwhile (then a
     * {@link ConcurrentModificationException}, the table corrupt, the failure suppressed) or the
     * failure is an internal error that only a broken structure explains, such as a
     * {@link NullPointerException} or {@link ArrayIndexOutOfBoundsException} (then the table is
     * corrupt too; with {@code fromCallback}, a {@link NullPointerException} may come from user
     * code the change called, a {@link RecordOrder}, and is not taken for a broken structure).
     */
    final RuntimeException abortChange(long me, Throwable failure, boolean fromCallback) {
        if ((long) WRITER.getOpaque(this) != me || corrupt) {
            return concurrentChange(failure);
        }
        if (!fromCallback && failure instanceof NullPointerException || failure instanceof ArrayIndexOutOfBoundsException
                || failure instanceof ClassCastException || failure instanceof NegativeArraySizeException) {
            poison("an internal " + failure.getClass().getSimpleName() + " during a change");
            IllegalStateException e = unusable();
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
        poison("two threads changed its structure at the same time");
        ConcurrentModificationException e = new ConcurrentModificationException("table '" + name()
                + "' was changed by another thread during this change: a table has a single writer for add,"
                + " remove, clear and defragment. The table is now marked corrupt and throws"
                + " IllegalStateException on every call but close()");
        if (failure != null) {
            e.addSuppressed(failure);
        }
        return e;
    }

    /**
     * Marks the table corrupt: every access by handle takes the slow path ({@code limit} 0) and
     * reports it, chunks and iterations end, and every later change throws. Idempotent.
     */
    final void poison(String what) {
        if (!corrupt) {
            corruption = what;
        }
        corrupt = true;
        index.close();
        OPEN_ITERATIONS.setVolatile(this, ENDED);
        WRITER.setVolatile(this, NO_WRITER);
    }

    /**
     * Checks that chunks of this table may be used now: an iteration is open (so the structure
     * cannot change under the chunk) and the table is open. One plain read of the iteration
     * counter on the fast path.
     *
     * @throws IllegalStateException otherwise, naming the reason
     */
    public final void checkChunkAccess() {
        if ((int) OPEN_ITERATIONS.get(this) <= 0) {
            throw chunkUnusable();
        }
    }

    /**
     * {@link #checkChunkAccess()} again, on a slow path that may have raced a {@code close()} on
     * another thread (a misuse): a volatile read, so that a close whose effects this thread met
     * is reported as the closed table, not as what the effect looked like (a hole).
     *
     * @throws IllegalStateException if the chunks may not be used now
     */
    public final void recheckChunkAccess() {
        if ((int) OPEN_ITERATIONS.getVolatile(this) <= 0) {
            throw chunkUnusable();
        }
    }

    private IllegalStateException chunkUnusable() {
        if (closed || corrupt) {
            return unusable();
        }
        return new IllegalStateException("a chunk of table '" + name() + "' was used after its iteration ended:"
                + " a chunk is valid only while an iteration of its table is open (inside forEach or forEachChunk,"
                + " or before ChunkIteration.close()), because once it ends records may be added, removed and"
                + " moved; keep handles (chunk.handle(slot)) instead of chunks");
    }

    final void beginIteration() {
        ensureOpen();
        OPEN_ITERATIONS.getAndAdd(this, 1);
    }

    final void endIteration() {
        OPEN_ITERATIONS.getAndAdd(this, -1);
    }

    /** Opens an iteration that holds this table open ({@link ChunkIteration#holding}). */
    final ChunkIteration iterateHolding(ChangeFilter changes, int since, String holder) {
        if (changes != null) {
            checkFilter(changes);
        }
        beginIteration();
        ChunkIteration it = changes == null ? new ChunkIteration.Holding(this)
                : new ChunkIteration.Holding(this, changes, since);
        synchronized (this) {
            if (holders == null) {
                holders = new java.util.IdentityHashMap<>();
            }
            holders.put(it, holder);
        }
        return it;
    }

    /** Ends the hold of {@code iteration}, if it holds the table. */
    final synchronized void releaseClose(ChunkIteration iteration) {
        if (holders != null) {
            holders.remove(iteration);
        }
    }

    /** @throws IllegalStateException if an iteration holds the table open, naming its holders */
    private synchronized void checkNotHeld() {
        if (holders != null && !holders.isEmpty()) {
            throw new IllegalStateException("table '" + name() + "' cannot be closed: " + holders.size()
                    + " open iteration(s) hold it open, whose memory is still read outside the table: "
                    + String.join("; ", holders.values()) + ". Close them first (an Arrow export closes when"
                    + " its consumer releases the stream); the table is unchanged");
        }
    }

    @Override
    public final ChunkIteration iterate() {
        beginIteration();
        return new ChunkIteration(this);
    }

    @Override
    public final ChunkIteration iterate(ChangeFilter changes, int since) {
        checkFilter(changes);
        beginIteration();
        return new ChunkIteration(this, changes, since);
    }

    @Override
    public final void forEachChunk(ChunkVisitor visitor) {
        chunkPass(null, 0, visitor);
    }

    @Override
    public final void forEachChunk(ChangeFilter changes, int since, ChunkVisitor visitor) {
        checkFilter(changes);
        chunkPass(changes, since, visitor);
    }

    @Override
    public final void forEach(RecordVisitor visitor) {
        recordPass(null, 0, visitor);
    }

    @Override
    public final void forEach(ChangeFilter changes, int since, RecordVisitor visitor) {
        checkFilter(changes);
        recordPass(changes, since, visitor);
    }

    /** Visits the chunks that {@code changes} selects after {@code since}, every chunk if it is null. */
    private void chunkPass(ChangeFilter changes, int since, ChunkVisitor visitor) {
        beginIteration();
        try {
            for (int i = 0, n = chunkCount(); i < n; i++) {
                if (changes == null || changes.selects(versions, i, since)) {
                    visitor.visit(chunkAt(i));
                }
            }
        } finally {
            endIteration();
        }
    }

    /** Visits the live records of the chunks that {@code changes} selects after {@code since}, of every chunk if it is null. */
    private void recordPass(ChangeFilter changes, int since, RecordVisitor visitor) {
        beginIteration();
        try {
            for (int i = 0, n = chunkCount(); i < n; i++) {
                if (changes == null || changes.selects(versions, i, since)) {
                    forEachLive(chunkAt(i), visitor);
                }
            }
        } finally {
            endIteration();
        }
    }

    @Override
    public final void checkpoint() throws IOException {
        ensureOpen();
        if (mapped == null) {
            throw new IllegalStateException("table '" + name() + "' is not mapped from a file, so it has nothing to"
                    + " checkpoint; open it with the builder's mapped(path), or save it with Snapshots.save");
        }
        MappedFormat.checkpoint(this, false);
    }

    @Override
    public final int verify() throws IOException {
        ensureOpen();
        if (mapped == null || !mapped.checksums) {
            throw new IllegalStateException("table '" + name() + "' has no block checksums to verify: "
                    + (mapped == null ? "it is not mapped from a file" : "its file was created without them")
                    + "; open it with the builder's blockChecksums(true) and mapped(path)");
        }
        beginIteration();
        try {
            return MappedFormat.verify(this);
        } finally {
            endIteration();
        }
    }

    @Override
    public final OpenedCheckpoint openedCheckpoint() {
        MappedFormat.Store store = mapped;
        if (store == null) {
            throw new IllegalStateException("table '" + name() + "' is not mapped from a file, so it was opened at"
                    + " no checkpoint");
        }
        return store.opened;
    }

    /** @throws IllegalArgumentException if the filter is null or names fields of another schema */
    private void checkFilter(ChangeFilter changes) {
        if (changes == null) {
            throw new IllegalArgumentException("change filter is null (table '" + name() + "'); pass"
                    + " ChangeFilter.of(fields...) or ChangeFilter.structure(), or use the unfiltered pass");
        }
        changes.check(schema, name());
    }

    @Override
    public final int markVersion() {
        ensureOpen();
        return versions.mark();
    }

    /**
     * Frees the memory even if an iteration is open (its chunks then throw) or the table is
     * corrupt; a change running on another thread meanwhile fails at its end. A mapped table
     * that is not corrupt is checkpointed first; if that fails, the table is closed anyway
     * and the failure thrown. Refuses, changing nothing, while an iteration holds the table
     * open ({@link ChunkIteration#holding}).
     */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        checkNotHeld();
        Throwable failure = null;
        if (mapped != null && !corrupt) {
            try {
                MappedFormat.checkpoint(this, true);
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
        closed = true;
        OPEN_ITERATIONS.setVolatile(this, ENDED);
        WRITER.setVolatile(this, NO_WRITER);
        lastAdd = 0;
        onClose();
        arena.close();
        if (failure instanceof IOException e) {
            throw new UncheckedIOException("table '" + name() + "' is closed, but its last checkpoint failed: "
                    + e.getMessage() + "; the file holds the checkpoint before", e);
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Audit, for tests

    /**
     * Checks every invariant of the kind's storage, the free list and the counters.
     *
     * @throws AssertionError naming the first broken invariant
     */
    abstract void checkInvariants();

    /** The free list from head to tail. O(holes). */
    final int[] freeSlots() {
        return index.freeSlots();
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name() + (closed ? ", closed]" : ", size=" + size() + "]");
    }
}
