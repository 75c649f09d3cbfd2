package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.memory.RowSort;

import java.util.ConcurrentModificationException;

/**
 * Keeps the entities that have a component in every one of two or more {@link ComponentTable}s packed at the front of
 * all of them, in the same order: row {@code r < size()} of every member belongs to the same entity. A pass then walks
 * the members' rows in lockstep, in memory order, with no per-entity lookup: {@link #forEachRun} hands out runs of rows
 * that lie in one block of every member, for counted loops over columns; {@link #forEach} hands out each entity and its
 * row. The members' own {@code add}, {@code remove}, {@code removeDead}, {@code clear} and {@code defragment} keep the
 * group, at O(members) row swaps per change; the row {@code add} returns is the row after them. Every pass first sweeps
 * out the stale rows of entities removed from the entity table (O(1) if none was removed since the last sweep, else
 * O(size() × members)). A table belongs to at most one group. Guide: docs/relations.md, "Groups". <b>Costs.</b>
 * {@link #forEachRun}: the sweep plus one visit per run, about {@code size() / rowsPerBlock} of the member with the
 * fewest plus one per block boundary of the others. {@link #forEach}: the sweep plus O(size()). Neither allocates.
 *
 * <p><b>Threads and errors.</b> As the members: one writer for structure, and a pass counts as a loop over every
 * member, so during one their structural changes throw {@link ConcurrentModificationException}; starting a pass (whose
 * sweep changes structure) during a loop or join over a member throws it too. A group runs one pass at a time (its
 * {@link Run} is reused): starting another meanwhile throws {@link IllegalStateException}, and a pass given a null
 * visitor {@link IllegalArgumentException}; splitting field writes among threads is the caller's. A refused call leaves
 * the group and members as they were; a visitor that throws ends its pass, keeping the writes and the sweep done so
 * far. After {@link #close()}, or once a member or the entity table is closed, the passes, {@link #size()} and
 * {@link #contains} throw {@link IllegalStateException}.
 */
public final class Group implements AutoCloseable {
    /** Receives one entity of a {@link Group#forEach} pass. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * Visits an entity of the group.
         *
         * @param entity the entity's live handle
         * @param row its row, the same in every member ({@code getAt(row, X)} of each)
         */
        void visit(long entity, int row);
    }

    /** Receives the runs of a {@link Group#forEachRun} pass. */
    @FunctionalInterface
    public interface RunVisitor {
        /**
         * Visits a run of group rows.
         *
         * @param run the run; the group reuses this object, so it is valid only during this call
         */
        void visit(Run run);
    }

    /**
     * Group rows {@code [row(), row() + count())}, which lie in one block of every member: for member {@code m}, slots
     * {@code [slot(m), slot(m) + count())} of {@code chunk(m)}. The chunk's columns ({@link Chunk#column},
     * {@link Chunk#writableColumn}) index those slots directly; its other live slots hold rows outside this run. A
     * {@code member} that is not a position in {@link Group#of}'s arguments throws {@link IndexOutOfBoundsException}.
     */
    public static final class Run {
        private final Chunk[] chunks;
        private final int[] slots;
        private int row;
        private int count;

        private Run(int members) {
            chunks = new Chunk[members];
            slots = new int[members];
        }

        /** {@return the group row of the run's first entity} */
        public int row() {
            return row;
        }

        /** {@return the number of entities in the run, at least 1} */
        public int count() {
            return count;
        }

        /**
         * {@return the chunk holding the run in a member; valid during the visit}
         *
         * @param member the member's position in {@link Group#of}'s arguments
         */
        public Chunk chunk(int member) {
            return chunks[member];
        }

        /**
         * {@return the slot of the run's first entity in {@link #chunk(int) chunk(member)}; the run is slots
         * {@code [slot, slot + count())}} Hold it in a {@code long} (docs/relations.md, "Groups").
         *
         * @param member the member's position in {@link Group#of}'s arguments
         */
        public int slot(int member) {
            return slots[member];
        }

        @Override
        public String toString() {
            return "Group.Run[rows " + row + ".." + (row + count - 1) + "]";
        }
    }

    private final ComponentTable[] members;
    private final AbstractTable entities;
    private final Run run;
    /** Orders the group's rows by entity slot, swapping in every member at once. */
    private final RowSort sorter = new RowSort(new RowSort.Rows() {
        @Override
        public int compareRows(int a, int b) {
            SparseSet keys = members[0].set;
            return Integer.compare(keys.keyAtUnchecked(a), keys.keyAtUnchecked(b));
        }

        @Override
        public void swapRows(int a, int b) {
            swapAll(a, b);
        }
    });
    private int size;
    /** The entity table's {@link AbstractTable#removals} at the last sweep. */
    private long swept;
    private boolean closed;
    private boolean running;

    private Group(ComponentTable[] members) {
        this.members = members;
        this.entities = members[0].entities;
        this.run = new Run(members.length);
    }

    /**
     * Groups component tables of one entity table until {@link #close()}: the entities with a component in every one
     * come first, in the same order. O(smallest member × members) lookups and row swaps; handles stay, dense rows move.
     *
     * @param tables two or more distinct, open component tables of one open entity table, none in a group already
     * @return the group
     * @throws IllegalArgumentException if fewer than two tables are given, one is null, one is given twice, they are
     *     keyed by different entity tables, or one is in another group
     * @throws IllegalStateException if a table or the entity table is closed
     * @throws ConcurrentModificationException if a loop or join over one of them is running
     */
    public static Group of(ComponentTable... tables) {
        if (tables == null || tables.length < 2) {
            throw new IllegalArgumentException("a group needs at least two component tables, got "
                    + (tables == null ? "null" : java.util.Arrays.toString(tables)));
        }
        ComponentTable[] copy = tables.clone();
        for (int i = 0; i < copy.length; i++) {
            ComponentTable t = copy[i];
            if (t == null) {
                throw new IllegalArgumentException("tables[" + i + "] is null");
            }
            for (int j = 0; j < i; j++) {
                if (copy[j] == t) {
                    throw new IllegalArgumentException("tables[" + j + "] and tables[" + i + "] are the same table '"
                            + t.name() + "'; group distinct tables");
                }
            }
            if (t.entities != copy[0].entities) {
                throw new IllegalArgumentException("tables[" + i + "] '" + t.name() + "' is keyed by entity table '"
                        + t.entities.name() + "', but tables[0] '" + copy[0].name() + "' by '"
                        + copy[0].entities.name() + "'; group components of one entity table");
            }
            t.size(); // throws if closed
            if (t.group != null) {
                throw new IllegalArgumentException("component table '" + t.name() + "' is already in a group ("
                        + t.group + "); close that group first");
            }
        }
        copy[0].entities.ensureOpen();
        for (ComponentTable t : copy) {
            t.checkNoLoop("group");
        }
        Group group = new Group(copy);
        group.build();
        return group;
    }

    /** Joins the tables and packs the entities they share at the front of each. */
    private void build() {
        int driver = 0;
        for (int i = 1; i < members.length; i++) {
            if (members[i].set.size() < members[driver].set.size()) {
                driver = i;
            }
        }
        ComponentTable lead = members[driver];
        for (ComponentTable t : members) {
            t.group = this;
        }
        // Rows below `row` that stayed out are at [size, row); swapping row with size keeps them checked.
        for (int row = 0, n = lead.set.size(); row < n; row++) {
            enter(lead.set.keyAtUnchecked(row), lead.generation(row));
        }
        // A component of a removed entity may have been grouped: the first pass sweeps.
        swept = entities.removals - 1;
    }

    /** {@return the member tables, in the order given to {@link #of}} */
    public ComponentTable[] members() {
        return members.clone();
    }

    /**
     * {@return the number of entities in the group: rows {@code 0..size()-1} of every member} Counts the stale rows of
     * removed entities until the next pass sweeps them. O(1).
     */
    public int size() {
        ensureOpen();
        return size;
    }

    /**
     * {@return whether {@code entity} is live with its components (one per member) in the group} O(1).
     *
     * @param entity any value
     */
    public boolean contains(long entity) {
        ensureOpen();
        ComponentTable first = members[0];
        return first.contains(entity) && first.rowOf(entity) < size;
    }

    /** {@return whether {@link #close()} was called, or a member closed (which closes its group)} */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Visits rows {@code 0..size()-1} in runs cut at every member's block boundary, each a chunk and a first slot per
     * member. An entity removed during the pass is still visited if its run was not yet (runs are fixed at start).
     *
     * @param visitor receives each run
     * @return the number of entities visited, {@link #size()} after the sweep
     */
    public int forEachRun(RunVisitor visitor) {
        begin(visitor);
        try {
            Run r = run;
            ComponentTable[] tables = members;
            int total = size;
            for (int row = 0; row < total; ) {
                int count = total - row;
                for (int m = 0; m < tables.length; m++) {
                    DenseRows<DenseChunk> rows = tables[m].rows;
                    int perBlock = rows.rowsPerBlock();
                    int slot = rows.slotOf(row);
                    count = Math.min(count, perBlock - slot);
                    r.chunks[m] = rows.chunk(row / perBlock);
                    r.slots[m] = slot;
                }
                r.row = row;
                r.count = count;
                visitor.visit(r);
                row += count;
            }
            return total;
        } finally {
            end();
        }
    }

    /**
     * Visits each entity with its row (the same in every member) in row order. An entity removed from the entity table
     * before its turn is skipped (a lookup per row, made only once a removal happened during the pass).
     *
     * @param visitor receives each entity and its row
     * @return the number of entities visited
     */
    public int forEach(Visitor visitor) {
        begin(visitor);
        try {
            long removalsBefore = entities.removals;
            int visits = 0;
            for (int row = 0, n = size; row < n; row++) {
                long entity = entityAt(row);
                if (entities.removals != removalsBefore && !entities.contains(entity)) {
                    continue;
                }
                visitor.visit(entity, row);
                visits++;
            }
            return visits;
        } finally {
            end();
        }
    }

    /**
     * Ends the grouping: the members keep their rows and may join another group; this group's methods then throw.
     * Idempotent. O(members).
     *
     * @throws ConcurrentModificationException if a pass of this group is running
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (running) {
            throw new ConcurrentModificationException("cannot close a group while its pass is running");
        }
        dissolve();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Group[");
        for (int m = 0; m < members.length; m++) {
            s.append(m == 0 ? "" : ", ").append(members[m].name());
        }
        return s.append(closed ? "; closed]" : "; size=" + size + "]").toString();
    }

    private void begin(Object visitor) {
        if (visitor == null) {
            throw new IllegalArgumentException("visitor is null");
        }
        ensureOpen();
        if (running) {
            throw new IllegalStateException("this group is already running a pass; a visitor must not start another");
        }
        for (ComponentTable t : members) {
            t.checkNoLoop("sweep the group of");
        }
        sweep();
        running = true;
        for (ComponentTable t : members) {
            t.set.beginJoin();
        }
    }

    private void end() {
        for (ComponentTable t : members) {
            t.set.endJoin();
        }
        running = false;
        applyQueuedIfIdle();
    }

    boolean loopOpen() {
        for (ComponentTable t : members) {
            if (t.set.openJoins() != 0) {
                return true;
            }
        }
        return false;
    }

    /** Applies the members' queued changes ({@link ComponentTable#removeLater}) once no loop runs over any. */
    void applyQueuedIfIdle() {
        if (loopOpen()) {
            return;
        }
        for (ComponentTable t : members) {
            t.applyOwnQueue();
        }
    }

    /** Removes the group's rows of removed entities from every member, if an entity was removed since the last sweep. */
    private void sweep() {
        long removals = entities.removals;
        if (removals == swept) {
            return;
        }
        // Downwards: the row that leave() swaps in was checked already.
        for (int row = size - 1; row >= 0; row--) {
            if (!entities.contains(entityAt(row))) {
                int last = leave(row);
                for (ComponentTable t : members) {
                    t.removeRowUngrouped(last);
                }
            }
        }
        swept = removals;
    }

    /** The entity of group row {@code row}, unchecked (same in every member). */
    private long entityAt(int row) {
        ComponentTable first = members[0];
        return entities.slots.handleOfStamp(first.set.keyAtUnchecked(row), first.generation(row));
    }

    // Kept by the members (ComponentTable calls these on structural changes)

    // A member gave the entity in slot key a component (stamped generation) at row: enters it; returns its row now.
    int entered(int key, int generation, int row) {
        return enter(key, generation) ? size - 1 : row;
    }

    /** Moves the entity's rows into the group if every member has one of this generation; false if not. */
    private boolean enter(int key, int generation) {
        for (ComponentTable t : members) {
            int row = t.set.indexOf(key);
            if (row < size || t.generation(row) != generation) {
                return false;   // absent (-1), grouped already, or another entity's stale row
            }
        }
        for (ComponentTable t : members) {
            t.swap(t.set.indexOf(key), size);
        }
        size++;
        return true;
    }

    // Before a member removes or reuses row: swaps it out of the group; returns its index then (row if not grouped).
    int leave(int row) {
        if (row >= size) {
            return row;
        }
        int last = --size;
        swapAll(row, last);
        return last;
    }

    private void swapAll(int a, int b) {
        for (ComponentTable t : members) {
            t.swap(a, b);
        }
    }

    /** A member was cleared: no row is the group's any more. */
    void cleared() {
        size = 0;
    }

    /** Sorts the group's rows by entity slot in every member, at most {@code maxSwaps} swaps. */
    long sortRows(long maxSwaps) {
        return sorter.sort(size, maxSwaps);
    }

    /** {@return whether the last {@link #sortRows} got through the group} */
    boolean rowsSorted() {
        return sorter.finished();
    }

    /** {@return the number of group rows; the members' rows below it are the group's} */
    int rows() {
        return size;
    }

    void checkNoLoop(String operation) {
        for (ComponentTable t : members) {
            t.checkNoLoop(operation);
        }
    }

    void dissolve() {
        closed = true;
        size = 0;
        for (ComponentTable t : members) {
            t.group = null;
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed (by close(), or because a member was closed)");
        }
        entities.ensureOpen();
    }
}
