package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.BlockArena;
import dev.bulkdata.storage.internal.TagRegistry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * What every table kind shares: name, schema, tag and handle layout, the native arena, the
 * open/closed state, the iteration guard that makes structural changes fail fast while
 * chunks are being visited, and the <em>slot index</em> that handles name.
 *
 * <h2>Slots</h2>
 * Every table kind hands out slots {@code [1, limit)} of an index that only grows; slot 0 is
 * the header of the circular {@link FreeList} and never holds a record. Each opened slot has a
 * meta word in {@link Block}'s format ({@code R | generation | L}) and, while free, a link; the
 * kind decides where they live ({@link StableTable}: in its blocks; {@link DenseTable}: in its
 * sparse pages) through {@link #meta}, {@link #setMeta}, {@link #link} and {@link #setLink}.
 * What is the same for every kind lives here once: taking a slot (free list, then a fresh
 * one), advancing or retiring a generation, rebuilding the free list, the all-or-nothing
 * {@link #removeAll(long[], int, int)}, and naming why a handle was rejected.
 *
 * <p>The iteration guard is a counter of open iterations, changed atomically so that several
 * threads may each open an iteration at once; structural operations read it and throw
 * {@link ConcurrentModificationException} while it is non-zero.
 */
abstract sealed class AbstractTable implements Table permits StableTable, DenseTable {
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
    /** Bits of a handle's index and generation, from {@link #layout}. */
    final int indexBits;
    final long indexMask;
    final int generationMask;
    /** Every bit a handle of this layout may use below the tag. */
    final long payloadMask;
    /** This table's tag, shifted to where handles hold it. */
    final long tagBits;
    final int maxGeneration;
    /** The largest slot index this table may open (layout and maxCapacity). */
    final int maxSlot;
    final FreeList freeList;
    /** Slots {@code [0, limit)} are opened; 0 before the first add and after close. */
    int limit;
    /** Live records. */
    int size;
    /** Slots retired at the last generation: never handed out again. */
    int retired;
    /** Set once by {@link #close()}; never cleared. */
    boolean closed;
    /** Iterations open right now; structural changes require 0. */
    @SuppressWarnings("unused") // accessed through OPEN_ITERATIONS
    private volatile int openIterations;

    AbstractTable(Schema schema, HandleLayout layout, ReuseOrder reuseOrder, int maxCapacity) {
        this.schema = schema;
        this.layout = layout;
        this.indexBits = layout.indexBits();
        this.indexMask = (1L << indexBits) - 1;
        this.generationMask = layout.maxGeneration();
        this.payloadMask = layout.payloadMask();
        this.maxGeneration = layout.maxGeneration();
        this.maxSlot = Math.min(layout.maxIndex(), maxCapacity);
        this.freeList = new FreeList(this, reuseOrder);
        this.tag = TagRegistry.register(schema.name(), layout);
        this.tagBits = (long) tag << HandleLayout.TAG_SHIFT;
        this.arena = new BlockArena(this, tag);
    }

    // ---------------------------------------------------------------------------------------
    // Builder checks, shared by every kind's builder

    static Schema checkedSchema(Schema schema) {
        if (schema == null) {
            throw new IllegalArgumentException("schema is null");
        }
        return schema;
    }

    static HandleLayout checkedHandleLayout(HandleLayout layout) {
        if (layout == null) {
            throw new IllegalArgumentException("handle layout is null; use HandleLayout.DEFAULT");
        }
        return layout;
    }

    static int checkedMaxCapacity(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("maxCapacity=" + slots + " must be at least 1");
        }
        return slots;
    }

    /** {@return the number of chunks an iteration visits} */
    abstract int chunkCount();

    /** {@return chunk {@code index}, {@code 0 <= index < chunkCount()}} */
    abstract Chunk chunkAt(int index);

    /** Visits the live records of one chunk in slot order. */
    abstract void forEachLive(Chunk chunk, RecordVisitor visitor);

    /** Releases what the table kind holds besides the arena; called once by {@link #close()}. */
    abstract void onClose();

    // ---------------------------------------------------------------------------------------
    // Slot storage, provided by the table kind

    /** {@return the meta word of an opened slot, {@code 0 <= slot < limit}} */
    abstract int meta(int slot);

    /** Sets the meta word of an opened slot. */
    abstract void setMeta(int slot, int meta);

    /** {@return the free-list link of a free slot or of the header, slot 0} */
    abstract int link(int slot);

    /** Sets the free-list link of a free slot or of the header. */
    abstract void setLink(int slot, int next);

    /**
     * Makes storage for every slot up to {@code slot} (blocks, pages), all or nothing for the
     * slots: on failure {@code limit} is unchanged.
     *
     * @throws CapacityExceededException if memory runs out
     */
    abstract void ensureSlots(long slot);

    /** @return the slot of {@code handle} if it is live in this table, else -1 */
    abstract int findSlot(long handle);

    /** Clears the live state of a live slot; {@link #releaseDead(int)} or {@link #markLive} follows. */
    abstract void markDead(int slot);

    /** Undoes {@link #markDead(int)}. */
    abstract void markLive(int slot);

    /**
     * Makes room for {@code count} more records beyond their slots (which
     * {@link #reserveSlots(int)} made), so that {@code count} activations cannot fail.
     *
     * @throws CapacityExceededException if memory runs out; no record is added
     */
    abstract void reserveRecords(int count);

    /** Makes a slot from {@link #takeSlot()} live, with an all-zero record, and returns its handle. */
    abstract long activate(int slot);

    /**
     * Finishes removing a slot whose live state is already cleared: drops its record, advances
     * or retires its generation ({@link #retireOrAdvance}) and frees the slot.
     */
    abstract void releaseDead(int slot);

    // ---------------------------------------------------------------------------------------
    // Slots, shared by every kind

    final long handleOf(int slot, int generation) {
        return tagBits | ((long) generation << indexBits) | slot;
    }

    /** Whether the header, slot 0, exists (it is opened with the first slot). */
    final boolean hasHeader() {
        return limit > 0;
    }

    /** Whether {@code slot} is an opened, non-header slot that is neither live nor retired. */
    final boolean isFreeSlot(int slot) {
        if (slot <= 0 || slot >= limit) {
            return false;
        }
        return (meta(slot) & (Block.LIVE | Block.RETIRED)) == 0;
    }

    /** Slots never opened that this table may still open. */
    final long freshSlots() {
        return limit == 0 ? maxSlot : (long) maxSlot - limit + 1;
    }

    /** Opens the next never-used slot (and the header first); the caller has checked that one is left. */
    final int openSlot() {
        if (limit == 0) {
            ensureSlots(1);
            limit = 1;
        } else {
            ensureSlots(limit);
        }
        return limit++;
    }

    /**
     * Takes a free slot, or a fresh one if the free list is empty; its meta word has the live
     * bit clear and its current generation.
     *
     * @throws CapacityExceededException if no slot is left; nothing changes
     */
    final int takeSlot() {
        int slot = freeList.pop();
        if (slot == 0) {
            if (freshSlots() <= 0) {
                throw full(1);
            }
            slot = openSlot();
        }
        return slot;
    }

    /**
     * Checks that {@code count} more slots can be taken and makes storage for the fresh ones,
     * so that {@code count} calls of {@link #takeSlot()} cannot fail.
     *
     * @throws CapacityExceededException if they do not all fit; nothing changes
     */
    final void reserveSlots(int count) {
        long fromHoles = Math.min(count, freeList.length());
        long fresh = count - fromHoles;
        if (fresh > freshSlots()) {
            throw full(count);
        }
        if (fresh > 0) {
            ensureSlots((limit == 0 ? 1 : limit) + fresh - 1);
        }
    }

    final CapacityExceededException full(long requested) {
        return new CapacityExceededException("table '" + name() + "' is full: " + requested
                + " record(s) requested, room for " + (freeList.length() + freshSlots()) + "; size=" + size
                + ", holes=" + freeList.length() + ", retired=" + retired + ", maxSlot=" + maxSlot
                + " (" + layout + ")");
    }

    /**
     * Moves a dead slot to its next generation, so that every handle to its last record is
     * stale. A slot already at the layout's last generation is retired instead: it keeps that
     * generation, is marked {@link Block#RETIRED} and is never handed out again.
     *
     * @return whether the slot may be reused (false if it was retired)
     */
    final boolean retireOrAdvance(int slot) {
        int generation = Block.generation(meta(slot));
        if (generation == maxGeneration) {
            setMeta(slot, Block.RETIRED | (generation << Block.GENERATION_SHIFT));
            retired++;
            return false;
        }
        setMeta(slot, (generation + 1) << Block.GENERATION_SHIFT);
        return true;
    }

    /** Refills the free list with every opened slot that is neither live nor retired, in slot order. */
    final void rebuildFreeList() {
        freeList.reset();
        for (int slot = 1; slot < limit; slot++) {
            if ((meta(slot) & (Block.RETIRED | Block.LIVE)) == 0) {
                freeList.append(slot);
            }
        }
    }

    @Override
    public final long add() {
        ensureMutable("add to");
        reserveSlots(1);
        reserveRecords(1);
        return activate(takeSlot());
    }

    @Override
    public final void addAll(long[] handlesOut, int from, int to) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        ensureMutable("add to");
        reserveSlots(to - from);
        reserveRecords(to - from);
        for (int i = from; i < to; i++) {
            handlesOut[i] = activate(takeSlot());
        }
    }

    @Override
    public final void remove(long handle) {
        ensureMutable("remove from");
        int slot = slotOf(handle);
        markDead(slot);
        releaseDead(slot);
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
        ensureMutable("remove from");
        // Phase 1: validate every handle, clearing live states as we go so that a handle given
        // twice fails the second time; on failure restore them and report.
        for (int i = from; i < to; i++) {
            int slot = findSlot(handles[i]);
            if (slot < 0) {
                RuntimeException e = rejection(handles[i]);
                for (int j = from; j < i; j++) {
                    markLive((int) (handles[j] & indexMask));
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
        // Phase 2: every slot is valid and distinct.
        for (int i = from; i < to; i++) {
            releaseDead((int) (handles[i] & indexMask));
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
        if (closed) {
            return closedException();
        }
        String text = format(handle);
        if (handle == Handles.NULL) {
            return invalid(handle, InvalidHandleException.Reason.NULL, "null handle passed to table '" + name() + "'");
        }
        int handleTag = layout.tag(handle);
        if (handleTag != tag) {
            String owner = TagRegistry.nameOf(handleTag);
            if (owner != null) {
                return invalid(handle, InvalidHandleException.Reason.FOREIGN, "handle " + Handles.format(handle)
                        + " belongs to table '" + owner + "' (tag " + handleTag + "), not to table '" + name()
                        + "' (tag " + tag + ")");
            }
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text + " has tag " + handleTag
                    + ", but table '" + name() + "' has tag " + tag + " and no open table has tag " + handleTag);
        }
        long index = layout.index(handle);
        int generation = layout.generation(handle);
        if (layout.hasStrayBits(handle)) {
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle 0x" + Long.toHexString(handle)
                    + " (slot " + index + ", generation " + generation + ") has bits set outside " + layout
                    + " of table '" + name() + "'; no table made it");
        }
        if (index == 0) {
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text
                    + " names slot 0, the free-list header of table '" + name() + "', which never holds a record");
        }
        if (index >= limit) {
            String opened = limit <= 1 ? "has not handed out any slot yet" : "has opened only slots 1.." + (limit - 1);
            return invalid(handle, InvalidHandleException.Reason.OUT_OF_RANGE, "handle " + text + " names slot "
                    + index + " (generation " + generation + "), but table '" + name() + "' " + opened);
        }
        int slot = (int) index;
        int meta = meta(slot);
        int current = Block.generation(meta);
        String state = (meta & Block.RETIRED) != 0 ? "retired" : (meta & Block.LIVE) != 0 ? "live" : "free";
        String where = " (table '" + name() + "', slot " + slot + "): handle generation " + generation
                + ", slot generation " + current + ", slot is " + state;
        if (generation < current || (generation == current && (meta & Block.RETIRED) != 0)) {
            return invalid(handle, InvalidHandleException.Reason.STALE, "stale handle " + text + where
                    + "; its record was removed");
        }
        return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text + where
                + "; this table never handed it out");
    }

    private InvalidHandleException invalid(long handle, InvalidHandleException.Reason reason, String message) {
        return new InvalidHandleException(name(), handle, reason, message);
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
        int[] slots = new int[freeList.length()];
        int slot = slots.length == 0 ? 0 : link(0);
        for (int i = 0; i < slots.length; i++) {
            slots[i] = slot;
            slot = link(slot);
        }
        return slots;
    }

    /**
     * Checks the counters and the free list against what a kind's audit counted: {@code live}
     * live and {@code retiredSlots} retired slots; every other opened slot but the header must
     * be in the free list exactly once. O(holes).
     *
     * @throws AssertionError naming the first broken invariant
     */
    final void checkSlotCounts(int live, int retiredSlots) {
        check(live == size, "size " + size + " but " + live + " live slots");
        check(retiredSlots == retired, "retired " + retired + " but " + retiredSlots + " retired slots");
        int[] free = freeSlots();
        java.util.BitSet seen = new java.util.BitSet();
        for (int slot : free) {
            check(isFreeSlot(slot), "free list holds slot " + slot + ", which is not free");
            check(!seen.get(slot), "free list holds slot " + slot + " twice");
            seen.set(slot);
        }
        check(free.length == 0 || link(free[free.length - 1]) == 0, "free list does not return to the header");
        int opened = Math.max(0, limit - 1);
        check(free.length + live + retiredSlots == opened, "holes " + free.length + " + live " + live
                + " + retired " + retiredSlots + " != opened slots " + opened);
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
