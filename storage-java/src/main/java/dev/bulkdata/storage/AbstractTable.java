package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.AccessGuard;
import dev.bulkdata.storage.internal.core.ChangeQueue;
import dev.bulkdata.storage.internal.core.RemoveBatch;
import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.internal.core.SlotRejections;
import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;
import dev.bulkdata.storage.internal.events.TableEvents;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.format.MappedStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * What every table kind shares (name, schema, tag, arena, open state, {@link AccessGuard}) and the operations of
 * {@link Table}, written once over each kind's {@link SlotMap} and records. A handle resolves to a slot, then to a
 * record index by the kind's rule ({@link #recordOf}); record {@code r} lies in {@code segments[r >>> recordShift]} at
 * {@code r & recordMask} in both kinds, so the typed accessors by handle (generated, at the end) are written once.
 *
 * <p>Every structural change runs between {@link #beginChange} and {@link AccessGuard#endChange}. A change that
 * overlapped another thread's, or failed in a way only a broken structure explains, marks the table corrupt
 * ({@link #poison}): every later call but {@code close()} throws {@link IllegalStateException}. ARCHITECTURE.md,
 * "Structural operations" and "Threads".
 */
abstract sealed class AbstractTable implements Table, AccessGuard.Owner, RemoveBatch.Owner permits BulkTableImpl, PackedTableImpl {
    private static final MemorySegment[] NO_SEGMENTS = new MemorySegment[0];

    final Schema schema;
    /** The blocks' segments, indexed by {@code record >>> recordShift}; kept by the kind. */
    MemorySegment[] segments = NO_SEGMENTS;
    // The reserved range of records [0, regionRecords) (adoptRegion), or null; ARCHITECTURE.md, "Memory layout".
    MemorySegment region;
    int regionRecords;
    /** Whether {@link #region} holds every record: one flag C2 hoists out of a loop, instead of a compare per record. */
    boolean regionHoldsAll;
    /** Record index to segment and position: both kinds put {@code slotsPerBlock} records in a block. */
    final int recordShift;
    final int recordMask;
    /** The chunks' change versions: every write by handle stamps its field in its chunk. */
    final ChangeVersions versions;

    final HandleLayout handles;
    /** The tag's lease: records every handle made, for the next table under this tag. */
    final TagLease lease;
    final BlockArena arena;
    final SlotMap slots;
    final AccessGuard guard = new AccessGuard(this);
    int size;
    /** Record removals (any kind): a {@link Group} that saw the same count at its last sweep has no stale row. */
    long removals;
    /** The blocks {@link TableStats#blocks()} reports and a snapshot writes, spares not counted; kept by the kind. */
    int blockCount;
    /** Set once by {@link #close()}; never cleared. */
    boolean closed;
    /** Set once by {@link #poison}: two threads changed the structure at once. */
    boolean corrupt;
    private String corruption;
    // The handle of the last structural change if it was add(), else 0: what cancelAdd needs, with lastAddLimit.
    private long lastAdd;
    /** The changes queued during passes ({@link #removeLater}, {@link #addLater}); made at the first. */
    private volatile ChangeQueue queue;
    private final RemoveBatch removeBatch = new RemoveBatch(this);
    private int lastAddLimit;
    /** The file and checkpoint state of a mapped table ({@link MappedStore}); null for a table in memory. */
    MappedStore mapped;
    // Loaded under a new tag (LoadOption.NEW_TAG): the saved identity, tag and generation shift, for remap; else 0.
    long savedIdentity;
    int savedTag;
    int generationShift;
    /** The referrers {@link Snapshots#remap} has rewritten for this table, so that it runs once for each. */
    private java.util.Set<Object> remapped;

    /** {@return whether {@code referrer}'s references to this table were remapped} */
    final synchronized boolean remapped(Object referrer) {
        return remapped != null && remapped.contains(referrer);
    }

    final synchronized void markRemapped(Object referrer) {
        if (remapped == null) {
            remapped = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());
        }
        remapped.add(referrer);
    }

    /**
     * A table under a tag already leased. {@code links}: where free slots keep their links, made from the new table
     * (which the links may keep but must not use yet), or null for beside the meta words.
     */
    AbstractTable(Schema schema, HandleLayout handles, ReuseOrder reuseOrder, int maxCapacity, TagLease lease,
                  java.util.function.Function<AbstractTable, SlotMap.Links> links) {
        this.schema = schema;
        this.versions = new ChangeVersions(schema);
        this.recordShift = Integer.numberOfTrailingZeros(schema.slotsPerBlock());
        this.recordMask = schema.slotsPerBlock() - 1;
        this.handles = handles;
        this.lease = lease;
        this.slots = new SlotMap(schema.name(), handles, lease.tag, lease.floor, maxCapacity, reuseOrder,
                links == null ? null : links.apply(this), TableEvents.RETIREMENTS);
        this.arena = new BlockArena(this, lease, TableEvents.ARENA);
        TableEvents.opened(this, lease.tag, this instanceof BulkTable ? "BulkTable" : "PackedTable",
                AbstractTable::readStatistics);
        slots.reserveRange(arena);
    }

    /** The flight recorder's periodic read of a table's {@link #stats()}; kept static so it holds no table. */
    private static void readStatistics(Object owner, long[] into) {
        TableStats stats = ((AbstractTable) owner).stats();
        into[0] = stats.live();
        into[1] = stats.holes();
        into[2] = stats.retired();
        into[3] = stats.capacity();
        into[4] = stats.blocks();
        into[5] = stats.nativeBytes();
    }

    /** {@return the number of chunks an iteration visits} */
    abstract int chunkCount();

    /** {@return chunk {@code index}, {@code 0 <= index < chunkCount()}} */
    abstract SlotChunk chunkAt(int index);

    /** Forgets the records (every later chunk access sees none); called once by {@link #close()}, after the slot map forgot its slots. */
    abstract void onClose();

    /** Removes every record (the slot map's {@code releaseAllLive}, or {@code resetAll} for a reset); under the writer mark. */
    abstract void clearRecords(boolean reset);

    /** @return the slot of {@code handle} if it is live in this table, else -1 */
    @Override
    public final int findSlot(long handle) {
        return slots.find(handle);
    }

    /**
     * Makes room so that {@code count} activations cannot fail (BulkTable: blocks up to {@code highestSlot}, -1: none;
     * PackedTable: rows), remembering the block count for {@link #unreserve}. Throws
     * {@link CapacityExceededException} if memory runs out; no record is added.
     */
    abstract void reserveRecords(int count, long highestSlot);

    /** Makes a slot from {@link SlotMap#take()} live, with an all-zero record, and returns its handle. */
    abstract long activate(int slot);

    /** Adds a reserved batch's first records at once where the kind can (default none); returns the index after. */
    int addRun(long[] handlesOut, int from, int to) {
        return from;
    }

    /** Takes and activates free slots a bit-set word at a time, as {@link SlotMap#take()} would; returns where it stopped. */
    int addWords(long[] handlesOut, int from, int to) {
        return from;
    }

    /**
     * Drops a no-longer-live slot's record (BulkTable: live bit; PackedTable: last row fills the gap) and counts it out
     * of {@code size}. No byte is zeroed ({@link #activate} does); the meta word is the caller's.
     */
    abstract void dropRecord(int slot);

    /**
     * Undoes the last {@link #reserveRecords} after {@link #undoAdd}: its blocks become zeroed spares; a BulkTable
     * zeroes {@code slot}'s record if it is now past the limit (never-opened records are zero).
     */
    abstract void unreserve(int slot);

    // ---- Structure, shared by every kind

    /** Finishes removing a live or dead-marked slot: drops its record; {@link SlotMap#release} frees or retires it. */
    @Override
    public final void releaseDead(int slot) {
        removals++;
        dropRecord(slot);
        slots.release(slot);
    }

    /** Tells the tag lease about a handle this table hands out. */
    private void issue(long handle) {
        lease.issued(handles.generation(handle), HandleBits.intSlot(handles, handle));
    }

    /** {@link #issue} for an ascending run of handles: the lease hears its highest generation and last slot once. */
    private void issueRun(long[] out, int from, int to) {
        if (from == to) {
            return;
        }
        long generations = 0; // the highest generation field of the run, in place
        for (int i = from; i < to; i++) {
            generations = Math.max(generations, HandleBits.payload(handles, out[i]));
        }
        lease.issued(handles.generation(generations), HandleBits.intSlot(handles, out[to - 1]));
    }

    /** Checks room for {@code count} records, slots and storage, so that as many takes and activations cannot fail. */
    private void reserve(int count) {
        long highest = slots.reserve(count, size);
        reserveRecords(count, highest);
    }

    @Override
    public final long add() {
        long me = beginChange("add to");
        long handle;
        try {
            int limitBefore = slots.limit;
            reserve(1);
            handle = activate(slots.take());
            issue(handle);
            lastAdd = handle;
            lastAddLimit = limitBefore;
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
        return handle;
    }

    @Override
    public final void addAll(long[] handlesOut, int from, int to) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        long me = beginChange("add to");
        try {
            reserve(to - from);
            int run = addRun(handlesOut, from, to);
            issueRun(handlesOut, from, run);
            int words = addWords(handlesOut, run, to);
            for (int i = run; i < words; i++) {
                issue(handlesOut[i]);
            }
            for (int i = words; i < to; i++) {
                long handle = activate(slots.take());
                issue(handle);
                handlesOut[i] = handle;
            }
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
    }

    @Override
    public final void addAll(long[] handlesOut, int from, int to, RecordInit init) {
        Objects.checkFromToIndex(from, to, handlesOut.length);
        if (init == null) {
            throw new IllegalArgumentException("init is null (table '" + name() + "')");
        }
        ensureOpen();
        int step = schema.slotsPerBlock();
        for (int at = from; at < to; ) {
            int end = (int) Math.min(to, (long) at + step);
            addAll(handlesOut, at, end);
            initRun(handlesOut, at, end, init);
            at = end;
        }
    }

    /** Runs {@code init} over the records {@link #addAll(long[], int, int, RecordInit)} just added to {@code handles[from, to)}. */
    private void initRun(long[] handles, int from, int to, RecordInit init) {
        beginIteration();
        int i = from;
        Throwable failure = null;
        try {
            for (; i < to; i++) {
                initAt(slotOf(handles[i]), i, init);
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            endPass(failure);
        }
        if (failure != null) {
            for (int k = i; k < to; k++) {
                if (findSlot(handles[k]) >= 0) {
                    try {
                        remove(handles[k]);
                    } catch (RuntimeException e) {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(failure);
        }
    }

    /** Calls {@code init} with live {@code slot}'s chunk and its slot in that chunk. */
    abstract void initAt(int slot, int i, RecordInit init);

    @Override
    public final boolean cancelAdd(long handle) {
        long last = lastAdd;
        long me = beginChange("cancel an add in");
        boolean exact = false;
        try {
            int slot = findSlot(handle);
            if (slot >= 0) {
                slots.markDead(slot);
                if (handle == last && SlotMeta.generation(slots.meta(slot)) < slots.maxGeneration) {
                    undoAdd(slot);
                    exact = true;
                } else {
                    releaseDead(slot);
                }
            }
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
        return exact;
    }

    // Gives the last add's slot back (free list or never-opened, blocks set aside); its generation advances, so the
    // handle the add returned stays stale.
    private void undoAdd(int slot) {
        removals++;
        dropRecord(slot);
        slots.undoTake(slot, lastAddLimit);
        unreserve(slot);
    }

    @Override
    public final void remove(long handle) {
        long me = beginChange("remove from");
        try {
            // No markDead first: release writes the slot's meta word once, free or retired.
            releaseDead(slotOf(handle));
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
    }

    @Override
    public final void clear() {
        empty("clear", false);
    }

    @Override
    public final void reset() {
        empty("reset", true);
    }

    private void empty(String operation, boolean reset) {
        long me = beginChange(operation);
        try {
            removals++;
            clearRecords(reset);
            lease.epoch(slots.epoch);
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
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
            removeBatch.remove(handles, from, to);
        } catch (Throwable t) {
            throw guard.abortChange(me, t, false);
        }
        guard.endChange(me);
    }

    // ---- Changes queued during a pass

    @Override
    public final void removeLater(long handle) {
        if (!guard.passOpen()) {
            remove(handle);
            return;
        }
        queueRemoval(slotOf(handle));
    }

    /** Queues the live slot {@code slot} for removal when the last open pass ends; any thread. */
    final void queueRemoval(int slot) {
        queue().queueRemoval(slot);
    }

    @Override
    public final void addLater(java.util.function.LongConsumer init) {
        queueAdd(Integer.MAX_VALUE, init);
    }

    /** {@link #addLater}, ordered by the chunk index {@code origin} ({@link Chunk#addLater}). */
    final void queueAdd(int origin, java.util.function.LongConsumer init) {
        if (init == null) {
            throw new IllegalArgumentException("init is null (addLater to table '" + name() + "'); pass h -> {} to"
                    + " add a record whose fields are all zero");
        }
        if (!guard.passOpen()) {
            addNow(init);
            return;
        }
        ensureOpen();
        queue().queueAdd(origin, init);
    }

    /** The queue, made at the first queued change, its removal bits covering every opened slot. */
    private ChangeQueue queue() {
        ChangeQueue q = queue;
        if (q == null) {
            synchronized (this) {
                q = queue;
                if (q == null) {
                    q = new ChangeQueue(slots.limit); // no pass can open a slot while this one is open
                    queue = q;
                }
            }
        }
        return q;
    }

    /** Adds a record and hands its handle to {@code init}; if {@code init} throws, the record is taken back. */
    private long addNow(java.util.function.LongConsumer init) {
        long handle = add();
        try {
            init.accept(handle);
        } catch (RuntimeException | Error e) {
            try {
                cancelAdd(handle);
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        return handle;
    }

    @Override
    public final int applyQueued() {
        ensureOpen();
        if (guard.passOpen()) {
            throw new ConcurrentModificationException("cannot apply the changes queued for table '" + name()
                    + "' while a pass over it is open: they are applied when the last open pass ends");
        }
        return applyQueue(false);
    }

    // Applies the queue with no pass open (removals in slot order, then adds in order) and returns the records changed.
    // A failed add is taken back, later adds stay queued, the failure is thrown; a pass opened meanwhile applies it.
    private int applyQueue(boolean atPassEnd) {
        ChangeQueue q = queue;
        if (q == null || q.isEmpty()) {
            return 0;
        }
        int applied = 0;
        if (q.removalsQueued()) {
            long me;
            try {
                me = beginChange("apply the removals queued for");
            } catch (ConcurrentModificationException e) {
                if (atPassEnd && guard.passOpen()) {
                    return 0; // another thread opened a pass meanwhile: its end applies the queue
                }
                throw e;
            }
            try {
                long[] removals = q.takeRemovals();
                applied = removals == null ? 0 : releaseQueued(removals);
            } catch (Throwable t) {
                throw guard.abortChange(me, t, false);
            }
            guard.endChange(me);
        }
        ChangeQueue.Add[] adds = q.takeAdds();
        for (int i = 0; adds != null && i < adds.length; i++) {
            long handle;
            try {
                handle = add();
            } catch (RuntimeException | Error e) {
                q.requeue(adds, i); // this add did not happen: it stays queued with the rest
                if (atPassEnd && e instanceof ConcurrentModificationException && guard.passOpen()) {
                    return applied;
                }
                throw e;
            }
            try {
                adds[i].init().accept(handle);
            } catch (RuntimeException | Error e) {
                try {
                    cancelAdd(handle);
                } catch (RuntimeException again) {
                    e.addSuppressed(again);
                }
                q.requeue(adds, i + 1);
                throw e;
            }
            applied++;
        }
        return applied;
    }

    /** Removes the live slots whose bits are set in {@code words}, in slot order, clearing the bits. */
    private int releaseQueued(long[] words) {
        int removed = 0;
        SlotMap slots = this.slots;
        for (int w = 0; w < words.length; w++) {
            long bits = words[w];
            if (bits == 0) {
                continue;
            }
            words[w] = 0;
            do {
                int slot = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (SlotMeta.isLive(slots.meta(slot))) {
                    slots.markDead(slot);
                    releaseDead(slot);
                    removed++;
                }
            } while (bits != 0);
        }
        return removed;
    }

    // ---- Rejections

    /** {@return the slot of live {@code handle}}, else throws its {@link #rejection}. */
    final int slotOf(long handle) {
        int slot = findSlot(handle);
        if (slot < 0) {
            throw rejection(handle);
        }
        return slot;
    }

    /** Explains why {@code handle} is not live in this table; the slow path of every access. */
    @Override
    public final RuntimeException rejection(long handle) {
        if (closed || corrupt) {
            return unusable();
        }
        return SlotRejections.rejection(slots, handle, lease.previousName, TagRegistry.OWNERS);
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
    public final boolean isCorrupt() {
        return corrupt;
    }

    @Override
    public final SlotMap slotMap() {
        return slots;
    }

    @Override
    public final String format(long handle) {
        return handles.format(name(), handle);
    }

    /** @throws IllegalStateException if the table is closed or corrupt */
    @Override
    public final void ensureOpen() {
        if (closed || corrupt) {
            throw unusable();
        }
    }

    /** {@return the exception for a closed or corrupt table} */
    @Override
    public final IllegalStateException unusable() {
        if (closed) {
            return new IllegalStateException("table '" + name() + "' is closed");
        }
        return new IllegalStateException("table '" + name() + "' is corrupt: " + corruption
                + ". Its structure was changed by two threads at once (add, remove, clear, cancelAdd and"
                + " defragment need a single writer thread, or a lock around them); every later call but close()"
                + " throws this exception. Close the table and rebuild its contents.");
    }

    /** {@link AccessGuard#beginChange}, forgetting the last add; returns the writer word for its end or abort. */
    final long beginChange(String operation) {
        long me = guard.beginChange(operation);
        lastAdd = 0;
        return me;
    }

    /** Checks that chunks of this table may be used now ({@link AccessGuard#checkChunkAccess()}). */
    public final void checkChunkAccess() {
        guard.checkChunkAccess();
    }

    /** {@link AccessGuard#recheckChunkAccess()}: the slow path's check. */
    public final void recheckChunkAccess() {
        guard.recheckChunkAccess();
    }

    final void beginIteration() {
        guard.beginIteration();
        ChangeQueue q = queue;
        if (q != null) {
            // Slots opened since the last pass get removal bits now, so the bits never grow while visitors set them.
            q.cover(slots.limit);
        }
    }

    final void endIteration() {
        if (guard.endIteration() && queue != null && !queue.isEmpty()) {
            applyQueue(true);
        }
    }

    /** Ends a pass that threw {@code failure} or null; the last applies the queue (failure thrown or suppressed). */
    final void endPass(Throwable failure) {
        if (failure == null) {
            endIteration();
            return;
        }
        try {
            endIteration();
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    /** Opens an iteration that holds this table open ({@link ChunkIteration#holding}). */
    final ChunkIteration iterateHolding(ChangeFilter changes, int since, String holder) {
        if (changes != null) {
            ChangeFilter.check(changes, schema, name());
        }
        beginIteration();
        ChunkIteration it = changes == null ? new ChunkIteration.Holding(this)
                : new ChunkIteration.Holding(this, changes, since);
        guard.hold(it, holder);
        return it;
    }

    /**
     * Marks the table corrupt: every access by handle takes the slow path ({@code limit} 0) and reports it, chunks and
     * iterations end, and every later change throws. Idempotent.
     */
    @Override
    public final void poison(String what) {
        if (!corrupt) {
            corruption = what;
        }
        corrupt = true;
        slots.close();
        guard.end();
    }

    @Override
    public final ChunkIteration iterate() {
        beginIteration();
        return new ChunkIteration(this);
    }

    @Override
    public final ChunkIteration iterate(ChangeFilter changes, int since) {
        ChangeFilter.check(changes, schema, name());
        beginIteration();
        return new ChunkIteration(this, changes, since);
    }

    @Override
    public final void forEachChunk(ChunkVisitor visitor) {
        ChunkIteration.chunkPass(this, null, 0, visitor);
    }

    @Override
    public final void forEachChunk(ChangeFilter changes, int since, ChunkVisitor visitor) {
        ChangeFilter.check(changes, schema, name());
        ChunkIteration.chunkPass(this, changes, since, visitor);
    }

    @Override
    public final void forEachChunk(java.util.concurrent.Executor executor, int parallelism, ChunkVisitor visitor) {
        ChunkIteration.parallelPass(this, null, 0, executor, parallelism, visitor);
    }

    @Override
    public final void forEachChunk(ChangeFilter changes, int since, java.util.concurrent.Executor executor,
                                   int parallelism, ChunkVisitor visitor) {
        ChangeFilter.check(changes, schema, name());
        ChunkIteration.parallelPass(this, changes, since, executor, parallelism, visitor);
    }

    @Override
    public final void forEach(RecordVisitor visitor) {
        ChunkIteration.recordPass(this, null, 0, visitor);
    }

    @Override
    public final void forEach(ChangeFilter changes, int since, RecordVisitor visitor) {
        ChangeFilter.check(changes, schema, name());
        ChunkIteration.recordPass(this, changes, since, visitor);
    }

    // MappedTable's methods, public for MappedBulkTableImpl and MappedPackedTableImpl (the tables with mapped set).

    /** {@link MappedTable#checkpoint()}. */
    public final void checkpoint() throws IOException {
        ensureOpen();
        checkpoint(false);
    }

    // Holds an iteration around MappedStore.checkpoint: structural changes meanwhile throw CME.
    private void checkpoint(boolean closing) throws IOException {
        beginIteration();
        try {
            mapped.checkpoint(closing);
        } finally {
            endIteration();
        }
    }

    /** {@link MappedTable#verify()}. */
    public final int verify() throws IOException {
        ensureOpen();
        if (!mapped.checksums) {
            throw new IllegalStateException("table '" + name() + "' has no block checksums to verify: its file was"
                    + " created without them; create it with the builder's blockChecksums(true)");
        }
        beginIteration();
        try {
            return mapped.verify();
        } finally {
            endIteration();
        }
    }

    /** {@link MappedTable#openedCheckpoint()}. */
    public final OpenedCheckpoint openedCheckpoint() {
        return mapped.opened();
    }

    @Override
    public final int markVersion() {
        ensureOpen();
        return versions.mark();
    }

    /** As {@link Table#close()}; a change running on another thread meanwhile fails at its end. */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        guard.checkNotHeld();
        Throwable failure = null;
        if (mapped != null && !corrupt) {
            try {
                checkpoint(true);
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
        closed = true;
        guard.end();
        lastAdd = 0;
        slots.close();
        onClose();
        arena.close();
        if (failure instanceof IOException e) {
            throw new UncheckedIOException("table '" + name() + "' is closed, but its last checkpoint failed: "
                    + e.getMessage() + "; the file holds the checkpoint before", e);
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    final int blockCount() {
        return blockCount;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name() + (closed ? ", closed]" : ", size=" + size() + "]");
    }

    /** {@return the index of {@code handle}'s record in {@link #segments}}, else throws its {@link #rejection}. */
    abstract int recordOf(long handle);

    /** Takes the arena's reserved range, if it has one, for the lookups by handle. */
    final void adoptRegion(BlockArena arena) {
        region = arena.region();
        regionRecords = (int) Math.min(arena.regionBlocks() << recordShift, Integer.MAX_VALUE);
        regionHoldsAll = arena.regionHoldsAll();
    }

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/AbstractTable.java by codegen/Generate.java: edit the template, not these lines
    @Override
    public final byte get(long handle, ByteField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, ByteField field, byte value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final short get(long handle, ShortField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, ShortField field, short value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final char get(long handle, CharField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, CharField field, char value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final int get(long handle, IntField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, IntField field, int value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final long get(long handle, LongField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, LongField field, long value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final float get(long handle, FloatField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final double get(long handle, DoubleField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, DoubleField field, double value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final boolean get(long handle, BooleanField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, BooleanField field, boolean value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }

    @Override
    public final long get(long handle, HandleField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, HandleField field, long value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }
    // @end-generated
}
