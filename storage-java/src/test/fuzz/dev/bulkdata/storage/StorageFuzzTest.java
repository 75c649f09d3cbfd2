package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.List;

/**
 * Coverage-guided fuzz tests (Jazzer): each turns the input bytes into a sequence of operations
 * on one kind of structure and checks it against a model after every operation, and its
 * invariants ({@code TableAudit.check}) at the end.
 *
 * <ul>
 * <li>{@link #bulkTable} and {@link #packedTable} drive {@link BulkTableModelTest}'s model run
 *     with the input as its source of choices ({@link Choices#fuzzed}), on small handle layouts
 *     ({@code HandleLayout.of(6, 2)}: 63 slots, 4 generations) so that retirement, capacity
 *     failures and table replacement come within a few hundred operations. A fuzzed run also
 *     checks after every step that every handle the table ever handed out is contained exactly
 *     while live (and that {@code get} rejects dead ones as STALE: a rotating few per step, all
 *     at the end), takes a snapshot around every call that must fail, and defragments with
 *     orders that fail part-way.
 * <li>{@link #sparseSet}: {@link SparseSet}s and joins over them against {@link SparseSetModel}.
 * <li>{@link #componentTables}: {@link ComponentTable}s over one entity table and {@link Join}s
 *     over them, against {@link ComponentModel}.
 * </ul>
 *
 * <p>The first choice of an input picks the configuration (table kind, schema, layout, reuse
 * order, handle layout, capacity). A failure prints the configuration and every operation of
 * the input. Without {@code JAZZER_FUZZ} (plain {@code mvn verify}) every method runs once per
 * committed input under {@code src/test/resources/dev/bulkdata/storage/StorageFuzzTestInputs/
 * <method>/}; the pom then fuzzes each method for {@value #CI_BUDGET} (see
 * docs/building-and-releases.md, Fuzzing).
 */
class StorageFuzzTest {
    /** Fuzzing time per method in {@code mvn verify}: 4 methods, 40 s in all. */
    static final String CI_BUDGET = "10s";
    /** Steps of a fuzzed run: the input's length decides; this only bounds it. */
    private static final int MAX_STEPS = 100_000;

    private static final HandleLayout TINY = HandleLayout.of(6, 2);
    private static final HandleLayout ONE_BIT = HandleLayout.of(8, 1);
    private static final HandleLayout FIFTEEN = HandleLayout.of(4, 3);
    private static final int NO_LIMIT = Integer.MAX_VALUE;

    static final List<BulkTableModelTest.Config> BULK = List.of(
            bulk("particles-SOA-FIFO-6-2", TestSchemas::particles, RecordLayout.SOA, ReuseOrder.FIFO, TINY, NO_LIMIT, 40),
            bulk("particles-AOS-LIFO-6-2", TestSchemas::particles, RecordLayout.AOS, ReuseOrder.LIFO, TINY, NO_LIMIT, 40),
            bulk("narrow-SOA-LIFO-6-2", TestSchemas::narrow, RecordLayout.SOA, ReuseOrder.LIFO, TINY, NO_LIMIT, 40),
            bulk("narrow-AOS-FIFO-6-2", TestSchemas::narrow, RecordLayout.AOS, ReuseOrder.FIFO, TINY, NO_LIMIT, 40),
            bulk("mixed-SOA-FIFO-8-1", TestSchemas::mixed, RecordLayout.SOA, ReuseOrder.FIFO, ONE_BIT, NO_LIMIT, 24),
            bulk("mixed-AOS-LIFO-max20", TestSchemas::mixed, RecordLayout.AOS, ReuseOrder.LIFO, HandleLayout.DEFAULT, 20, 24),
            bulk("particles-SOA-LIFO-4-3", TestSchemas::particles, RecordLayout.SOA, ReuseOrder.LIFO, FIFTEEN, NO_LIMIT, 12),
            bulk("narrow-AOS-FIFO-default", TestSchemas::narrow, RecordLayout.AOS, ReuseOrder.FIFO, HandleLayout.DEFAULT,
                    NO_LIMIT, 40),
            bulk("particles-SOA-SWEEP-6-2", TestSchemas::particles, RecordLayout.SOA, ReuseOrder.SWEEP, TINY, NO_LIMIT, 40),
            bulk("mixed-AOS-SWEEP-max20", TestSchemas::mixed, RecordLayout.AOS, ReuseOrder.SWEEP, HandleLayout.DEFAULT, 20,
                    24));

    static final List<BulkTableModelTest.Config> PACKED = List.of(
            packed("packed-particles-SOA-6-2", TestSchemas::particles, RecordLayout.SOA, TINY, NO_LIMIT, 40),
            packed("packed-particles-AOS-6-2", TestSchemas::particles, RecordLayout.AOS, TINY, NO_LIMIT, 40),
            packed("packed-narrow-SOA-6-2", TestSchemas::narrow, RecordLayout.SOA, TINY, NO_LIMIT, 40),
            packed("packed-narrow-AOS-6-2", TestSchemas::narrow, RecordLayout.AOS, TINY, NO_LIMIT, 40),
            packed("packed-mixed-SOA-8-1", TestSchemas::mixed, RecordLayout.SOA, ONE_BIT, NO_LIMIT, 24),
            packed("packed-mixed-AOS-max20", TestSchemas::mixed, RecordLayout.AOS, HandleLayout.DEFAULT, 20, 24),
            packed("packed-particles-SOA-4-3", TestSchemas::particles, RecordLayout.SOA, FIFTEEN, NO_LIMIT, 12),
            packed("packed-narrow-AOS-default", TestSchemas::narrow, RecordLayout.AOS, HandleLayout.DEFAULT, NO_LIMIT, 40));

    private static BulkTableModelTest.Config bulk(String name, java.util.function.Function<RecordLayout, Schema> schema,
            RecordLayout layout, ReuseOrder order, HandleLayout handles, int maxCapacity, int maxLive) {
        return new BulkTableModelTest.Config(name, BulkTableModelTest.Kind.BULK, schema, layout, order, handles,
                maxCapacity, MAX_STEPS, maxLive);
    }

    private static BulkTableModelTest.Config packed(String name, java.util.function.Function<RecordLayout, Schema> schema,
            RecordLayout layout, HandleLayout handles, int maxCapacity, int maxLive) {
        return new BulkTableModelTest.Config(name, BulkTableModelTest.Kind.PACKED, schema, layout, ReuseOrder.FIFO,
                handles, maxCapacity, MAX_STEPS, maxLive);
    }

    /** Counts of {@link #feedback} cases; only their branches matter. */
    private static final long[] FEEDBACK = new long[8];

    /**
     * Gives coverage guidance a separate branch for each of 8 cases of a model state that the
     * code under test runs through the same lines for (e.g. "a defragment order failed after
     * moving rows of an unfragmented table"), so that the fuzzer keeps the first input reaching
     * each case and mutates from there, instead of needing luck to combine them.
     */
    static void feedback(int oneOfEight) {
        switch (oneOfEight) {
            case 0 -> FEEDBACK[0]++;
            case 1 -> FEEDBACK[1]++;
            case 2 -> FEEDBACK[2]++;
            case 3 -> FEEDBACK[3]++;
            case 4 -> FEEDBACK[4]++;
            case 5 -> FEEDBACK[5]++;
            case 6 -> FEEDBACK[6]++;
            default -> FEEDBACK[7]++;
        }
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void bulkTable(FuzzedDataProvider data) {
        Target.BULK_TABLE.runInput(Choices.fuzzed(data));
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void packedTable(FuzzedDataProvider data) {
        Target.PACKED_TABLE.runInput(Choices.fuzzed(data));
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void sparseSet(FuzzedDataProvider data) {
        Target.SPARSE_SET.runInput(Choices.fuzzed(data));
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void componentTables(FuzzedDataProvider data) {
        Target.COMPONENT_TABLES.runInput(Choices.fuzzed(data));
    }

    /** What each fuzz test runs, on any source of choices (the first picks the configuration). */
    enum Target {
        BULK_TABLE("bulkTable", BULK.size()) {
            @Override
            void run(Choices input, int maxSteps) {
                runTable(BULK, input, maxSteps);
            }
        },
        PACKED_TABLE("packedTable", PACKED.size()) {
            @Override
            void run(Choices input, int maxSteps) {
                runTable(PACKED, input, maxSteps);
            }
        },
        SPARSE_SET("sparseSet", SparseSetRun.CONFIGS) {
            @Override
            void run(Choices input, int maxSteps) {
                new SparseSetRun(input).run(maxSteps);
            }
        },
        COMPONENT_TABLES("componentTables", ComponentModel.CONFIGS) {
            @Override
            void run(Choices input, int maxSteps) {
                try (ComponentModel model = new ComponentModel(input)) {
                    model.run(maxSteps);
                }
            }
        };

        final String method;
        final int configs;

        Target(String method, int configs) {
            this.method = method;
            this.configs = configs;
        }

        abstract void run(Choices input, int maxSteps);

        /**
         * Runs one fuzzed input as a fresh JVM would: tag history of earlier inputs' closed
         * tables forgotten first ({@link FuzzTags}), so that an input fails or passes alone,
         * whatever ran before it in the JVM.
         */
        void runInput(Choices input) {
            runInput(input, MAX_STEPS);
        }

        /** As {@link #runInput(Choices)}, for at most {@code maxSteps} steps. */
        void runInput(Choices input, int maxSteps) {
            FuzzTags.forgetClosedTables();
            run(input, maxSteps);
        }
    }

    private static void runTable(List<BulkTableModelTest.Config> configs, Choices input, int maxSteps) {
        BulkTableModelTest.Config c = configs.get(input.nextInt(configs.size()));
        BulkTableModelTest.Config config = new BulkTableModelTest.Config(c.name(), c.kind(), c.schema(), c.layout(),
                c.order(), c.handles(), c.maxCapacity(), maxSteps, c.maxLive());
        BulkTableModelTest.Run run = new BulkTableModelTest.Run(config, input);
        try (run) {
            run.execute();
        } catch (Throwable t) {
            throw new AssertionError(run.describeFailure(t), t);
        }
    }

    // -------------------------------------------------------------------------------------------
    // SparseSet

    /**
     * Two or three {@link SparseSet}s against {@link SparseSetModel}s: insert, remove, lookups
     * (also of keys out of range and rows out of range), clear, {@code swapRows} (what a
     * component table's defragment does), and {@link Join}s over them, whose visits are
     * predicted one by one and whose visitors try changes (refused) and a nested run (refused).
     * Every set is checked against its model after every step.
     */
    static final class SparseSetRun {
        /** Configurations: 2 or 3 sets, keys from a small range or from around page edges. */
        static final int CONFIGS = 4;
        private static final int[] EDGE_KEYS = {0, 1, 2, 4094, 4095, 4096, 4097, 8191, 8192, 8193, 12_288, 1 << 20,
                100_000_000, SparseSet.MAX_KEY - 1, SparseSet.MAX_KEY};
        private static final int[] BAD_KEYS = {-1, -4096, Integer.MIN_VALUE, SparseSet.MAX_KEY + 1};

        private final Choices rng;
        private final SparseSet[] sets;
        private final SparseSetModel[] models;
        private final boolean edgeKeys;
        private final List<String> trace = new java.util.ArrayList<>();
        private int step;

        SparseSetRun(Choices rng) {
            this.rng = rng;
            int config = rng.nextInt(CONFIGS);
            int n = 2 + config % 2;
            edgeKeys = config >= 2;
            sets = new SparseSet[n];
            models = new SparseSetModel[n];
            for (int i = 0; i < n; i++) {
                sets[i] = new SparseSet();
                models[i] = new SparseSetModel();
            }
            trace.add("config " + config + ": " + n + " sets, " + (edgeKeys ? "keys around page edges" : "keys 0..47"));
        }

        int key() {
            return edgeKeys ? EDGE_KEYS[rng.nextInt(EDGE_KEYS.length)] : rng.nextInt(48);
        }

        void run(int maxSteps) {
            try {
                for (step = 0; step < maxSteps && !rng.exhausted(); step++) {
                    step();
                    // the audit walks every sparse page (up to MAX_KEY's): every 64 steps and at the end
                    for (int i = 0; i < sets.length; i++) {
                        models[i].assertMatches(sets[i], "set " + i, step % 64 == 63);
                    }
                }
                for (int i = 0; i < sets.length; i++) {
                    models[i].assertMatches(sets[i], "set " + i, true);
                }
            } catch (Throwable t) {
                throw new AssertionError("sparse-set fuzzed run failed at step " + step + ": " + t
                        + "\n  replay: the input file in regression mode\n  operations:\n    "
                        + String.join("\n    ", trace), t);
            }
        }

        void step() {
            int i = rng.nextInt(sets.length);
            SparseSet set = sets[i];
            SparseSetModel model = models[i];
            switch (rng.nextInt(8)) {
                case 0, 1 -> {
                    int key = key();
                    trace.add(step + ": set " + i + " insert " + key);
                    if (model.contains(key)) {
                        IllegalArgumentException e = assertThrowsExactly(IllegalArgumentException.class,
                                () -> set.insert(key));
                        check(e.getMessage().contains("already"), e.getMessage());
                    } else {
                        int row = set.insert(key);
                        check(row == model.insert(key), "insert(" + key + ") gave row " + row);
                    }
                }
                case 2, 3 -> {
                    int key = model.size() > 0 && rng.nextBoolean() ? model.keyAt(rng.nextInt(model.size())) : key();
                    trace.add(step + ": set " + i + " remove " + key);
                    if (!model.contains(key)) {
                        IllegalArgumentException e = assertThrowsExactly(IllegalArgumentException.class,
                                () -> set.remove(key));
                        check(e.getMessage().contains("not in"), e.getMessage());
                    } else {
                        int moved = set.remove(key);
                        int expected = model.remove(key);
                        check(moved == expected, "remove(" + key + ") reports row " + moved + " moved, model " + expected);
                    }
                }
                case 4 -> {
                    int bad = BAD_KEYS[rng.nextInt(BAD_KEYS.length)];
                    int key = rng.nextBoolean() ? bad : key();
                    int row = rng.nextInt(model.size() + 2) - 1;
                    trace.add(step + ": set " + i + " lookups key " + key + ", row " + row);
                    check(set.contains(key) == model.contains(key), "contains(" + key + ")");
                    check(set.indexOf(key) == model.indexOf(key), "indexOf(" + key + ")");
                    if (key == bad) {
                        assertThrowsExactly(IllegalArgumentException.class, () -> set.insert(bad));
                        assertThrowsExactly(IllegalArgumentException.class, () -> set.remove(bad));
                    }
                    if (row >= 0 && row < model.size()) {
                        check(set.keyAt(row) == model.keyAt(row), "keyAt(" + row + ")");
                    } else {
                        assertThrowsExactly(IndexOutOfBoundsException.class, () -> set.keyAt(row));
                    }
                }
                case 5 -> {
                    if (rng.nextInt(4) == 0) {
                        trace.add(step + ": set " + i + " clear");
                        set.clear();
                        model.clear();
                    } else if (model.size() > 0) {
                        int a = rng.nextInt(model.size());
                        int b = rng.nextInt(model.size());
                        trace.add(step + ": set " + i + " swapRows " + a + " " + b);
                        set.swapRows(a, b);
                        model.swapRows(a, b);
                    }
                }
                default -> join();
            }
        }

        /** A join over 2 or 3 members (a set may be given twice), visit by visit against the models. */
        void join() {
            int n = 2 + rng.nextInt(2);
            int[] members = new int[n];
            SparseSet[] joined = new SparseSet[n];
            for (int m = 0; m < n; m++) {
                members[m] = rng.nextInt(sets.length);
                joined[m] = sets[members[m]];
            }
            trace.add(step + ": join of sets " + java.util.Arrays.toString(members));
            int driver = 0;
            for (int m = 1; m < n; m++) {
                if (models[members[m]].size() < models[members[driver]].size()) {
                    driver = m;
                }
            }
            List<int[]> expected = new java.util.ArrayList<>();
            List<Integer> expectedKeys = new java.util.ArrayList<>();
            SparseSetModel lead = models[members[driver]];
            for (int row = 0; row < lead.size(); row++) {
                int key = lead.keyAt(row);
                int[] rows = new int[n];
                boolean all = true;
                for (int m = 0; m < n && all; m++) {
                    rows[m] = m == driver ? row : models[members[m]].indexOf(key);
                    all = rows[m] >= 0;
                }
                if (all) {
                    expected.add(rows);
                    expectedKeys.add(key);
                }
            }
            Join join = Join.of(joined);
            int[] visit = {0};
            int visits = join.forEach((key, rows) -> {
                int v = visit[0]++;
                check(v < expected.size(), "join visits more than the " + expected.size() + " expected keys");
                check(key == expectedKeys.get(v) && java.util.Arrays.equals(rows, expected.get(v)), "join visit " + v
                        + ": key " + key + " rows " + java.util.Arrays.toString(rows) + ", model key "
                        + expectedKeys.get(v) + " rows " + java.util.Arrays.toString(expected.get(v)));
                int m = rng.nextInt(n);
                switch (rng.nextInt(5)) {
                    case 0 -> assertThrowsExactly(java.util.ConcurrentModificationException.class,
                            () -> joined[m].insert(key()));
                    case 1 -> assertThrowsExactly(java.util.ConcurrentModificationException.class,
                            () -> joined[m].remove((int) key));
                    case 2 -> assertThrowsExactly(java.util.ConcurrentModificationException.class, joined[m]::clear);
                    case 3 -> assertThrowsExactly(IllegalStateException.class, () -> join.forEach((k, r) -> { }));
                    default -> { }
                }
            });
            check(visits == expected.size() && visit[0] == expected.size(), "join returned " + visits + " after "
                    + visit[0] + " visits, model " + expected.size());
        }
    }

    /** Fails unless {@code call} throws exactly {@code type} (not a subclass); returns it. */
    static <T extends Throwable> T assertThrowsExactly(Class<T> type, org.junit.jupiter.api.function.Executable call) {
        return org.junit.jupiter.api.Assertions.assertThrowsExactly(type, call);
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
