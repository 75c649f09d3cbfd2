package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.bulkdata.storage.StorageFuzzTest.assertThrowsExactly;
import static dev.bulkdata.storage.StorageFuzzTest.check;

/**
 * A model of two or three {@link ComponentTable}s over one entity table (a small
 * {@link BulkTable} or {@link PackedTable}, so that entity slots are reused and retired) and of
 * {@link Join}s over them, driven by {@link Choices} (the component-tables fuzz test of
 * {@link StorageFuzzTest}).
 *
 * <p>Each component table's rows are predicted exactly: a {@link SparseSetModel} (key = the
 * entity's slot, in row order, by the same swap-and-pop), the owner generation and the
 * field bits of every row. From it the model predicts {@code contains}, every value, {@code size()}
 * (stale rows included), the sweep of {@code removeDead()} (downwards), the takeover of a stale
 * row by {@code add}, {@code defragment}'s swaps (insertion sort by slot, within a budget, no-op
 * while sorted), the visits of {@code forEach}, {@code forEachChunk} and {@code Join.forEach} in
 * order (the visitors also write values, remove entities, which is allowed, and try structural
 * changes, which must be refused), and which exception every bad call throws: the entity
 * table's {@link InvalidHandleException} reason for a handle it does not hold (NULL, STALE,
 * FOREIGN, FORGED, OUT_OF_RANGE), a plain {@link IllegalArgumentException} for a missing or
 * duplicate component or a field of another schema, {@link IndexOutOfBoundsException} for a
 * row out of range, {@link ConcurrentModificationException} during a loop, and
 * {@link IllegalStateException} after close. After every step all of it is compared with the
 * tables (every row, every handle ever issued), so a call that failed must have left them as
 * they were; the audits ({@code TableAudit.check}) run every step too.
 */
final class ComponentModel implements AutoCloseable {
    /** Configurations: entity table kind and handle layout, number of component tables. */
    static final int CONFIGS = 6;
    /** Handles of the issued list rejected through {@code get} per step (rotating; all at the end). */
    private static final int STALE_CHECKS_PER_STEP = 8;
    /**
     * Steps between audits ({@code TableAudit.check}: O(pages) and, instrumented by the fuzzer, the
     * bulk of a step); everything else is compared after every step.
     */
    private static final int AUDIT_EVERY = 16;

    private final Choices rng;
    private final Table entities;
    private final AbstractTable entityImpl;
    private final HandleLayout layout;
    /** Another table, whose handles must be rejected as FOREIGN. */
    private final Table other;
    private final long otherHandle;
    private final List<Long> live = new ArrayList<>();
    private final Set<Long> liveSet = new HashSet<>();
    /** Every entity handle ever issued (live or not), for the checks after every step. */
    private final List<Long> issued = new ArrayList<>();
    private int issuedCursor;
    private final Comp[] comps;
    private final List<String> trace = new ArrayList<>();
    private int step;

    /** One component table and its model. */
    private static final class Comp {
        ComponentTable table;
        final Schema schema;
        /** The fields whose values are modelled: the first 8 and the last. */
        final Field[] fields;
        /** A field of another schema. */
        final Field foreign;
        final SparseSetModel rows = new SparseSetModel();
        final List<Integer> owner = new ArrayList<>();
        final List<long[]> values = new ArrayList<>();
        boolean sorted = true;

        Comp(Table entities, Schema schema, Schema foreignSchema) {
            this.schema = schema;
            this.table = ComponentTable.of(entities, schema);
            List<Field> all = schema.fields();
            List<Field> picked = new ArrayList<>(all.subList(0, Math.min(8, all.size())));
            if (all.size() > 8) {
                picked.add(all.getLast());
            }
            this.fields = picked.toArray(Field[]::new);
            this.foreign = foreignSchema.fields().getFirst();
        }

        int size() {
            return rows.size();
        }

        void reset() {
            rows.clear();
            owner.clear();
            values.clear();
            sorted = true;
        }

        /** Swap-and-pop of a row, as the table does. */
        void removeRow(int row) {
            int moved = rows.remove(rows.keyAt(row));
            int last = owner.size() - 1;
            if (moved >= 0) {
                owner.set(row, owner.get(last));
                values.set(row, values.get(last));
            }
            owner.remove(last);
            values.remove(last);
            sorted = false;
        }

        void swapRows(int a, int b) {
            rows.swapRows(a, b);
            owner.set(a, owner.set(b, owner.get(a)));
            values.set(a, values.set(b, values.get(a)));
        }
    }

    ComponentModel(Choices rng) {
        this.rng = rng;
        int config = rng.nextInt(CONFIGS);
        Schema entitySchema = TestSchemas.narrow(RecordLayout.SOA);
        entities = switch (config % 3) {
            case 0 -> BulkTable.builder(entitySchema).handleLayout(HandleLayout.of(6, 2)).build();
            case 1 -> BulkTable.builder(entitySchema).reuseOrder(ReuseOrder.LIFO).handleLayout(HandleLayout.of(8, 1))
                    .build();
            default -> PackedTable.builder(entitySchema).handleLayout(HandleLayout.of(6, 2)).build();
        };
        entityImpl = (AbstractTable) entities;
        layout = entities.handleLayout();
        other = BulkTable.of(TestSchemas.narrow(RecordLayout.AOS));
        otherHandle = other.add();
        int n = 2 + config / 3;
        Schema[] schemas = {TestSchemas.particles(RecordLayout.SOA), TestSchemas.mixed(RecordLayout.AOS),
                TestSchemas.narrow(RecordLayout.SOA)};
        comps = new Comp[n];
        for (int i = 0; i < n; i++) {
            comps[i] = new Comp(entities, schemas[i], schemas[(i + 1) % schemas.length]);
        }
        trace.add("config " + config + ": entities " + entities.getClass().getSimpleName() + " " + layout + ", " + n
                + " component tables");
    }

    void run(int maxSteps) {
        try {
            for (step = 0; step < maxSteps && !rng.exhausted(); step++) {
                step();
                checkAll(STALE_CHECKS_PER_STEP, step % AUDIT_EVERY == AUDIT_EVERY - 1);
            }
            checkAll(Integer.MAX_VALUE, true);
            TableAudit.check(entityImpl);
        } catch (Throwable t) {
            throw new AssertionError("component-tables fuzzed run failed at step " + step + ": " + t
                    + "\n  replay: the input file in regression mode\n  operations:\n    "
                    + String.join("\n    ", trace), t);
        }
    }

    @Override
    public void close() {
        for (Comp c : comps) {
            c.table.close();
        }
        entities.close();
        other.close();
    }

    // -------------------------------------------------------------------------------------------
    // Handles

    private int slot(long entity) {
        return (int) layout.slot(entity);
    }

    private int generation(long entity) {
        return layout.generation(entity);
    }

    private long ownerOf(Comp c, int row) {
        return layout.pack(entityImpl.slots.tag(), c.owner.get(row), c.rows.keyAt(row));
    }

    /** The model's {@code contains}: a live entity whose slot's row was added for it. */
    private boolean has(Comp c, long entity) {
        if (!liveSet.contains(entity)) {
            return false;
        }
        int row = c.rows.indexOf(slot(entity));
        return row >= 0 && c.owner.get(row) == generation(entity);
    }

    /** A handle for a call: mostly live, else removed, null, another table's, or a near miss. */
    private long anyEntity() {
        return switch (rng.nextInt(8)) {
            case 0 -> issued.isEmpty() ? Handles.NULL : issued.get(rng.nextInt(issued.size()));
            case 1 -> Handles.NULL;
            case 2 -> otherHandle;
            case 3 -> (live.isEmpty() ? layout.pack(entityImpl.slots.tag(), 0, 1) : live.get(rng.nextInt(live.size())))
                    ^ (1L << rng.nextInt(Long.SIZE));
            default -> live.isEmpty() ? Handles.NULL : live.get(rng.nextInt(live.size()));
        };
    }

    /** The entity table's own verdict on a handle it does not hold, which a component table must repeat. */
    private InvalidHandleException entityRejection(long entity) {
        RuntimeException e = entityImpl.rejection(entity);
        if (!(e instanceof InvalidHandleException ie)) {
            throw new AssertionError("the entity table rejects " + Handles.format(entity) + " with " + e);
        }
        return ie;
    }

    /** A call by entity handle that must fail: the entity table's reason, or a plain IllegalArgumentException. */
    private void expectRefused(long entity, org.junit.jupiter.api.function.Executable call, String what) {
        if (!liveSet.contains(entity)) {
            check(!entities.contains(entity), "model: " + Handles.format(entity) + " is live in the entity table");
            InvalidHandleException expected = entityRejection(entity);
            InvalidHandleException e = assertThrowsExactly(InvalidHandleException.class, call);
            check(e.reason() == expected.reason() && e.handle() == entity, what + " of " + Handles.format(entity)
                    + ": " + e.reason() + " (" + e.getMessage() + "), the entity table says " + expected.reason());
        } else {
            assertThrowsExactly(IllegalArgumentException.class, call);
        }
    }

    // -------------------------------------------------------------------------------------------
    // Steps

    private void step() {
        int op = rng.nextInt(14);
        Comp c = comps[rng.nextInt(comps.length)];
        int ci = Arrays.asList(comps).indexOf(c);
        switch (op) {
            case 0, 1 -> addEntity();
            case 2 -> removeEntity();
            case 3 -> add(c, ci);
            case 4 -> remove(c, ci);
            case 5 -> setAndGet(c, ci);
            case 6 -> byRow(c, ci);
            case 7 -> removeDead(c, ci);
            case 8 -> {
                if (rng.nextInt(4) == 0) {
                    trace.add(step + ": comp " + ci + " clear");
                    c.table.clear();
                    c.reset();
                } else {
                    addEntity();
                }
            }
            case 9 -> defragment(ci, c);
            case 10 -> forEach(c, ci);
            case 11 -> forEachChunk(c, ci);
            case 12 -> join();
            default -> {
                switch (rng.nextInt(4)) {
                    case 0 -> reopen(c, ci);
                    case 1 -> clearEntities();
                    default -> add(c, ci);
                }
            }
        }
    }

    private void addEntity() {
        try {
            long e = entities.add();
            trace.add(step + ": entity add -> " + entities.format(e));
            check(liveSet.add(e), "entity add returned a live handle");
            live.add(e);
            issued.add(e);
        } catch (CapacityExceededException full) {
            trace.add(step + ": entity add: full");
        }
    }

    private void removeEntity() {
        if (live.isEmpty()) {
            addEntity();
            return;
        }
        long e = live.get(rng.nextInt(live.size()));
        trace.add(step + ": entity remove " + entities.format(e));
        entities.remove(e);
        forgetEntity(e);
    }

    private void forgetEntity(long e) {
        live.remove(e);
        liveSet.remove(e);
    }

    private void clearEntities() {
        trace.add(step + ": entity clear");
        entities.clear();
        live.clear();
        liveSet.clear();
    }

    private void add(Comp c, int ci) {
        long e = anyEntity();
        trace.add(step + ": comp " + ci + " add " + entities.format(e));
        if (!liveSet.contains(e) || has(c, e)) {
            expectRefused(e, () -> c.table.add(e), "add");
            return;
        }
        int row = c.table.add(e);
        int expected = c.rows.indexOf(slot(e));
        if (expected >= 0) {
            // the stale component of the slot's last entity: taken over, zeroed
            c.owner.set(expected, generation(e));
            c.values.set(expected, new long[c.fields.length]);
        } else {
            expected = c.rows.insert(slot(e));
            c.owner.add(generation(e));
            c.values.add(new long[c.fields.length]);
            c.sorted = false;
        }
        check(row == expected, "add(" + entities.format(e) + ") gave row " + row + ", model " + expected);
    }

    private void remove(Comp c, int ci) {
        long e = anyEntity();
        trace.add(step + ": comp " + ci + " remove " + entities.format(e));
        if (!has(c, e)) {
            expectRefused(e, () -> c.table.remove(e), "remove");
            return;
        }
        c.table.remove(e);
        c.removeRow(c.rows.indexOf(slot(e)));
    }

    private void setAndGet(Comp c, int ci) {
        long e = anyEntity();
        int f = rng.nextInt(c.fields.length);
        long bits = rng.nextLong();
        trace.add(step + ": comp " + ci + " set " + entities.format(e) + " " + c.fields[f] + " 0x"
                + Long.toHexString(bits));
        if (rng.nextInt(8) == 0) {
            // a field of another schema is refused before the entity is looked at
            assertThrowsExactly(IllegalArgumentException.class, () -> Values.set(c.table, e, c.foreign, bits));
            assertThrowsExactly(IllegalArgumentException.class, () -> Values.get(c.table, e, c.foreign));
            return;
        }
        if (!has(c, e)) {
            expectRefused(e, () -> Values.set(c.table, e, c.fields[f], bits), "set");
            expectRefused(e, () -> Values.get(c.table, e, c.fields[f]), "get");
            return;
        }
        Values.set(c.table, e, c.fields[f], bits);
        long[] v = c.values.get(c.rows.indexOf(slot(e)));
        v[f] = Values.normalize(c.fields[f].type(), bits);
        check(Values.get(c.table, e, c.fields[f]) == v[f], "set then get of " + entities.format(e));
    }

    private void byRow(Comp c, int ci) {
        int row = rng.nextInt(c.size() + 2) - 1;
        int f = rng.nextInt(c.fields.length);
        long bits = rng.nextLong();
        trace.add(step + ": comp " + ci + " setAt row " + row + " " + c.fields[f]);
        if (row < 0 || row >= c.size()) {
            assertThrowsExactly(IndexOutOfBoundsException.class, () -> Values.setAt(c.table, row, c.fields[f], bits));
            assertThrowsExactly(IndexOutOfBoundsException.class, () -> c.table.entityAt(row));
            return;
        }
        // rows of stale components are rows too
        Values.setAt(c.table, row, c.fields[f], bits);
        c.values.get(row)[f] = Values.normalize(c.fields[f].type(), bits);
    }

    private void removeDead(Comp c, int ci) {
        trace.add(step + ": comp " + ci + " removeDead");
        int expected = sweep(c);
        int removed = c.table.removeDead();
        check(removed == expected, "removeDead removed " + removed + ", model " + expected);
    }

    /** The model of {@code removeDead()}: downwards, swap-and-pop of every row whose owner is not live. */
    private int sweep(Comp c) {
        int removed = 0;
        for (int row = c.size() - 1; row >= 0; row--) {
            if (!liveSet.contains(ownerOf(c, row))) {
                c.removeRow(row);
                removed++;
            }
        }
        return removed;
    }

    private void defragment(int ci, Comp c) {
        long budget = switch (rng.nextInt(4)) {
            case 0 -> Long.MAX_VALUE;
            case 1 -> -1 - rng.nextInt(2);
            default -> rng.nextInt(2 * c.size() + 1);
        };
        trace.add(step + ": comp " + ci + " defragment " + budget);
        if (budget < 0) {
            assertThrowsExactly(IllegalArgumentException.class, () -> c.table.defragment(budget));
            return;
        }
        long expected = 0;
        if (!c.sorted) {
            int next = 1;
            sort:
            for (; next < c.size(); next++) {
                for (int j = next; j > 0 && c.rows.keyAt(j - 1) > c.rows.keyAt(j); j--) {
                    if (expected == budget) {
                        break sort;
                    }
                    c.swapRows(j - 1, j);
                    expected++;
                }
            }
            c.sorted = next >= c.size();
        }
        long swaps = c.table.defragment(budget);
        check(swaps == expected, "defragment(" + budget + ") made " + swaps + " swaps, model " + expected);
    }

    /** What a visitor does besides checking its visit: nothing, write, remove an entity, or try a refused change. */
    private void visitorAction(Comp c, int row, List<Comp> busy) {
        switch (rng.nextInt(6)) {
            case 0 -> {
                int f = rng.nextInt(c.fields.length);
                long bits = rng.nextLong();
                Values.setAt(c.table, row, c.fields[f], bits);
                c.values.get(row)[f] = Values.normalize(c.fields[f].type(), bits);
            }
            case 1 -> {
                if (!live.isEmpty()) {
                    long e = live.get(rng.nextInt(live.size()));
                    trace.add(step + ":   visitor removes entity " + entities.format(e));
                    entities.remove(e); // allowed: the loop skips it when its turn comes
                    forgetEntity(e);
                }
            }
            case 2 -> {
                Comp b = busy.get(rng.nextInt(busy.size()));
                long e = live.isEmpty() ? Handles.NULL : live.get(rng.nextInt(live.size()));
                org.junit.jupiter.api.function.Executable change = switch (rng.nextInt(6)) {
                    case 0 -> () -> b.table.add(e);
                    case 1 -> () -> b.table.remove(e);
                    case 2 -> b.table::removeDead;
                    case 3 -> b.table::clear;
                    case 4 -> () -> b.table.defragment(Long.MAX_VALUE);
                    default -> b.table::close;
                };
                assertThrowsExactly(ConcurrentModificationException.class, change);
            }
            default -> { }
        }
    }

    private void forEach(Comp c, int ci) {
        trace.add(step + ": comp " + ci + " forEach");
        int[] next = {0};
        int[] visits = {0};
        c.table.forEach((entity, row) -> {
            // the next row whose owner is live now (the visitor may have removed entities)
            while (next[0] < c.size() && !liveSet.contains(ownerOf(c, next[0]))) {
                next[0]++;
            }
            check(next[0] < c.size(), "forEach visits row " + row + " past the model's last live one");
            check(row == next[0] && entity == ownerOf(c, row), "forEach visits " + entities.format(entity) + " at row "
                    + row + ", model " + entities.format(ownerOf(c, next[0])) + " at row " + next[0]);
            checkRow(c, row, Values.getAt(c.table, row, c.fields[0]), 0);
            visitorAction(c, row, List.of(c));
            next[0]++;
            visits[0]++;
        });
        while (next[0] < c.size() && !liveSet.contains(ownerOf(c, next[0]))) {
            next[0]++;
        }
        check(next[0] == c.size(), "forEach stopped before row " + next[0] + " of " + c.size());
    }

    private void forEachChunk(Comp c, int ci) {
        trace.add(step + ": comp " + ci + " forEachChunk");
        sweep(c); // forEachChunk sweeps the stale rows out first
        int perBlock = c.schema.slotsPerBlock();
        int[] chunks = {0};
        c.table.forEachChunk(chunk -> {
            int first = chunks[0]++ * perBlock;
            int n = Math.min(perBlock, c.size() - first);
            check(n > 0 && chunk.liveCount() == n, "chunk " + chunk.index() + " holds " + chunk.liveCount()
                    + " rows, model " + n);
            for (int s = 0; s < n; s++) {
                check(chunk.isLive(s) && chunk.handle(s) == ownerOf(c, first + s), "chunk " + chunk.index() + " slot "
                        + s + " names " + entities.format(chunk.handle(s)));
                for (int f = 0; f < c.fields.length; f++) {
                    checkRow(c, first + s, Values.get(chunk, s, c.fields[f]), f);
                }
            }
            if (n > 0) {
                visitorAction(c, first + rng.nextInt(n), List.of(c));
            }
        });
        check(chunks[0] == (c.size() + perBlock - 1) / perBlock, "forEachChunk visited " + chunks[0] + " chunks");
    }

    private void join() {
        int n = 2 + rng.nextInt(2);
        Comp[] members = new Comp[n];
        int[] which = new int[n];
        for (int m = 0; m < n; m++) {
            which[m] = rng.nextInt(comps.length);
            members[m] = comps[which[m]];
        }
        trace.add(step + ": join of comps " + Arrays.toString(which));
        int driver = 0;
        for (int m = 1; m < n; m++) {
            if (members[m].size() < members[driver].size()) {
                driver = m;
            }
        }
        Comp lead = members[driver];
        int d = driver;
        Join join = Join.of(Arrays.stream(members).map(m -> m.table).toArray(ComponentTable[]::new));
        int[] next = {0};
        int[] visits = {0};
        List<Comp> busy = Arrays.asList(members);
        int returned = join.forEach((entity, rows) -> {
            int[] expected = nextJoinVisit(members, d, lead, next);
            check(expected != null, "join visits " + entities.format(entity) + " after the model's last visit");
            check(entity == ownerOf(lead, next[0]) && Arrays.equals(rows, expected), "join visits "
                    + entities.format(entity) + " rows " + Arrays.toString(rows) + ", model "
                    + entities.format(ownerOf(lead, next[0])) + " rows " + Arrays.toString(expected));
            for (int m = 0; m < n; m++) {
                checkRow(members[m], rows[m], Values.getAt(members[m].table, rows[m], members[m].fields[0]), 0);
            }
            if (rng.nextInt(8) == 0) {
                assertThrowsExactly(IllegalStateException.class, () -> join.forEach((x, y) -> { }));
            }
            int m = rng.nextInt(n);
            visitorAction(members[m], rows[m], busy);
            next[0]++;
            visits[0]++;
        });
        check(nextJoinVisit(members, d, lead, next) == null, "join ended before the model's visit at driver row "
                + next[0]);
        check(returned == visits[0], "join returned " + returned + " after " + visits[0] + " visits");
    }

    /**
     * Advances {@code next[0]} to the driver's next row that the join must visit (its owner is
     * live now and every member has a row for that entity) and returns the members' rows, or
     * null at the end.
     */
    private int[] nextJoinVisit(Comp[] members, int driver, Comp lead, int[] next) {
        for (; next[0] < lead.size(); next[0]++) {
            long entity = ownerOf(lead, next[0]);
            if (!liveSet.contains(entity)) {
                continue;
            }
            int[] rows = new int[members.length];
            boolean all = true;
            for (int m = 0; m < members.length && all; m++) {
                rows[m] = m == driver ? next[0] : members[m].rows.indexOf(slot(entity));
                all = rows[m] >= 0 && members[m].owner.get(rows[m]) == generation(entity);
            }
            if (all) {
                return rows;
            }
        }
        return null;
    }

    /** Closes a component table (checking what a closed one does) and puts a new, empty one in its place. */
    private void reopen(Comp c, int ci) {
        trace.add(step + ": comp " + ci + " close and replace");
        long e = live.isEmpty() ? Handles.NULL : live.getFirst();
        c.table.close();
        check(c.table.isClosed(), "close did not close");
        check(!c.table.contains(e), "a closed table has a component");
        assertThrowsExactly(IllegalStateException.class, c.table::size);
        assertThrowsExactly(IllegalStateException.class, () -> c.table.add(e));
        assertThrowsExactly(IllegalStateException.class, () -> c.table.entityAt(0));
        assertThrowsExactly(IllegalStateException.class, () -> c.table.forEach((x, r) -> { }));
        c.table.close(); // idempotent
        c.table = ComponentTable.of(entities, c.schema);
        c.reset();
    }

    // -------------------------------------------------------------------------------------------
    // Checks

    private void checkRow(Comp c, int row, long actual, int f) {
        check(actual == c.values.get(row)[f], "row " + row + " " + c.fields[f] + " reads 0x" + Long.toHexString(actual)
                + ", model 0x" + Long.toHexString(c.values.get(row)[f]));
    }

    /** Every component table against its model, and every entity handle ever issued against every table. */
    private void checkAll(int staleChecks, boolean audit) {
        for (Comp c : comps) {
            check(c.table.size() == c.size(), "size " + c.table.size() + ", model " + c.size());
            c.rows.assertMatches(c.table.set, "component set", false);
            for (int row = 0; row < c.size(); row++) {
                check(c.table.entityAt(row) == ownerOf(c, row), "entityAt(" + row + ")");
                for (int f = 0; f < c.fields.length; f++) {
                    checkRow(c, row, Values.getAt(c.table, row, c.fields[f]), f);
                }
            }
            if (audit) {
                TableAudit.check(c.table);
            }
        }
        for (long e : issued) {
            check(entities.contains(e) == liveSet.contains(e), "entity " + entities.format(e) + " contained: "
                    + entities.contains(e));
            for (Comp c : comps) {
                boolean has = has(c, e);
                check(c.table.contains(e) == has, "has(" + entities.format(e) + ") = " + !has + ", model " + has);
                if (has) {
                    long[] v = c.values.get(c.rows.indexOf(slot(e)));
                    for (int f = 0; f < c.fields.length; f++) {
                        check(Values.get(c.table, e, c.fields[f]) == v[f], "get(" + entities.format(e) + ", "
                                + c.fields[f] + ")");
                    }
                }
            }
        }
        int n = issued.size();
        for (int i = 0; i < Math.min(n, staleChecks); i++) {
            long e = issued.get(issuedCursor++ % n);
            if (!liveSet.contains(e)) {
                Comp c = comps[i % comps.length];
                InvalidHandleException x = assertThrowsExactly(InvalidHandleException.class,
                        () -> Values.get(c.table, e, c.fields[0]));
                check(x.reason() == InvalidHandleException.Reason.STALE, "get of removed entity "
                        + entities.format(e) + " rejected as " + x.reason());
            }
        }
    }
}
