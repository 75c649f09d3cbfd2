package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.BlockArena;
import dev.bulkdata.storage.internal.TagLease;
import dev.bulkdata.storage.internal.TagRegistry;

import java.lang.foreign.MemorySegment;
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
 * {@link ConcurrentModificationException} while it is non-zero. It is also what makes a chunk
 * valid: every chunk access checks that the counter is positive ({@link #checkChunkAccess()}),
 * so a chunk kept after the last iteration ended throws instead of reaching a slot whose
 * record may have changed since. Closing sets the counter to {@link #ENDED}, far below zero,
 * so that it never becomes positive again.
 *
 * <h2>Structural changes and the writer claim</h2>
 * Every structural change (add, remove, clear, cancelAdd, defragment) runs between
 * {@link #beginChange} and {@link #endChange}. {@code beginChange} claims the table for the
 * current thread with one compare-and-set of {@code writer} (null to the thread), so two
 * structural changes never run at once: the second throws
 * {@link ConcurrentModificationException} and changes nothing. {@code endChange} releases the
 * claim with a release store. If the claim is found gone at the end (only a concurrent
 * {@code close()} can take it), or a change fails with an internal exception that only a
 * broken structure explains, the table is marked <em>corrupt</em> ({@link #poison}):
 * {@code limit} drops to 0, so every access by handle takes the slow path, which throws
 * {@link IllegalStateException}, as do every chunk and every later change; only {@code close()}
 * still works. Field reads and writes are not claimed: one racing a structural change on
 * another thread is a data race the table does not detect.
 */
abstract sealed class AbstractTable implements Table permits StableTable, DenseTable {
    private static final VarHandle OPEN_ITERATIONS;
    private static final VarHandle WRITER;
    /** The writer mark of a corrupt or closed table: no thread's own. */
    private static final Thread NO_WRITER = Thread.ofVirtual().unstarted(() -> { });
    /** The iteration counter once closed or corrupt: no number of begins makes it positive. */
    static final int ENDED = Integer.MIN_VALUE / 2;
    private static final MemorySegment[] NO_SEGMENTS = new MemorySegment[0];

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OPEN_ITERATIONS = lookup.findVarHandle(AbstractTable.class, "openIterations", int.class);
            WRITER = lookup.findVarHandle(AbstractTable.class, "writer", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Schema schema;
    final HandleLayout layout;
    /** This table's tag, 1 to {@link HandleLayout#MAX_TAG}; released on close. */
    final int tag;
    /** The tag's lease: records every handle made, for the next table under this tag. */
    final TagLease lease;
    /**
     * The generation every slot starts at: earlier tables under this tag made handles of lower
     * generations only (see {@link TagRegistry}). 0 for a tag never used before.
     */
    final int floor;
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
    /** The blocks' segments, indexed by {@code record >>> recordShift}; kept by the kind. */
    MemorySegment[] segments = NO_SEGMENTS;
    /** Record index to segment and position: both kinds put {@code slotsPerBlock} records in a block. */
    final int recordShift;
    final int recordMask;
    /** Slots {@code [0, limit)} are opened; 0 before the first add and after close. */
    int limit;
    /** Live records. */
    int size;
    /** Slots retired at the last generation: never handed out again. */
    int retired;
    /** Set once by {@link #close()}; never cleared. */
    boolean closed;
    /** Set once by {@link #poison}: two threads changed the structure at once. */
    boolean corrupt;
    /** What {@link #poison} detected, for messages. */
    private String corruption;
    /** Iterations open right now; structural changes require 0; {@link #ENDED} once closed. */
    @SuppressWarnings("unused") // accessed through OPEN_ITERATIONS
    private volatile int openIterations;
    /** The thread holding the structural-change claim, or null; {@link #NO_WRITER} once corrupt or closed. */
    @SuppressWarnings("unused") // accessed through WRITER
    private Thread writer;
    /**
     * The handle returned by the last structural change if it was {@link #add()}, else 0; with
     * what {@link #cancelAdd} needs to undo it: {@code limit} and the kind's block count before.
     */
    private long lastAdd;
    private int lastAddLimit;
    private int lastAddBlocks;

    AbstractTable(Schema schema, HandleLayout layout, ReuseOrder reuseOrder, int maxCapacity) {
        this.schema = schema;
        this.layout = layout;
        this.indexBits = layout.indexBits();
        this.indexMask = (1L << indexBits) - 1;
        this.generationMask = layout.maxGeneration();
        this.payloadMask = layout.payloadMask();
        this.maxGeneration = layout.maxGeneration();
        this.maxSlot = Math.min(layout.maxIndex(), maxCapacity);
        this.recordShift = Integer.numberOfTrailingZeros(schema.slotsPerBlock());
        this.recordMask = schema.slotsPerBlock() - 1;
        this.freeList = new FreeList(this, reuseOrder);
        this.lease = TagRegistry.register(schema.name(), layout);
        this.tag = lease.tag();
        this.floor = lease.floor();
        this.tagBits = (long) tag << HandleLayout.TAG_SHIFT;
        this.arena = new BlockArena(this, lease);
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

    /** Removes every record, every slot's generation advanced; the caller holds the writer mark. */
    abstract void clearRecords();

    /** {@return the blocks the table holds (the number {@link TableStats#blocks()} reports)} */
    abstract int blockCount();

    /**
     * Gives back the blocks past the first {@code count}, which hold no record, as zeroed
     * spares for the next growth ({@link BlockArena#setAside}).
     */
    abstract void trimBlocks(int count);

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

    /**
     * Resolves a handle to the index of its record in {@link #segments}: record {@code r} is
     * at position {@code r & recordMask} of segment {@code r >>> recordShift}.
     *
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws IllegalStateException if the table is closed or corrupt
     */
    abstract int recordOf(long handle);

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
     * Drops the record of a slot whose live state is already cleared: wipes it (a packed table
     * moves its last row into the gap) and counts it out of {@code size}. The slot's meta word
     * is left to the caller.
     */
    abstract void dropRecord(int slot);

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

    /**
     * Opens the next never-used slot (and the header first); the caller has checked that one is
     * left. The slot starts at the tag's {@link #floor}, or above it if a cancelled add left it
     * a higher generation ({@link #cancelAdd}).
     */
    final int openSlot() {
        if (limit == 0) {
            ensureSlots(1);
            limit = 1;
        } else {
            ensureSlots(limit);
        }
        int slot = limit++;
        int generation = Math.max(floor, Block.generation(meta(slot)));
        setMeta(slot, generation << Block.GENERATION_SHIFT);
        return slot;
    }

    /**
     * Finishes removing a slot whose live state is already cleared: drops its record, advances
     * or retires its generation ({@link #retireOrAdvance}) and frees the slot.
     */
    final void releaseDead(int slot) {
        dropRecord(slot);
        if (retireOrAdvance(slot)) {
            freeList.push(slot);
        }
    }

    /** Tells the tag lease about a handle this table hands out. */
    private void issue(long handle) {
        lease.issued(layout.generation(handle), (int) (handle & indexMask));
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
        Thread me = beginChange("add to");
        long handle;
        try {
            int limitBefore = limit;
            int blocksBefore = blockCount();
            reserveSlots(1);
            reserveRecords(1);
            handle = activate(takeSlot());
            issue(handle);
            lastAdd = handle;
            lastAddLimit = limitBefore;
            lastAddBlocks = blocksBefore;
        } catch (Throwable t) {
            throw abortChange(me, t);
        }
        endChange(me);
        return handle;
    }

    @Override
    public final void addAll(long[] handlesOut, int from, int to) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        Thread me = beginChange("add to");
        try {
            reserveSlots(to - from);
            reserveRecords(to - from);
            for (int i = from; i < to; i++) {
                long handle = activate(takeSlot());
                issue(handle);
                handlesOut[i] = handle;
            }
        } catch (Throwable t) {
            throw abortChange(me, t);
        }
        endChange(me);
    }

    @Override
    public final boolean cancelAdd(long handle) {
        long last = lastAdd;
        Thread me = beginChange("cancel an add in");
        boolean exact = false;
        try {
            int slot = findSlot(handle);
            if (slot >= 0) {
                markDead(slot);
                if (handle == last && Block.generation(meta(slot)) < maxGeneration) {
                    undoAdd(slot);
                    exact = true;
                } else {
                    releaseDead(slot);
                }
            }
        } catch (Throwable t) {
            throw abortChange(me, t);
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
        setMeta(slot, (Block.generation(meta(slot)) + 1) << Block.GENERATION_SHIFT);
        if (limit > lastAddLimit) {
            limit = lastAddLimit;
        } else {
            freeList.pushHead(slot);
        }
        trimBlocks(lastAddBlocks);
    }

    @Override
    public final void remove(long handle) {
        Thread me = beginChange("remove from");
        try {
            int slot = slotOf(handle);
            markDead(slot);
            releaseDead(slot);
        } catch (Throwable t) {
            throw abortChange(me, t);
        }
        endChange(me);
    }

    @Override
    public final void clear() {
        Thread me = beginChange("clear");
        try {
            clearRecords();
        } catch (Throwable t) {
            throw abortChange(me, t);
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
        Thread me = beginChange("remove from");
        try {
            removeChecked(handles, from, to);
        } catch (Throwable t) {
            throw abortChange(me, t);
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
    // Fields by handle: one route for both kinds. A handle resolves to its record index by the
    // kind's rule ({@link #recordOf}: a BulkTable's slot, a PackedTable's row); records are
    // numbered so that record r lives in segment r >>> recordShift at position r & recordMask.

    @Override
    public final byte get(long handle, ByteField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final short get(long handle, ShortField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final char get(long handle, CharField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final int get(long handle, IntField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final long get(long handle, LongField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final float get(long handle, FloatField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final double get(long handle, DoubleField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final boolean get(long handle, BooleanField field) {
        schema.check(field);
        int record = recordOf(handle);
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, ByteField field, byte value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, ShortField field, short value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, CharField field, char value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, IntField field, int value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, LongField field, long value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, FloatField field, float value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, DoubleField field, double value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
    }

    @Override
    public final void set(long handle, BooleanField field, boolean value) {
        schema.check(field);
        int record = recordOf(handle);
        field.set(segments[record >>> recordShift], record & recordMask, value);
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
            String closedOwner = TagRegistry.closedNameOf(handleTag);
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + text + " has tag " + handleTag
                    + ", but table '" + name() + "' has tag " + tag + " and no open table has tag " + handleTag
                    + (closedOwner == null ? "" : "; the last table with that tag, '" + closedOwner
                    + "', is closed, and no later table accepts its handles"));
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
        if (generation < floor) {
            String earlier = layout.format(lease.previousName() == null ? "tag" + tag : lease.previousName(), handle);
            return invalid(handle, InvalidHandleException.Reason.FORGED, "handle " + earlier + " (generation "
                    + generation + ") was made by an earlier table with tag " + tag
                    + (lease.previousName() == null ? "" : " (the last was '" + lease.previousName() + "')")
                    + ", closed since; table '" + name() + "' reuses the tag and starts every slot at generation "
                    + floor + ", so it never accepts those tables' handles");
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
     * that no other thread is inside a change, then marks this thread as the writer. Every
     * change ends with {@link #endChange} or, if it throws, {@link #abortChange}.
     *
     * @param operation what the caller is about to do, for the message
     * @return the writer mark to hand to {@link #endChange}
     * @throws IllegalStateException if the table is closed or corrupt
     * @throws ConcurrentModificationException if an iteration is open or another thread is
     *     changing the table
     */
    final Thread beginChange(String operation) {
        ensureOpen();
        int open = openIterations;
        if (open != 0) {
            throw new ConcurrentModificationException("cannot " + operation + " table '" + name() + "' while "
                    + open + " iteration(s) of it are open; finish or close the iteration first");
        }
        Thread me = Thread.currentThread();
        Thread other = (Thread) WRITER.compareAndExchange(this, null, me);
        if (other != null) {
            throw new ConcurrentModificationException("cannot " + operation + " table '" + name() + "': "
                    + (other == me ? "this thread is already changing it (a change called back into the table)"
                    : "thread '" + other.getName() + "' is changing it right now")
                    + "; a table has a single writer for add, remove, clear and defragment. Nothing was changed.");
        }
        lastAdd = 0;
        return me;
    }

    /**
     * Ends a structural change that completed.
     *
     * @throws ConcurrentModificationException if another thread changed the table meanwhile;
     *     the table is then corrupt
     */
    final void endChange(Thread me) {
        // A thread that read the writer mark just before another thread poisoned the table can
        // have overwritten the poisoned mark with its own: `corrupt` catches that case.
        if (WRITER.getOpaque(this) != me || corrupt) {
            throw concurrentChange(null);
        }
        WRITER.setRelease(this, null);
    }

    /**
     * Ends a structural change that threw {@code failure}, returning what to throw: the failure
     * itself, unless another thread changed the table meanwhile (then a
     * {@link ConcurrentModificationException}, the table corrupt, the failure suppressed) or the
     * failure is an internal error that only a broken structure explains, such as a
     * {@link NullPointerException} or {@link ArrayIndexOutOfBoundsException} (then the table is
     * corrupt too).
     */
    final RuntimeException abortChange(Thread me, Throwable failure) {
        return abortChange(me, failure, false);
    }

    /**
     * As {@link #abortChange(Thread, Throwable)}; if {@code fromCallback}, the failure may come
     * from user code the change called (a {@link RecordOrder}) and is never taken for a broken
     * structure.
     */
    final RuntimeException abortChange(Thread me, Throwable failure, boolean fromCallback) {
        if (WRITER.getOpaque(this) != me || corrupt) {
            return concurrentChange(failure);
        }
        if (!fromCallback && failure instanceof NullPointerException || failure instanceof ArrayIndexOutOfBoundsException
                || failure instanceof ClassCastException || failure instanceof NegativeArraySizeException) {
            poison("an internal " + failure.getClass().getSimpleName() + " during a change");
            IllegalStateException e = unusable();
            e.initCause(failure);
            return e;
        }
        WRITER.setRelease(this, null);
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
        limit = 0;
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

    /**
     * Frees the memory even if an iteration is open (its chunks then throw) or the table is
     * corrupt; a change running on another thread meanwhile fails at its end.
     */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN_ITERATIONS.setVolatile(this, ENDED);
        WRITER.setVolatile(this, NO_WRITER);
        lastAdd = 0;
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
