package dev.bulkdata.storage;

import java.util.Arrays;
import java.util.Objects;

/**
 * Visits every entity (or key) present in all of two or more {@link ComponentTable}s or {@link SparseSet}s, exactly
 * once, handing over its dense row in each. Make the join once and run it every frame; running it allocates nothing.
 * <b>Cost.</b> Each run walks the member with the fewest rows in row order (the visiting order) and probes every other
 * member's sparse array for each key; for component tables the entity must also be live and own every row (its owner
 * generation), so stale components are never joined: checked per match only while a member may hold stale rows (an
 * entity was removed since the member was made, cleared or swept by {@link ComponentTable#removeDead}). O(smallest
 * size × members) lookups, each O(1). Guide: docs/relations.md, "Component tables and joins".
 *
 * <p><b>Rules.</b> During a run, structural changes of any member throw
 * {@link java.util.ConcurrentModificationException} and change nothing (queue them with
 * {@link ComponentTable#removeLater} and {@link ComponentTable#addLater}); field writes are fine, and so is removing
 * entities (one removed before its turn is skipped). A join object runs one run at a time; separate join objects over
 * the same members may run on several threads while nobody changes the members' structure.
 */
public final class Join {
    /** Receives one entity (or key) of a {@link Join}. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * Visits an entity present in every member.
         *
         * @param id the entity handle for a join of component tables; the key for a join of sparse sets
         * @param rows each member's dense row, in the order the members were given; reused, valid only during this call
         */
        void visit(long id, int[] rows);
    }

    /** Receives the runs of a {@link Join#forEachRun} pass. */
    @FunctionalInterface
    public interface RunVisitor {
        /**
         * Visits a run of matches.
         *
         * @param run the run; the join reuses this object, so it is valid only during this call
         */
        void visit(Run run);
    }

    /**
     * Matches {@code 0..count()-1} of a {@link Join#forEachRun} pass, in the lead member's row order, whose rows lie in
     * one block of every member: match {@code i} is slot {@code slot(m, i)} of {@code chunk(m)} in member {@code m}, for
     * the chunk's columns ({@link Chunk#column}, {@link Chunk#writableColumn}). A {@code member} that is not a position
     * in {@link Join#of}'s arguments, or an {@code i} outside the run, throws {@link IndexOutOfBoundsException}.
     */
    public static final class Run {
        private final Chunk[] chunks;
        private final int[][] slots;
        private int count;

        private Run(int members, int capacity) {
            chunks = new Chunk[members];
            slots = new int[members][capacity];
        }

        /** {@return the number of matches in the run, at least 1} */
        public int count() {
            return count;
        }

        /**
         * {@return the chunk holding the run's rows of a member; valid during the visit}
         *
         * @param member the member's position in {@link Join#of}'s arguments
         */
        public Chunk chunk(int member) {
            return chunks[member];
        }

        /**
         * {@return the slot of match {@code i} in {@link #chunk(int) chunk(member)}}
         *
         * @param member the member's position in {@link Join#of}'s arguments
         * @param i the match, {@code 0 <= i < count()}
         */
        public int slot(int member, int i) {
            return slots[member][Objects.checkIndex(i, count)];
        }

        @Override
        public String toString() {
            return "Join.Run[" + count + " matches]";
        }
    }

    private final SparseSet[] sets;
    /** The component tables, or null for a join of bare sparse sets. */
    private final ComponentTable[] tables;
    /** Entity table of every member, or null. */
    private final AbstractTable entities;
    private final int[] rows;
    /** The reused run of {@link #forEachRun}, or null for a join of bare sparse sets. */
    private final Run run;
    /** Block of the run's matches in each member, during {@link #forEachRun}. */
    private final int[] blocks;
    /** log2 of each member's rows per block. */
    private final int[] shifts;
    /** Whether a run is in progress (a visitor running the same join again would clobber rows). */
    private boolean running;

    private Join(SparseSet[] sets, ComponentTable[] tables, AbstractTable entities) {
        this.sets = sets;
        this.tables = tables;
        this.entities = entities;
        this.rows = new int[sets.length];
        this.blocks = new int[sets.length];
        this.shifts = new int[sets.length];
        int capacity = 0;
        for (int i = 0; tables != null && i < tables.length; i++) {
            capacity = Math.max(capacity, tables[i].rows.rowsPerBlock());
            shifts[i] = Integer.numberOfTrailingZeros(tables[i].rows.rowsPerBlock());
        }
        this.run = tables == null ? null : new Run(tables.length, capacity);
    }

    /**
     * {@return a join of component tables of the same entity table}
     *
     * @param tables two or more component tables
     * @throws IllegalArgumentException if fewer than two tables are given, one is null, or they are keyed by different
     *     entity tables
     */
    public static Join of(ComponentTable... tables) {
        ComponentTable[] copy = members(tables, "tables");
        SparseSet[] sets = new SparseSet[copy.length];
        AbstractTable entities = null;
        for (int i = 0; i < copy.length; i++) {
            AbstractTable own = copy[i].entities;
            if (entities == null) {
                entities = own;
            } else if (own != entities) {
                throw new IllegalArgumentException("tables[" + i + "] '" + copy[i].name() + "' is keyed by entity table '"
                        + own.name() + "', but tables[0] '" + copy[0].name() + "' by '" + entities.name()
                        + "'; join components of one entity table");
            }
            sets[i] = copy[i].set;
        }
        return new Join(sets, copy, entities);
    }

    /**
     * {@return a join of sparse sets; the visitor's {@code id} is the key}
     *
     * @param sets two or more sparse sets
     * @throws IllegalArgumentException if fewer than two sets are given or one is null
     */
    public static Join of(SparseSet... sets) {
        return new Join(members(sets, "sets"), null, null);
    }

    /** A copy of the members, checked: at least two, none null ({@code what[i]} names one in the message). */
    private static <T> T[] members(T[] members, String what) {
        if (members == null || members.length < 2) {
            throw new IllegalArgumentException("a join needs at least two members, got "
                    + (members == null ? "null" : Arrays.toString(members)));
        }
        T[] copy = members.clone();
        for (int i = 0; i < copy.length; i++) {
            if (copy[i] == null) {
                throw new IllegalArgumentException(what + "[" + i + "] is null");
            }
        }
        return copy;
    }

    /**
     * {@return the row of the entity being visited in {@code table}, for its {@code getAt}/{@code setAt}} The same as
     * {@code rows[i]} for the member given {@code i}-th to {@link #of}, found by table. O(members); allocates nothing.
     *
     * <pre>{@code
     * moving.forEach((entity, rows) -> position.setAt(moving.row(position), PX,
     *         position.getAt(moving.row(position), PX) + velocity.getAt(moving.row(velocity), VX)));
     * }</pre>
     *
     * @param table a member of this join
     * @throws IllegalStateException if no visit of this join is in progress
     * @throws IllegalArgumentException if {@code table} is not a member (or this joins sparse sets)
     */
    public int row(ComponentTable table) {
        if (!running) {
            throw new IllegalStateException("join.row(table) is valid only inside a visit of this join");
        }
        if (tables != null) {
            for (int i = 0; i < tables.length; i++) {
                if (tables[i] == table) {
                    return rows[i];
                }
            }
        }
        throw new IllegalArgumentException("component table " + (table == null ? "null" : "'" + table.name() + "'")
                + " is not a member of this join");
    }

    /**
     * Runs the join: visits each entity (or key) present in every member once. O(min size × members); no allocation.
     *
     * @param visitor receives each entity and its rows
     * @return the number of visits
     * @throws IllegalArgumentException if {@code visitor} is null
     * @throws IllegalStateException if a component table or the entity table is closed, or this join is already running
     */
    public int forEach(Visitor visitor) {
        if (visitor == null) {
            throw new IllegalArgumentException("visitor is null");
        }
        return pass(visitor, null);
    }

    /**
     * Runs the join of component tables in runs: the matches in the lead member's row order (as {@link #forEach}),
     * cut wherever a member's row leaves the block of the run's first match, for loops over chunk columns with no
     * per-access check. Same rules as {@link #forEach}; an entity removed before its run is gathered is skipped.
     * O(min size × members); no allocation.
     *
     * @param visitor receives each run
     * @return the number of matches visited
     * @throws IllegalArgumentException if {@code visitor} is null
     * @throws IllegalStateException if this joins sparse sets, a member or the entity table is closed, or this join is
     *     already running
     */
    public int forEachRun(RunVisitor visitor) {
        if (visitor == null) {
            throw new IllegalArgumentException("visitor is null");
        }
        if (tables == null) {
            throw new IllegalStateException("forEachRun joins component tables; this join is of sparse sets");
        }
        return pass(null, visitor);
    }

    /** A run of {@link #forEach} (visitor) or {@link #forEachRun} (runs). */
    private int pass(Visitor visitor, RunVisitor runs) {
        if (tables != null) {
            entities.ensureOpen();
            for (ComponentTable table : tables) {
                table.size(); // throws if closed
            }
        }
        if (running) {
            throw new IllegalStateException("this join is already running; a visitor must not run it again");
        }
        running = true;
        int opened = 0;
        try {
            for (SparseSet set : sets) {
                set.beginJoin();
                opened++;
            }
            return runs != null ? joinRuns(runs) : tables == null ? joinKeys(visitor) : joinEntities(visitor);
        } finally {
            for (int i = 0; i < opened; i++) {
                sets[i].endJoin();
            }
            running = false;
            if (tables != null) {
                for (ComponentTable table : tables) {
                    table.applyQueuedIfIdle();
                }
            }
        }
    }

    private int smallest() {
        int driver = 0;
        for (int i = 1; i < sets.length; i++) {
            if (sets[i].size() < sets[driver].size()) {
                driver = i;
            }
        }
        return driver;
    }

    private int joinKeys(Visitor visitor) {
        int driver = smallest();
        SparseSet lead = sets[driver];
        int visits = 0;
        for (int row = 0, n = lead.size(); row < n; row++) {
            int key = lead.keyAtUnchecked(row);
            if (probe(driver, row, key)) {
                visitor.visit(key, rows);
                visits++;
            }
        }
        return visits;
    }

    private int joinEntities(Visitor visitor) {
        int driver = smallest();
        SparseSet lead = sets[driver];
        AbstractTable owners = entities;
        long removals = owners.removals;
        boolean clean = clean(removals);
        int visits = 0;
        for (int row = 0, n = lead.size(); row < n; row++) {
            int key = lead.keyAtUnchecked(row);
            if (probe(driver, row, key)) {
                long entity = owners.slots.handle(key, tables[driver].generation(row));
                if (clean && owners.removals == removals || live(entity, driver)) {
                    visitor.visit(entity, rows);
                    visits++;
                }
            }
        }
        return visits;
    }

    private int joinRuns(RunVisitor visitor) {
        int driver = smallest();
        SparseSet lead = sets[driver];
        AbstractTable owners = entities;
        long removals = owners.removals;
        boolean clean = clean(removals);
        if (tables.length == 2) {
            return joinRuns2(visitor, driver, removals, clean);
        }
        Run r = run;
        int members = tables.length;
        int[] blocks = this.blocks;
        int[] shifts = this.shifts;
        int visits = 0;
        int count = 0;
        for (int row = 0, n = lead.size(); row < n; row++) {
            int key = lead.keyAtUnchecked(row);
            if (!probe(driver, row, key) || !(clean && owners.removals == removals)
                    && !live(owners.slots.handle(key, tables[driver].generation(row)), driver)) {
                continue;
            }
            for (int m = 0; m < members; m++) {
                int block = rows[m] >>> shifts[m];
                if (count > 0 && block != blocks[m]) {
                    visits += flush(visitor, count);
                    count = 0;
                    m = -1; // gather this match's blocks afresh
                    continue;
                }
                blocks[m] = block;
                r.slots[m][count] = rows[m] & ((1 << shifts[m]) - 1);
            }
            count++;
        }
        return count > 0 ? visits + flush(visitor, count) : visits;
    }

    /** {@link #joinRuns} of two members, the probe and block tests unrolled. */
    private int joinRuns2(RunVisitor visitor, int driver, long removals, boolean clean) {
        int other = 1 - driver;
        SparseSet lead = sets[driver];
        SparseSet probed = sets[other];
        AbstractTable owners = entities;
        int leadShift = shifts[driver];
        int otherShift = shifts[other];
        int[] leadSlots = run.slots[driver];
        int[] otherSlots = run.slots[other];
        int leadBlock = 0;
        int otherBlock = 0;
        int visits = 0;
        int count = 0;
        for (int row = 0, n = lead.size(); row < n; row++) {
            int key = lead.keyAtUnchecked(row);
            int at = probed.indexOf(key);
            if (at < 0) {
                continue;
            }
            if (!(clean && owners.removals == removals)) {
                rows[driver] = row;
                rows[other] = at;
                if (!live(owners.slots.handle(key, tables[driver].generation(row)), driver)) {
                    continue;
                }
            }
            if (count > 0 && ((row >>> leadShift) != leadBlock || (at >>> otherShift) != otherBlock)) {
                visits += flush(visitor, count);
                count = 0;
            }
            blocks[driver] = leadBlock = row >>> leadShift;
            blocks[other] = otherBlock = at >>> otherShift;
            leadSlots[count] = row & ((1 << leadShift) - 1);
            otherSlots[count] = at & ((1 << otherShift) - 1);
            count++;
        }
        return count > 0 ? visits + flush(visitor, count) : visits;
    }

    /** Hands the gathered matches ({@link #blocks}) to the visitor. {@return count} */
    private int flush(RunVisitor visitor, int count) {
        Run r = run;
        for (int m = 0; m < tables.length; m++) {
            r.chunks[m] = tables[m].rows.chunk(blocks[m]);
        }
        r.count = count;
        visitor.visit(r);
        r.count = 0;
        return count;
    }

    /** Whether no member can hold a stale row: then every row's owner is live at its generation. */
    private boolean clean(long removals) {
        boolean clean = true;
        for (ComponentTable table : tables) {
            clean &= table.cleanAt == removals;
        }
        return clean;
    }

    /** Whether the entity is live and owns every member's row (in {@link #rows}); its generation is the lead's. */
    private boolean live(long entity, int driver) {
        return entities.contains(entity) && sameOwner(tables[driver].generation(rows[driver]));
    }

    /** Fills {@link #rows} with the key's row in every member; false at the first miss. */
    private boolean probe(int driver, int driverRow, int key) {
        for (int i = 0; i < sets.length; i++) {
            int row = i == driver ? driverRow : sets[i].indexOf(key);
            if (row < 0) {
                return false;
            }
            rows[i] = row;
        }
        return true;
    }

    /** Whether every member's row (in {@link #rows}) was added for the entity of this generation. */
    private boolean sameOwner(int generation) {
        for (int i = 0; i < tables.length; i++) {
            if (tables[i].generation(rows[i]) != generation) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "Join[" + sets.length + (tables == null ? " sparse sets]" : " component tables of '" + entities.name() + "']");
    }
}
