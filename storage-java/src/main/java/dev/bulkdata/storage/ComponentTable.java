package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.internal.core.PagedInts;
import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;
import dev.bulkdata.storage.internal.events.TableEvents;
import dev.bulkdata.storage.internal.memory.RowSort;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * Optional per-entity data: at most one component record per entity of an entity table (a {@link BulkTable} or a
 * {@link PackedTable}), keyed by the entity's handle, kept in dense rows so that loops over the components touch no
 * holes. Fields are read and written by entity handle, or by dense row in loops and {@link Join}s. A {@link SparseSet}
 * maps the entity's slot to a row; removal is swap-and-pop. add, contains, remove, get and set by entity are O(1) and
 * allocate nothing. A component never outlives its entity: every access by entity checks that the handle is live in
 * the entity table and matches the row's owner generation. Removing an entity leaves its component <em>stale</em>
 * (invisible to {@link #contains}, loops and joins) until its slot's next {@link #add}, {@link #removeDead()} or
 * {@link #clear()}; {@link #size()} counts it until then. Guide: docs/relations.md, "Component tables and joins".
 *
 * <p id="typed"><b>Typed access.</b> One {@code get}/{@code set} pair per field type by entity, and one
 * {@code getAt}/{@code setAt} pair by dense row as a {@link Join} hands rows out; O(1), allocation-free. A field of
 * another schema throws {@link IllegalArgumentException}.
 *
 * <p><b>Threads and errors.</b> One writer for structure ({@code add}, {@code remove}, {@code removeDead},
 * {@code forEachChunk}, {@code clear}, {@code reset}, {@code defragment}, {@code close}), no other thread using the
 * table meanwhile; fields of distinct components may be read and written from many threads. During a loop or
 * {@link Join} over this table these structural changes throw {@link ConcurrentModificationException} (queue them:
 * {@link #removeLater}, {@link #addLater}). Methods taking an entity handle, but {@link #contains}, throw
 * {@link InvalidHandleException} for a null, stale, foreign or forged handle, {@link IllegalArgumentException} if the
 * entity has no component here ({@code add}, {@code addLater}: has one) and {@link IllegalStateException} if the entity
 * table is closed (so do {@code removeDead} and {@code forEachChunk}); a row out of range,
 * {@link IndexOutOfBoundsException}. Every method that throws leaves the table as it was. After {@link #close()} every
 * method but {@code close}, {@code isClosed}, {@code contains} (false), {@code name}, {@code schema} and
 * {@code entities} throws {@link IllegalStateException}.
 */
public final class ComponentTable implements AutoCloseable {
    /** Receives the components of a {@link #forEach} loop. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * Visits one component.
         *
         * @param entity the live entity handle that owns it
         * @param row its dense row, for {@link #getAt} and {@link #setAt}
         */
        void visit(long entity, int row);
    }

    /** The entity table, also read by {@link Join} and the snapshot writer. */
    final AbstractTable entities;
    final Schema schema;
    final BlockArena arena;
    final SparseSet set;
    final DenseRows<DenseChunk> rows;
    final PagedInts generations = new PagedInts(SparseSet.PAGE_SHIFT, 0);
    private boolean closed;
    /** The entity table's {@code removals} when no row was stale (every owner live), for {@link Join}; -1: unknown. */
    long cleanAt;
    /** The {@link Group} whose rows come first in this table, or null; set by the group. */
    Group group;
    /** Changes queued during a loop ({@link #removeLater}, {@link #addLater}), guarded by itself; null until the first. */
    private java.util.ArrayList<Queued> queued;

    /** A component removal ({@code init} null) or add queued during a loop. */
    private record Queued(long entity, java.util.function.LongConsumer init) {
    }
    // Whether rows are in entity slot order since the last full defragment pass (in a group: its rows, those after).
    private boolean sorted = true;
    /** The first row {@link #sorter} sorts: 0, or the group's size in a grouped table. */
    private int sortBase;
    private final RowSort sorter = new RowSort(new RowSort.Rows() {
        @Override
        public int compareRows(int a, int b) {
            return Integer.compare(set.keyAtUnchecked(sortBase + a), set.keyAtUnchecked(sortBase + b));
        }

        @Override
        public void swapRows(int a, int b) {
            swap(sortBase + a, sortBase + b);
        }
    });

    /** An empty table: {@link #of} checks the arguments first; a snapshot load restores into it. */
    ComponentTable(AbstractTable entities, Schema schema) {
        this.entities = entities;
        this.schema = schema;
        this.set = new SparseSet();
        TagLease lease = TagRegistry.register(schema.name(), entities.handleLayout());
        this.arena = new BlockArena(this, lease, TableEvents.ARENA);
        TableEvents.opened(this, lease.tag, "ComponentTable", ComponentTable::readStatistics);
        RowOwner rowOwner = new RowOwner();
        this.rows = new DenseRows<>(schema, arena, (r, b) -> new DenseChunk(rowOwner, r, b), entities.slots.maxSlot);
        this.cleanAt = entities.removals;
    }

    /** The flight recorder's periodic read: live is the row count, holes and retired are 0. */
    private static void readStatistics(Object owner, long[] into) {
        ComponentTable table = (ComponentTable) owner;
        into[0] = table.size();
        into[4] = table.arena.blocks();
        into[5] = table.arena.bytes();
    }

    /**
     * {@return a new, empty component table for the entities of a table; it holds no native memory until the first add}
     *
     * @param entities the entity table, a {@link BulkTable} or {@link PackedTable}, open
     * @param schema the component record's schema
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException if {@code entities} is closed or all table tags are in use
     */
    public static ComponentTable of(Table entities, Schema schema) {
        if (!(entities instanceof AbstractTable table)) { // Table is sealed: only null is not one
            throw new IllegalArgumentException("entities is null; give the entity table, a BulkTable or PackedTable");
        }
        table.ensureOpen();
        if (schema == null) {
            throw new IllegalArgumentException("schema is null");
        }
        return new ComponentTable(table, schema);
    }

    /** Hands chunk views the owner entity of each row, and this table's name and state. */
    private final class RowOwner implements DenseChunk.Owner {
        /** A component table keeps no change versions: its chunks' stamps go to one unread row. */
        private final ChangeVersions versions = ChangeVersions.unused(schema);

        @Override
        public ChangeVersions versions() {
            return versions;
        }
        @Override
        public String name() {
            return schema.name();
        }

        @Override
        public void checkChunkAccess() {
            ensureOpen();
            if (set.openJoins() <= 0) {
                throw new IllegalStateException("a chunk of component table '" + name() + "' was used after its"
                        + " forEachChunk pass ended: a chunk is valid only inside the visitor, because rows move"
                        + " once the pass is over; keep entity handles (chunk.handle(slot)) instead of chunks");
            }
        }

        @Override
        public long handleOfRow(int row) {
            return entityAt(row);
        }

        @Override
        public void removeRowLater(int row) {
            throw noQueue();
        }

        @Override
        public void addLaterFrom(int chunk, java.util.function.LongConsumer init) {
            throw noQueue();
        }

        private IllegalStateException noQueue() {
            return new IllegalStateException("the chunks of component table '" + name() + "' queue no changes:"
                    + " queue the entity's removal on the entity table (entities.removeLater(chunk.handle(slot))),"
                    + " or remove the entity at once, which a pass over a component table allows");
        }
    }

    /** {@return the component schema's name} */
    public String name() {
        return schema.name();
    }

    /** {@return the component record's schema} */
    public Schema schema() {
        return schema;
    }

    /** {@return the table whose entity handles key this table} */
    public Table entities() {
        return entities;
    }

    /** {@return whether {@link #close()} was called} */
    public boolean isClosed() {
        return closed;
    }

    /** {@return the number of rows, stale components included (see the class comment); O(1)} */
    public int size() {
        ensureOpen();
        return set.size();
    }

    // Structure

    /**
     * Gives an entity a component, all fields zero, taking over and zeroing the stale row of a removed entity in the
     * same slot if there is one. O(1); O(members) in a {@link Group}, whose rows then move to keep it packed.
     *
     * @param entity a live handle of the entity table without a component here
     * @return the component's dense row (where it ends up), valid until the next structural change of this table
     * @throws CapacityExceededException if native memory runs out
     */
    public int add(long entity) {
        ensureMutable("add to");
        int key = entities.slotOf(entity);
        int generation = HandleBits.stamp(entities.handles, entity);
        int row = set.indexOf(key);
        if (row >= 0) {
            if (generation(row) == generation) {
                throw new IllegalArgumentException("entity " + entities.format(entity)
                        + " already has a component in '" + name() + "' (row " + row + ")");
            }
            if (group != null) {
                row = group.leave(row);     // the stale row was a removed entity's group row
            }
            SchemaAccess.wipe(schema, rows.blockOf(row), rows.slotOf(row));
            generations.set(row, generation);
            return group == null ? row : group.entered(key, generation, row);
        }
        // Everything that may fail comes before the first change.
        int next = set.size();
        rows.reserve((long) next + 1);
        generations.ensure(next);
        row = set.insert(key);
        rows.addRow();
        sorted = false;
        generations.set(row, generation);
        return group == null ? row : group.entered(key, generation, row);
    }

    /**
     * {@return whether {@code entity} is live with a component here, as get, set and remove need} O(1); never throws.
     *
     * @param entity any value
     */
    public boolean contains(long entity) {
        return !closed && find(entity) >= 0;
    }

    /**
     * Removes an entity's component: the last row moves into its row. O(fields). Stale ones: {@link #removeDead()}.
     *
     * @param entity a live handle of the entity table that has a component here
     */
    public void remove(long entity) {
        ensureMutable("remove from");
        removeRow(rowOf(entity));
    }

    private void removeRow(int row) {
        removeRowUngrouped(group == null ? row : group.leave(row));
    }

    /** Swap-and-pop of one row on both sides: set, records and owner generations; never a group row. */
    void removeRowUngrouped(int row) {
        sorted = false;
        int moved = set.remove(set.keyAtUnchecked(row));
        rows.removeRow(row);
        if (moved >= 0) {
            generations.set(row, generation(moved));
            generations.set(moved, 0);
        } else {
            generations.set(row, 0);
        }
    }

    /**
     * Removes every stale component (of an entity removed from the entity table). O(size), one entity lookup per row.
     *
     * @return how many components were removed
     */
    public int removeDead() {
        ensureMutable("remove dead components from");
        entities.ensureOpen();
        int removed = 0;
        // Downwards: the row that swap-and-pop moves in is always one already checked.
        for (int row = set.size() - 1; row >= 0; row--) {
            if (!entities.contains(entityAt(row))) {
                removeRow(row);
                removed++;
            }
        }
        cleanAt = entities.removals;
        return removed;
    }

    /** {@link #clear()}, under the entity tables' name: a component table has no handles of its own to purge. */
    public void reset() {
        clear();
    }

    /** Removes every component. O(size); memory is kept for reuse. */
    public void clear() {
        ensureMutable("clear");
        if (group != null) {
            group.cleared();
        }
        generations.fillAll();
        set.clear();
        rows.clear();
        sorted = true;
        cleanAt = entities.removals;
    }

    /**
     * Moves rows toward entity order (ascending owner slot), so that loops and joins over several tables walk memory in
     * entity order, in at most {@code maxSwaps} swaps of neighbouring rows; call again to continue. After a complete
     * pass, calls return 0 at once until an add or remove. An insertion sort like {@link PackedTable#defragment}:
     * O(n + I) comparisons and I swaps for I inversions, no allocation; handles stay, dense rows change.
     *
     * @param maxSwaps the most swaps this call may make, {@code >= 0}
     * @return the number of swaps made
     * @throws IllegalArgumentException if {@code maxSwaps < 0}
     */
    public long defragment(long maxSwaps) {
        if (maxSwaps < 0) {
            throw new IllegalArgumentException("maxSwaps=" + maxSwaps + " must be >= 0 (component table '"
                    + name() + "')");
        }
        ensureMutable("defragment");
        if (sorted) {
            return 0;
        }
        if (group == null) {
            sortBase = 0;
            long swaps = sorter.sort(set.size(), maxSwaps);
            sorted = sorter.finished();
            return swaps;
        }
        long swaps = group.sortRows(maxSwaps);
        if (!group.rowsSorted()) {
            return swaps;
        }
        sortBase = group.rows();
        swaps += sorter.sort(set.size() - sortBase, maxSwaps - swaps);
        sorted = sorter.finished();
        return swaps;
    }

    /** Frees the native memory. Idempotent. The entity table is not touched. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        ensureNoLoop("close");
        if (group != null) {
            group.dissolve();
        }
        closed = true;
        rows.forget();
        arena.close();
    }

    // Loops

    /**
     * {@return the owner of a dense row: an entity handle, stale if the entity was removed and the row not swept} O(1).
     *
     * @param row a row, {@code 0 <= row < size()}
     */
    public long entityAt(int row) {
        checkedRow(row);
        return entities.slots.handleOfStamp(set.keyAtUnchecked(row), generation(row));
    }

    /**
     * Visits every component whose entity is live, in row order. O(size), one entity lookup per row; allocation-free.
     * The visitor may remove entities (a component whose entity is removed before its turn is skipped).
     *
     * @param visitor receives each live entity and its row
     */
    public void forEach(Visitor visitor) {
        ensureOpen();
        set.beginJoin();
        try {
            for (int row = 0, n = set.size(); row < n; row++) {
                long owner = entities.slots.handleOfStamp(set.keyAtUnchecked(row), generation(row));
                if (entities.contains(owner)) {
                    visitor.visit(owner, row);
                }
            }
        } finally {
            set.endJoin();
        }
        applyQueuedIfIdle();
    }

    /**
     * Visits the rows block by block as {@link Chunk}s whose live slots are a prefix ({@code [0, liveCount())}),
     * {@link Chunk#handle(int)} giving each row's owner. Stale components are swept out first ({@link #removeDead()}).
     * O(size); allocation-free once the chunk views exist.
     *
     * @param visitor receives each chunk
     */
    public void forEachChunk(ChunkVisitor visitor) {
        removeDead();
        set.beginJoin();
        try {
            for (int i = 0, n = rows.chunkCount(); i < n; i++) {
                visitor.visit(rows.chunk(i));
            }
        } finally {
            set.endJoin();
        }
        applyQueuedIfIdle();
    }

    // Snapshots (StoredTables)

    /** Writes a snapshot to {@code out} with structural changes refused (as during a loop), the table open. */
    void save(java.nio.channels.WritableByteChannel out) throws java.io.IOException {
        ensureOpen();
        set.beginJoin();
        try {
            StoredTables.write(this, out);
        } finally {
            set.endJoin();
        }
    }

    /** Allocates row block {@code b} of a table being restored (blocks in order) and returns it to be filled. */
    java.lang.foreign.MemorySegment restoreBlock(int b) {
        rows.reserve(Math.min((long) (b + 1) * schema.slotsPerBlock(), rows.maxRows()));
        return rows.segments()[b];
    }

    // Restored row r: slot keys[r] at generation owners[r] (reader-checked). Unsorted: defragment progress isn't saved.
    void restoreRows(int[] keys, int[] owners) {
        cleanAt = -1;
        if (keys.length > 0) {
            generations.ensure(keys.length - 1L);
        }
        for (int row = 0; row < keys.length; row++) {
            set.insert(keys[row]);
            generations.set(row, owners[row]);
        }
        rows.restoreSize(keys.length);
        sorted = keys.length == 0;
    }

    // Lookups, shared with Join

    // The owner generation of a row, unchecked, epoch bits included (HandleLayout.stamp): a later epoch never matches.
    int generation(int row) {
        return generations.get(row);
    }


    /** The row of a live entity's component, or -1; never throws. */
    private int find(long entity) {
        if (!entities.contains(entity)) {
            return -1;
        }
        int row = set.indexOf((int) entities.handles.slot(entity));
        return row >= 0 && generation(row) == HandleBits.stamp(entities.handles, entity) ? row : -1;
    }

    /** Exchanges two rows below {@link #size()} on all sides, unchecked: for defragment and {@link Group}. */
    void swap(int a, int b) {
        if (a == b) {
            return;
        }
        sorted = false;
        set.swapRows(a, b);
        rows.swapRows(a, b);
        int generation = generation(a);
        generations.set(a, generation(b));
        generations.set(b, generation);
    }

    int rowOf(long entity) {
        int row = find(entity);
        if (row < 0) {
            throw noComponent(entity);
        }
        return row;
    }

    private RuntimeException noComponent(long entity) {
        ensureOpen();
        if (!entities.contains(entity)) {
            return entities.rejection(entity);
        }
        return new IllegalArgumentException("entity " + entities.format(entity) + " has no component in '"
                + name() + "'; add it first or check with contains(entity)");
    }

    int checkedRow(int row) {
        ensureOpen();
        return Objects.checkIndex(row, set.size());
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("component table '" + name() + "' is closed");
        }
    }

    private void ensureMutable(String operation) {
        ensureOpen();
        ensureNoLoop(operation);
    }

    // Changes queued during a loop

    /**
     * Removes an entity's component once no loop over this table (or a member of its group) runs: inside
     * {@link #forEach}, {@link #forEachChunk}, a {@link Join} or a {@link Group} pass, where {@link #remove} throws,
     * the removal is queued and the component stays visible until the loop ends; then the queue is applied, removals
     * first, in the order queued (twice queued, removed once). With no loop running it is {@link #remove}. The entity
     * and its component are checked now. O(1) amortized under the queue's lock; allocates an entry.
     *
     * @param entity a live handle of the entity table that has a component here
     */
    public void removeLater(long entity) {
        ensureOpen();
        if (!loopOpen()) {
            remove(entity);
            return;
        }
        rowOf(entity);
        queue(new Queued(entity, null));
    }

    /**
     * {@link #removeLater}'s counterpart (costs as there): gives an entity a component, then has {@code init} write its
     * fields; during a loop queued, applied after the queued removals in the order queued (an entity removed, or given
     * the component, meanwhile is skipped), else {@link #add} then {@code init} at once. If {@code init} throws, the
     * component is removed again and the exception thrown (later queued adds stay queued). The entity is checked now.
     *
     * @param entity a live handle of the entity table without a component here
     * @param init receives {@code entity} once its component exists
     * @throws IllegalArgumentException if {@code init} is null
     */
    public void addLater(long entity, java.util.function.LongConsumer init) {
        ensureOpen();
        if (init == null) {
            throw new IllegalArgumentException("init is null (addLater to component table '" + name() + "'); pass"
                    + " e -> {} for a component whose fields are all zero");
        }
        if (!loopOpen()) {
            addNow(entity, init);
            return;
        }
        entities.slotOf(entity);
        if (contains(entity)) {
            throw new IllegalArgumentException("entity " + entities.format(entity) + " already has a component in '"
                    + name() + "'");
        }
        queue(new Queued(entity, init));
    }

    private void addNow(long entity, java.util.function.LongConsumer init) {
        add(entity);
        try {
            init.accept(entity);
        } catch (RuntimeException | Error e) {
            try {
                if (contains(entity)) {
                    remove(entity);
                }
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    private void queue(Queued change) {
        synchronized (this) {
            if (queued == null) {
                queued = new java.util.ArrayList<>();
            }
            queued.add(change);
        }
    }

    private boolean loopOpen() {
        if (group != null) {
            return group.loopOpen();
        }
        return set.openJoins() != 0;
    }

    /** When a loop, join or group pass ends: applies this table's (or its group's) queues if no loop runs any more. */
    void applyQueuedIfIdle() {
        if (group != null) {
            group.applyQueuedIfIdle();
        } else {
            applyOwnQueue();
        }
    }

    /** Applies this table's queue if nothing is queued meanwhile and no loop runs; see {@link #removeLater}. */
    void applyOwnQueue() {
        java.util.ArrayList<Queued> changes;
        synchronized (this) {
            if (queued == null || queued.isEmpty() || closed || loopOpen()) {
                return;
            }
            changes = new java.util.ArrayList<>(queued);
            queued.clear();
        }
        for (Queued q : changes) {
            if (q.init() == null && contains(q.entity())) {
                remove(q.entity());
            }
        }
        for (int i = 0; i < changes.size(); i++) {
            Queued q = changes.get(i);
            if (q.init() != null && entities.contains(q.entity()) && !contains(q.entity())) {
                try {
                    addNow(q.entity(), q.init());
                } catch (RuntimeException | Error e) {
                    synchronized (this) {
                        queued.addAll(0, changes.subList(i + 1, changes.size()).stream()
                                .filter(c -> c.init() != null).toList());
                    }
                    throw e;
                }
            }
        }
    }

    private void ensureNoLoop(String operation) {
        if (group != null) {
            group.checkNoLoop(operation);
        } else {
            checkNoLoop(operation);
        }
    }

    /** Refuses a structural change while a loop or join over this very table runs. */
    void checkNoLoop(String operation) {
        int open = set.openJoins();
        if (open != 0) {
            throw new ConcurrentModificationException("cannot " + operation + " component table '" + name()
                    + "' while " + open + " loop(s) or join(s) over it are running; change it after the loop");
        }
    }

    @Override
    public String toString() {
        return "ComponentTable[" + name() + " of " + entities.name() + (closed ? ", closed]" : ", size=" + size() + "]");
    }

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/ComponentTable.java by codegen/Generate.java: edit the template, not these lines
    // Fields by entity: O(1), allocation-free; the entity must be live and have a component

    /** Reads a {@code byte} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public byte get(long entity, ByteField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code byte} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, ByteField field, byte value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code short} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public short get(long entity, ShortField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code short} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, ShortField field, short value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code char} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public char get(long entity, CharField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code char} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, CharField field, char value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads an {@code int} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public int get(long entity, IntField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes an {@code int} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, IntField field, int value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code long} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public long get(long entity, LongField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code long} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, LongField field, long value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code float} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public float get(long entity, FloatField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code float} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code double} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public double get(long entity, DoubleField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code double} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, DoubleField field, double value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a {@code boolean} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public boolean get(long entity, BooleanField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code boolean} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, BooleanField field, boolean value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    /** Reads a handle field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public long get(long entity, HandleField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a handle field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, HandleField field, long value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }

    // Fields by dense row: for joins and row loops; O(1), allocation-free

    /** Reads a {@code byte} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public byte getAt(int row, ByteField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code byte} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, ByteField field, byte value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code short} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public short getAt(int row, ShortField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code short} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, ShortField field, short value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code char} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public char getAt(int row, CharField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code char} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, CharField field, char value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads an {@code int} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public int getAt(int row, IntField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes an {@code int} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, IntField field, int value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code long} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public long getAt(int row, LongField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code long} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, LongField field, long value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code float} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public float getAt(int row, FloatField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code float} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code double} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public double getAt(int row, DoubleField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code double} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, DoubleField field, double value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a {@code boolean} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public boolean getAt(int row, BooleanField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code boolean} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, BooleanField field, boolean value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }

    /** Reads a handle field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public long getAt(int row, HandleField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a handle field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, HandleField field, long value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }
    // @end-generated
}
