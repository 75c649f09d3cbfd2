package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model-based test of {@link BulkTable} and {@link PackedTable}: more than 1,000,000
 * random operations per table kind and run (add, addAll, remove, removeAll, get, set, contains,
 * clear, reset, iterate, defragment, and calls that must fail) against a reference model, checked
 * after every single step.
 *
 * <h2>The model</h2>
 * <ul>
 * <li>a {@code HashMap<Long, long[]>} from live handle to the raw bits of every field (every
 *     field type is treated as {@code long} bits through {@link Values}; what is written is
 *     {@link Values#normalize normalised}, so floats and doubles compare bit for bit);
 * <li>a model of the slots: each slot's generation and state (free, live, retired), the free
 *     list as a deque in reuse order ({@link ReuseOrder#FIFO} appends, {@link ReuseOrder#LIFO}
 *     pushes; {@link ReuseOrder#SWEEP}: a sorted set and a cursor, each take the first free slot
 *     at or after the cursor, wrapping), and the table's slot limit. From it the test predicts the exact handle every add
 *     returns and exactly when an add must fail with {@link CapacityExceededException};
 * <li>for a {@link PackedTable}, the dense row order: the model's array of live handles is kept
 *     by swap-and-pop exactly as the table's rows are, and {@code defragment} is replayed on it
 *     (the same budgeted insertion sort, the same "fragmented" rule), so the test predicts every
 *     row, the order of every iteration and the swap count of every defragment call;
 * <li>a window of the last {@value #REMOVED_WINDOW} removed handles, which must stay rejected
 *     (even after their slots are reused), and the set of every handle the table handed out,
 *     so that no handle is ever handed out twice.
 * </ul>
 *
 * <h2>Checked after every step</h2>
 * {@code size()} equals the model; every live handle reads its own values (for the wide
 * {@code mixed} schema: its 8 typed fields every step, the 250 padding fields a rotating 8 at a
 * time and all of them at every audit); every handle of the removed window answers
 * {@code contains() == false}, and every {@value #STALE_CHECK_EVERY} steps one of them (rotating)
 * must be rejected by {@code get} with {@link InvalidHandleException.Reason#STALE} (a rejection
 * builds an exception, so doing it for the whole window every step would dominate the run).
 *
 * <h2>Checked at every audit</h2>
 * Every {@value #AUDIT_EVERY} steps, and after every clear, removeAll (good or bad), failed
 * add, set through an invalid handle, defragment and table replacement: the kind's
 * {@link TableAudit#check(Table)}, a full {@code forEach} against the model (every
 * field; slot order for a BulkTable, the model's row order for a PackedTable), the free list
 * ({@link TableAudit#freeSlots(Table)}) against the model's, {@code stats()} and {@code capacity()},
 * and the removed window ({@value #STALE_CHECKS_PER_AUDIT} more STALE rejections).
 *
 * <h2>Capacity</h2>
 * Two configurations use {@code HandleLayout.of(12, 3)}: at most 4095 slots, each used at most 8
 * times before it retires. The model predicts exactly when an add must throw
 * {@link CapacityExceededException} (which must leave the table unchanged, checked with
 * {@link TableSnapshot}); once fewer than {@value #RENEW_BELOW_USABLE} slots are left unretired
 * the table is closed (checking that it then rejects everything) and replaced by a new one. One
 * configuration caps the table with {@code maxCapacity}.
 *
 * <h2>Seeds</h2>
 * The base seed is {@value #DEFAULT_SEED} unless the system property {@code bulkdata.seed}
 * says otherwise (decimal or {@code 0x} hex); each configuration derives its own stream from
 * the base seed and its name. A failure reports the base seed, the configuration, the step and
 * the last operations: rerun with {@code -Dbulkdata.seed=<seed>} to replay it exactly.
 */
class BulkTableModelTest {

    static final long DEFAULT_SEED = 20_240_601L;
    static final String SEED_PROPERTY = Seeds.PROPERTY;
    static final long REQUIRED_OPS = 1_000_000L;
    static final int AUDIT_EVERY = 100;
    static final int REMOVED_WINDOW = 64;
    /** Padding fields of the mixed schema checked per step, besides its typed fields. */
    static final int COLD_FIELDS_PER_STEP = 8;
    /**
     * Handles of the removed window that {@code get} must reject as STALE at each audit,
     * rotating through the window (besides one every {@value #STALE_CHECK_EVERY} steps). Each
     * rejection builds an exception, so checking all 64 every step would dominate the run.
     */
    static final int STALE_CHECKS_PER_AUDIT = 8;
    static final int STALE_CHECK_EVERY = 4;
    /** A table whose usable slots (not retired) fall below this is closed and replaced. */
    static final int RENEW_BELOW_USABLE = 48;
    private static final int NO_LIMIT = Integer.MAX_VALUE;
    private static final HandleLayout SMALL = HandleLayout.of(12, 3);
    /** {@link #SMALL} with 2 epoch bits: clear and reset move the epoch on 3 times before slots retire. */
    private static final HandleLayout SMALL_EPOCHS = HandleLayout.of(12, 3, 2);

    /** The table kinds under test. */
    enum Kind {
        BULK, PACKED
    }

    static final List<Config> CONFIGS = List.of(
            new Config("particles-SOA-FIFO", Kind.BULK, TestSchemas::particles, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 160_000, 200),
            new Config("particles-AOS-LIFO", Kind.BULK, TestSchemas::particles, RecordLayout.AOS, ReuseOrder.LIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 160_000, 200),
            new Config("mixed-SOA-LIFO", Kind.BULK, TestSchemas::mixed, RecordLayout.SOA, ReuseOrder.LIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 100_000, 96),
            new Config("mixed-AOS-FIFO", Kind.BULK, TestSchemas::mixed, RecordLayout.AOS, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 100_000, 96),
            new Config("narrow-SOA-FIFO", Kind.BULK, TestSchemas::narrow, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 130_000, 200),
            new Config("narrow-AOS-LIFO", Kind.BULK, TestSchemas::narrow, RecordLayout.AOS, ReuseOrder.LIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 130_000, 200),
            new Config("particles-SOA-FIFO-index12-gen3", Kind.BULK, TestSchemas::particles, RecordLayout.SOA,
                    ReuseOrder.FIFO, SMALL, NO_LIMIT, 120_000, 200),
            new Config("narrow-AOS-LIFO-index12-gen3", Kind.BULK, TestSchemas::narrow, RecordLayout.AOS, ReuseOrder.LIFO,
                    SMALL, NO_LIMIT, 100_000, 200),
            new Config("mixed-SOA-FIFO-maxCapacity80", Kind.BULK, TestSchemas::mixed, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, 80, 60_000, 96),
            new Config("particles-SOA-SWEEP", Kind.BULK, TestSchemas::particles, RecordLayout.SOA, ReuseOrder.SWEEP,
                    HandleLayout.DEFAULT, NO_LIMIT, 60_000, 200),
            new Config("mixed-AOS-SWEEP", Kind.BULK, TestSchemas::mixed, RecordLayout.AOS, ReuseOrder.SWEEP,
                    HandleLayout.DEFAULT, NO_LIMIT, 40_000, 96),
            new Config("narrow-SOA-SWEEP-index12-gen3", Kind.BULK, TestSchemas::narrow, RecordLayout.SOA, ReuseOrder.SWEEP,
                    SMALL, NO_LIMIT, 100_000, 200),
            new Config("particles-AOS-SWEEP-maxCapacity80", Kind.BULK, TestSchemas::particles, RecordLayout.AOS,
                    ReuseOrder.SWEEP, HandleLayout.DEFAULT, 80, 30_000, 96),
            // PackedTable: sparse slots are always reused first in, first out
            new Config("packed-particles-SOA", Kind.PACKED, TestSchemas::particles, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 170_000, 200),
            new Config("packed-particles-AOS", Kind.PACKED, TestSchemas::particles, RecordLayout.AOS, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 100_000, 640), // 640: past one 512-row block
            new Config("packed-mixed-SOA", Kind.PACKED, TestSchemas::mixed, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 100_000, 96),
            new Config("packed-mixed-AOS", Kind.PACKED, TestSchemas::mixed, RecordLayout.AOS, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 100_000, 96),
            new Config("packed-narrow-SOA", Kind.PACKED, TestSchemas::narrow, RecordLayout.SOA, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 165_000, 200),
            new Config("packed-narrow-AOS", Kind.PACKED, TestSchemas::narrow, RecordLayout.AOS, ReuseOrder.FIFO,
                    HandleLayout.DEFAULT, NO_LIMIT, 165_000, 200),
            new Config("packed-particles-SOA-index12-gen3", Kind.PACKED, TestSchemas::particles, RecordLayout.SOA,
                    ReuseOrder.FIFO, SMALL, NO_LIMIT, 120_000, 200),
            new Config("packed-narrow-AOS-index12-gen3", Kind.PACKED, TestSchemas::narrow, RecordLayout.AOS,
                    ReuseOrder.FIFO, SMALL, NO_LIMIT, 100_000, 200),
            new Config("packed-mixed-SOA-maxCapacity80", Kind.PACKED, TestSchemas::mixed, RecordLayout.SOA,
                    ReuseOrder.FIFO, HandleLayout.DEFAULT, 80, 60_000, 96),
            // Epoch bits: clear and reset start the generations over
            new Config("particles-SOA-FIFO-index12-gen3-epoch2", Kind.BULK, TestSchemas::particles, RecordLayout.SOA,
                    ReuseOrder.FIFO, SMALL_EPOCHS, NO_LIMIT, 60_000, 200),
            new Config("narrow-SOA-SWEEP-index12-gen3-epoch2", Kind.BULK, TestSchemas::narrow, RecordLayout.SOA,
                    ReuseOrder.SWEEP, SMALL_EPOCHS, NO_LIMIT, 60_000, 200),
            new Config("packed-particles-SOA-index12-gen3-epoch2", Kind.PACKED, TestSchemas::particles, RecordLayout.SOA,
                    ReuseOrder.FIFO, SMALL_EPOCHS, NO_LIMIT, 60_000, 200));

    private static final long BASE_SEED = baseSeed();
    private static final AtomicLong TOTAL_OPS = new AtomicLong();
    private static final AtomicInteger CONFIGS_RUN = new AtomicInteger();

    /**
     * One run: a table kind, a schema, a layout, a reuse order, a handle layout, a capacity and a
     * length.
     */
    record Config(String name, Kind kind, Function<RecordLayout, Schema> schema, RecordLayout layout, ReuseOrder order,
                  HandleLayout handles, int maxCapacity, int ops, int maxLive) {

        Table newTable() {
            Schema s = schema.apply(layout);
            if (kind == Kind.PACKED) {
                PackedTable.Builder builder = PackedTable.builder(s).handleLayout(handles);
                if (maxCapacity != NO_LIMIT) {
                    builder.maxCapacity(maxCapacity);
                }
                return builder.build();
            }
            BulkTable.Builder builder = BulkTable.builder(s).reuseOrder(order).handleLayout(handles);
            if (maxCapacity != NO_LIMIT) {
                builder.maxCapacity(maxCapacity);
            }
            return builder.build();
        }

        long seed(long base) {
            return base ^ (name.hashCode() * 0x9E3779B97F4A7C15L);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static long baseSeed() {
        return Seeds.fromProperty(DEFAULT_SEED);
    }

    static List<Config> configs() {
        return CONFIGS;
    }

    /** Operations each table kind actually executed in this JVM, counted by the runs themselves. */
    private static final java.util.Map<Kind, AtomicLong> EXECUTED = new java.util.EnumMap<>(Kind.class);

    static {
        for (Kind kind : Kind.values()) {
            EXECUTED.put(kind, new AtomicLong());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void randomOperations_agreeWithHashMapModel(Config config) {
        long start = System.nanoTime();
        Run run = new Run(config, BASE_SEED);
        try (run) {
            run.execute();
        } catch (Throwable t) {
            throw new AssertionError(run.describeFailure(t), t);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        long total = TOTAL_OPS.addAndGet(run.step);
        EXECUTED.get(config.kind()).addAndGet(run.step);
        CONFIGS_RUN.incrementAndGet();
        System.out.printf(Locale.ROOT,
                "[BulkTableModelTest] %-34s seed=%d ops=%,d in %,d ms (max live %d, adds %,d, clears %d,"
                        + " capacity failures %d, tables replaced %d, reloads %d, bad removeAlls %d, defragment"
                        + " swaps %,d); total so far %,d ops%n",
                config.name(), BASE_SEED, run.step, millis, run.maxLiveSeen, run.adds, run.clears,
                run.capacityFailures, run.renewals, run.reloads, run.badRemoveAlls, run.defragmentSwaps, total);
        assertTrue(run.reloads > 10, config.name() + " saved and reloaded only " + run.reloads + " times");
        if (config.handles() == SMALL) {
            assertTrue(run.renewals > 0 && run.capacityFailures > 0, config.name()
                    + " never used up its index space; retirement and CapacityExceededException went untested");
        }
        if (config.maxCapacity() != NO_LIMIT) {
            assertTrue(run.capacityFailures > 0, config.name() + " never reached maxCapacity");
        }
        if (config.kind() == Kind.PACKED) {
            assertTrue(run.defragmentSwaps > 0 && run.defragmentsCompleted > 0 && run.defragmentNoOps > 0,
                    config.name() + " did not exercise defragment: swaps " + run.defragmentSwaps + ", completed "
                            + run.defragmentsCompleted + ", no-ops " + run.defragmentNoOps);
        }
    }

    /**
     * REGRESSION (library bug found by the model test's bad removeAll): {@link Table#removeAll}
     * documents that "a handle given twice counts as stale the second time", but the second copy
     * used to be rejected with reason {@code FORGED} ("this table never handed it out"), because
     * validating the first copy clears the slot's live bit, so {@code BulkTableImpl.rejection} saw
     * a free slot whose generation equals the handle's. Fixed in commit 686faaa.
     */
    @Test
    void removeAll_rejectsAHandleGivenTwiceAsStale_regression() {
        try (BulkTable table = BulkTable.of(TestSchemas.particles(RecordLayout.SOA))) {
            long a = table.add();
            long b = table.add();
            InvalidHandleException e = assertThrows(InvalidHandleException.class,
                    () -> table.removeAll(new long[] {a, b, a}));
            assertEquals(a, e.handle());
            assertTrue(table.contains(a) && table.contains(b), "nothing was removed");
            assertEquals(InvalidHandleException.Reason.STALE, e.reason(), e.getMessage());
        }
    }

    @AfterAll
    static void reportTotal() {
        long total = TOTAL_OPS.get();
        System.out.printf(Locale.ROOT, "[BulkTableModelTest] total: %,d random operations in %d configurations"
                + " (base seed %d; replay with -D%s=%d)%n", total, CONFIGS_RUN.get(), BASE_SEED, SEED_PROPERTY,
                BASE_SEED);
        if (CONFIGS_RUN.get() == CONFIGS.size()) {
            // Every configuration ran (not a filtered replay): each kind must have executed its
            // budget, as counted by the runs, not as the configurations promise.
            for (Kind kind : Kind.values()) {
                long executed = EXECUTED.get(kind).get();
                assertTrue(executed >= REQUIRED_OPS, "the " + kind + " runs executed only " + executed
                        + " operations; the requirement is " + REQUIRED_OPS + " per table kind");
            }
        }
    }

    // -------------------------------------------------------------------------------------------
    // One run of random operations against the model

    static final class Run implements AutoCloseable {
        private static final byte NEVER = 0;
        private static final byte FREE = 1;
        private static final byte LIVE = 2;
        private static final byte RETIRED = 3;
        private static final long SENTINEL = 0x5A5A_5A5A_5A5A_5A5AL;
        /** Operations kept for the failure message: the last few of a seeded run, all of a fuzzed one. */
        private static final int TRACE_SEEDED = 24;
        private static final int TRACE_FUZZED = 1 << 14;

        private enum Op {
            ADD, ADD_ALL, REMOVE, REMOVE_ALL, BAD_REMOVE_ALL, GET, SET, CONTAINS, CLEAR, RESET, FOR_EACH, CHUNKS,
            INVALID_HANDLE, FOREIGN_FIELD, CAPACITY_FAILURE, RENEW, AUDIT, DEFRAGMENT, DEFRAGMENT_FAILING, RELOAD,
            SCRIBBLE
        }

        /** What a failing defragment order throws (unless it tries a structural change). */
        static final class OrderFailure extends RuntimeException {
            OrderFailure() {
                super("the order fails on purpose", null, false, false);
            }
        }

        /**
         * The identity of the next failing order's wrapper, for {@link #sortedBy} after a complete
         * pass by it: every wrapper is a new order, none of {@link #orders}.
         */
        int nextWrapperOrder = -2;

        final Config cfg;
        final long baseSeed;
        final Choices rng;
        /**
         * Whether the run's decisions come from a fuzzer's input ({@link StorageFuzzTest}). A fuzzed run
         * stops when the input is used up and checks more after every step (it is short and its
         * tables small): every handle the table ever handed out, a snapshot around every call that
         * must fail, and defragment orders that throw part-way.
         */
        final boolean fuzzing;

        // the table under test
        Table table;
        /** The same table, for its audits. */
        AbstractTable impl;
        /** The same table if it is a PackedTable, else null. */
        PackedTableImpl packed;
        Schema schema;
        Field[] fields;
        FieldType[] types;
        int[] hot;
        int[] cold;
        int coldCursor;
        HandleLayout layout;
        int maxSlot;
        int maxGeneration;
        int slotsPerBlock;
        Field foreignField;

        // reference model: handle -> field bits, plus a dense copy for random picks and fast scans
        final HashMap<Long, long[]> model = new HashMap<>();
        final HashMap<Long, Integer> position = new HashMap<>();
        long[] liveH = new long[512];
        long[][] liveV = new long[512][];
        int live;

        // model of the slots
        int tag = -1;
        /** The table's epoch ({@link HandleLayout#epochBits()}). */
        int epoch;
        /**
         * The generation a reset stays above, kept by the table's rules ({@code SlotMap.top}):
         * raised by a removal past it, one up by a clear, the floor after an epoch change, and
         * the highest generation of the slots after a reload.
         */
        int top;
        int limit;
        int[] gen = new int[1024];
        byte[] state = new byte[1024];
        final ArrayDeque<Integer> free = new ArrayDeque<>();
        /** {@link ReuseOrder#SWEEP}: the free slots, and the slot the next take looks at first. */
        final java.util.TreeSet<Integer> holes = new java.util.TreeSet<>();
        int cursor = 1;
        int retired;
        final HashSet<Long> issued = new HashSet<>();
        /** {@link #issued} as a list, for the rotating STALE checks of a fuzzed run. */
        final ArrayList<Long> issuedList = new ArrayList<>();
        int issuedCursor;
        /**
         * Steps between full audits of a fuzzed run (besides those after failed calls,
         * clears, removeAlls and defragments). The audits are O(capacity) and, instrumented by
         * the fuzzer, dominated the run at one per step; {@link #checkOrder()} keeps the
         * iteration order checked after every step.
         */
        static final int FUZZED_AUDIT_EVERY = 16;
        /** Handles of {@link #issued} rejected as STALE per step of a fuzzed run (all at its end). */
        static final int ISSUED_STALE_CHECKS_PER_STEP = 2;
        /** Handles of {@link #issued} rejected as STALE per audit of a fuzzed run. */
        static final int ISSUED_STALE_CHECKS_PER_AUDIT = 16;

        // model of a PackedTable's rows: liveH is in row order (both use swap-and-pop); the
        // defragment state; the most rows ever held (blocks are never freed)
        boolean fragmented;
        /** Save-and-load round trips so far. */
        int reloads;
        int sortedBy = -1;
        int maxRowsEver;
        RecordOrder[] orders;
        /** Per order: the field it reads and whether it compares only the low 2 bits (few unique keys). */
        int[] orderField;
        boolean[] orderFewKeys;

        // the last removed handles
        final long[] removed = new long[REMOVED_WINDOW];
        int removedCount;
        int removedNext;
        int removedCursor;

        // the random walk of the live count
        boolean growing = true;
        int low;
        int high;

        // progress, for the report and the failure message
        long step;
        boolean auditDue;
        final int traceSize;
        final Op[] traceOp;
        final long[] traceStep;
        final long[] traceArg;
        int traceNext;
        int maxLiveSeen;
        long adds;
        int clears;
        int capacityFailures;
        int renewals;
        int badRemoveAlls;
        long defragmentSwaps;
        int defragmentsCompleted;
        int defragmentNoOps;

        // scratch
        final int[] slotsA = new int[Schema.BLOCK_BYTES];
        final int[] slotsB = new int[Schema.BLOCK_BYTES];
        long prevGlobal;
        int visited;

        /** A seeded run: the configuration's stream of the base seed, {@code cfg.ops()} steps. */
        Run(Config cfg, long baseSeed) {
            this(cfg, baseSeed, Choices.seeded(cfg.seed(baseSeed)), false);
        }

        /** A fuzzed run: every decision from the input, until it is used up (or {@code cfg.ops()} steps). */
        Run(Config cfg, Choices input) {
            this(cfg, 0, input, true);
        }

        private Run(Config cfg, long baseSeed, Choices rng, boolean fuzzing) {
            this.cfg = cfg;
            this.baseSeed = baseSeed;
            this.rng = rng;
            this.fuzzing = fuzzing;
            this.traceSize = fuzzing ? TRACE_FUZZED : TRACE_SEEDED;
            this.traceOp = new Op[traceSize];
            this.traceStep = new long[traceSize];
            this.traceArg = new long[traceSize];
        }

        // ---------------------------------------------------------------------------------------
        // Driver

        void execute() {
            openTable();
            for (step = 0; step < cfg.ops() && !rng.exhausted(); step++) {
                oneOperation();
                verifyStep();
                int every = fuzzing ? FUZZED_AUDIT_EVERY : AUDIT_EVERY;
                if (auditDue || step % every == every - 1) {
                    auditDue = false;
                    audit();
                }
            }
            audit();
            if (fuzzing) {
                checkIssued(Integer.MAX_VALUE);
            }
        }

        void oneOperation() {
            if (fuzzing) {
                fuzzedOperation();
                return;
            }
            if (growing && live >= high) {
                growing = false;
                low = rng.nextInt(cfg.maxLive() / 3 + 1);
            } else if (!growing && live <= low) {
                growing = true;
                high = cfg.maxLive() / 2 + rng.nextInt(cfg.maxLive() / 2 + 1);
            }
            int r = rng.nextInt(10_000);
            if (r < 5) {
                opClear(); // 1 in 2000
                return;
            }
            if (r >= 9_995) {
                opReload(); // 1 in 2000
                return;
            }
            r -= 5;
            if (r < 3_250) { // structure: 32.5 %, biased by the walk
                int add = growing ? 1_600 : 600;
                int addAll = growing ? 700 : 200;
                int remove = growing ? 850 : 2_100;
                if (r < add) {
                    opAdd();
                } else if (r < add + addAll) {
                    opAddAll();
                } else if (r < add + addAll + remove) {
                    opRemove();
                } else {
                    opRemoveAll();
                }
                return;
            }
            r -= 3_250;
            if (r < 2_500) {
                opSet();
            } else if (r < 4_700) {
                opGet();
            } else if (r < 5_800) {
                opContains();
            } else if (r < 5_900) {
                opForEach();
            } else if (r < 5_950) {
                opChunks();
            } else if (r < 6_020) {
                opInvalidHandle();
            } else if (r < 6_040) {
                opForeignField();
            } else if (r < 6_100 && packed != null) {
                opDefragment();
            } else if (r < 6_130 && packed == null) {
                opScribble();
            } else {
                opGet();
            }
        }

        /**
         * A fuzzed run's step: one choice among the operations, all alike, so that the input (not
         * the random walk's weights) decides how often each runs.
         */
        void fuzzedOperation() {
            switch (rng.nextInt(packed != null ? 13 : 12)) {
                case 0 -> opClear();
                case 1 -> opAdd();
                case 2 -> opAddAll();
                case 3 -> opRemove();
                case 4 -> opRemoveAll();
                case 5 -> opSet();
                case 6 -> opGet();
                case 7 -> opContains();
                case 8 -> opForEach();
                case 9 -> opChunks();
                case 10 -> opInvalidHandle();
                case 11 -> opForeignField();
                default -> opDefragment();
            }
        }

        void trace(Op op, long arg) {
            int i = traceNext++ % traceSize;
            traceOp[i] = op;
            traceStep[i] = step;
            traceArg[i] = arg;
        }

        // ---------------------------------------------------------------------------------------
        // Operations

        void opAdd() {
            trace(Op.ADD, 1);
            if (available() < 1) {
                expectFull(1, () -> table.add());
                return;
            }
            accept(table.add());
        }

        void opAddAll() {
            int n = rng.nextInt(21);
            trace(Op.ADD_ALL, n);
            int before = rng.nextInt(3);
            int after = rng.nextInt(3);
            long[] out = new long[before + n + after];
            Arrays.fill(out, SENTINEL);
            if (available() < n) {
                expectFull(n, () -> table.addAll(out, before, before + n));
                for (long h : out) {
                    check(h == SENTINEL, "a failed addAll wrote a handle");
                }
                return;
            }
            if (before == 0 && after == 0 && rng.nextBoolean()) {
                table.addAll(out);
            } else {
                table.addAll(out, before, before + n);
            }
            for (int i = 0; i < out.length; i++) {
                if (i < before || i >= before + n) {
                    check(out[i] == SENTINEL, "addAll wrote outside [from, to) at " + i);
                } else {
                    accept(out[i]);
                }
            }
        }

        /** Takes a handle the table just handed out into the model, checking it is the predicted one. */
        void accept(long h) {
            adds++;
            int slot = takeSlot();
            if (tag < 0) {
                tag = layout.tag(h);
                check(tag >= 1 && tag <= HandleLayout.MAX_TAG, "handle with tag " + tag);
            }
            long expected = layout.pack(tag, epoch, gen[slot], slot);
            if (h != expected) {
                throw failure("add returned " + table.format(h) + " (0x" + Long.toHexString(h) + ") but the model"
                        + " expected " + table.format(expected) + " (0x" + Long.toHexString(expected) + "); the"
                        + " model's free list after taking slot " + slot + ": " + free);
            }
            check(!model.containsKey(h), "add returned a handle that is already live");
            check(issued.add(h), "add returned a handle it had handed out before");
            state[slot] = LIVE;
            long[] values = new long[fields.length];
            for (int f = 0; f < fields.length; f++) {
                long bits = Values.get(table, h, fields[f]);
                if (bits != 0) {
                    throw failure("new record " + table.format(h) + " has " + fields[f] + " = 0x"
                            + Long.toHexString(bits) + ", not zero");
                }
            }
            put(h, values);
        }

        void opRemove() {
            if (live == 0) {
                opAdd();
                return;
            }
            long h = liveH[rng.nextInt(live)];
            trace(Op.REMOVE, h);
            table.remove(h);
            forget(h);
            check(!table.contains(h), "a removed handle is still contained");
        }

        void opRemoveAll() {
            if (live == 0) {
                opAddAll();
                return;
            }
            int k = 1 + rng.nextInt(Math.min(live, 16));
            long[] picked = pickDistinctLive(k);
            int before = rng.nextInt(3);
            int after = rng.nextInt(3);
            if (rng.nextInt(8) == 0) {
                badRemoveAll(picked, before, after);
                return;
            }
            trace(Op.REMOVE_ALL, k);
            long[] array = new long[before + k + after];
            for (int i = 0; i < array.length; i++) {
                // outside [from, to): handles that must not be touched, live ones among them
                array[i] = i >= before && i < before + k ? picked[i - before] : outsider();
            }
            if (before == 0 && after == 0 && rng.nextBoolean()) {
                table.removeAll(array);
            } else {
                table.removeAll(array, before, before + k);
            }
            // removeAll releases the slots in slot order, whatever the order given
            Long[] boxed = java.util.Arrays.stream(picked).boxed().toArray(Long[]::new);
            java.util.Arrays.sort(boxed, java.util.Comparator.comparingInt(this::slotOf));
            for (long h : boxed) {
                forget(h);
                check(!table.contains(h), "a handle removed by removeAll is still contained");
            }
            auditDue = true;
        }

        /** A handle for the untouched part of an array: live, stale, null or garbage. */
        long outsider() {
            return switch (rng.nextInt(4)) {
                case 0 -> live > 0 ? liveH[rng.nextInt(live)] : Handles.NULL;
                case 1 -> removedCount > 0 ? removed[rng.nextInt(removedCount)] : Handles.NULL;
                case 2 -> Handles.NULL;
                default -> rng.nextLong();
            };
        }

        /** removeAll with one bad handle among good ones: must throw and change nothing. */
        void badRemoveAll(long[] picked, int before, int after) {
            badRemoveAlls++;
            int k = picked.length;
            int badAt = rng.nextInt(k + 1);
            long bad;
            InvalidHandleException.Reason reason;
            int kind = rng.nextInt(4);
            if (kind == 0 && badAt > 0) {
                bad = picked[rng.nextInt(badAt)]; // given twice: stale the second time
                reason = InvalidHandleException.Reason.STALE;
            } else if (kind <= 1 && removedCount > 0) {
                bad = removed[rng.nextInt(removedCount)];
                reason = InvalidHandleException.Reason.STALE;
            } else if (kind == 2) {
                bad = Handles.NULL;
                reason = InvalidHandleException.Reason.NULL;
            } else {
                bad = garbageNotLive();
                reason = expectedReason(bad);
            }
            trace(Op.BAD_REMOVE_ALL, bad);
            long[] array = new long[before + k + 1 + after];
            for (int i = 0; i < array.length; i++) {
                array[i] = outsider();
            }
            for (int i = 0, j = 0; i <= k; i++) {
                array[before + i] = i == badAt ? bad : picked[j++];
            }
            TableSnapshot snapshot = TableSnapshot.of(table);
            InvalidHandleException e = assertThrows(InvalidHandleException.class,
                    () -> table.removeAll(array, before, before + k + 1), "removeAll with a bad handle");
            assertEquals(bad, e.handle(), "the exception names the first bad handle");
            assertEquals(reason, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("[" + (before + badAt) + "]"),
                    () -> "the message names the position " + (before + badAt) + ": " + e.getMessage());
            assertEquals(snapshot, TableSnapshot.of(table), "a failed removeAll changed the table");
            for (long h : picked) {
                check(table.contains(h), "a failed removeAll removed a handle");
            }
            auditDue = true;
        }

        void opGet() {
            if (live == 0) {
                opContains();
                return;
            }
            int i = rng.nextInt(live);
            int f = rng.nextInt(fields.length);
            trace(Op.GET, liveH[i]);
            long bits = Values.get(table, liveH[i], fields[f]);
            if (bits != liveV[i][f]) {
                throw failure("get(" + table.format(liveH[i]) + ", " + fields[f] + ") = 0x" + Long.toHexString(bits)
                        + ", model 0x" + Long.toHexString(liveV[i][f]));
            }
        }

        void opSet() {
            if (live == 0) {
                opAdd();
                return;
            }
            int i = rng.nextInt(live);
            // three in four sets go to the fields checked every step, the rest to any field
            int f = rng.nextInt(4) != 0 ? hot[rng.nextInt(hot.length)] : rng.nextInt(fields.length);
            long bits = randomBits();
            trace(Op.SET, liveH[i]);
            Values.set(table, liveH[i], fields[f], bits);
            liveV[i][f] = Values.normalize(types[f], bits);
            long read = Values.get(table, liveH[i], fields[f]);
            if (read != liveV[i][f]) {
                throw failure("set(" + table.format(liveH[i]) + ", " + fields[f] + ", 0x" + Long.toHexString(bits)
                        + ") reads back 0x" + Long.toHexString(read) + ", expected 0x"
                        + Long.toHexString(liveV[i][f]));
            }
        }

        void opContains() {
            long h;
            switch (rng.nextInt(5)) {
                case 0 -> h = live > 0 ? liveH[rng.nextInt(live)] : Handles.NULL;
                case 1 -> h = removedCount > 0 ? removed[rng.nextInt(removedCount)] : Handles.NULL;
                case 2 -> h = Handles.NULL;
                case 3 -> h = rng.nextLong();
                default -> h = mutate(live > 0 && rng.nextBoolean() ? liveH[rng.nextInt(live)]
                        : removedCount > 0 ? removed[rng.nextInt(removedCount)] : rng.nextLong());
            }
            trace(Op.CONTAINS, h);
            boolean expected = model.containsKey(h);
            if (table.contains(h) != expected) {
                throw failure("contains(" + table.format(h) + " = 0x" + Long.toHexString(h) + ") = " + !expected
                        + ", the model says " + expected);
            }
            if (!expected && (fuzzing || rng.nextInt(16) == 0)) {
                // a handle the table does not hold is never misread, and is rejected for the right reason
                InvalidHandleException e = assertThrows(InvalidHandleException.class,
                        () -> Values.get(table, h, fields[0]), "get with a handle that is not live");
                assertEquals(h, e.handle());
                assertEquals(expectedReason(h), e.reason(), e.getMessage());
            }
        }

        /** A near miss of a handle: another generation, index, tag, stray bits or slot 0. */
        long mutate(long h) {
            int slotBits = layout.slotBits();
            int generationBits = layout.generationBits();
            return switch (rng.nextInt(7)) {
                case 0 -> h ^ (1L << (slotBits + rng.nextInt(generationBits)));
                case 1 -> h + 1;
                case 2 -> h - 1;
                case 3 -> h ^ (1L << (HandleLayout.TAG_SHIFT + rng.nextInt(HandleLayout.TAG_BITS)));
                case 4 -> slotBits + generationBits < HandleLayout.TAG_SHIFT
                        ? h | (1L << (slotBits + generationBits
                                + rng.nextInt(HandleLayout.TAG_SHIFT - slotBits - generationBits)))
                        : h ^ 1;
                case 5 -> h & ~((1L << slotBits) - 1);
                default -> h ^ (1L << rng.nextInt(slotBits));
            };
        }

        /** Calls that must be rejected with InvalidHandleException and leave the table as it was. */
        void opInvalidHandle() {
            long h;
            InvalidHandleException.Reason reason;
            if (removedCount > 0 && rng.nextInt(3) != 0) {
                h = removed[rng.nextInt(removedCount)];
                reason = InvalidHandleException.Reason.STALE;
            } else if (rng.nextBoolean()) {
                h = Handles.NULL;
                reason = InvalidHandleException.Reason.NULL;
            } else {
                h = garbageNotLive();
                reason = expectedReason(h);
            }
            trace(Op.INVALID_HANDLE, h);
            Field field = fields[rng.nextInt(fields.length)];
            int kind = rng.nextInt(3);
            Executable call = switch (kind) {
                case 0 -> () -> table.remove(h);
                case 1 -> () -> Values.get(table, h, field);
                default -> () -> Values.set(table, h, field, -1L);
            };
            boolean snap = rng.nextInt(4) == 0;
            TableSnapshot snapshot = snap || fuzzing ? snapshot() : null;
            InvalidHandleException e = assertThrows(InvalidHandleException.class, call, "call with an invalid handle");
            assertEquals(h, e.handle());
            assertEquals(reason, e.reason(), e.getMessage());
            if (snapshot != null) {
                assertEquals(snapshot, snapshot(), "a rejected call changed the table");
            }
            if (kind == 2) {
                auditDue = true; // the audit: the set must not have written the hole
            }
        }

        void opForeignField() {
            if (live == 0) {
                opAdd();
                return;
            }
            long h = liveH[rng.nextInt(live)];
            trace(Op.FOREIGN_FIELD, h);
            TableSnapshot snapshot = fuzzing ? snapshot() : null;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Values.get(table, h, foreignField), "get with a field of another schema");
            assertEquals(IllegalArgumentException.class, e.getClass(), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> Values.set(table, h, foreignField, 1), "set with a field of another schema");
            assertEquals(IllegalArgumentException.class, e.getClass(), e.getMessage());
            if (snapshot != null) {
                assertEquals(snapshot, snapshot(), "a call with a foreign field changed the table");
            }
        }

        /** A clear or, half of the time, a reset, each predicted by the model. */
        void opClear() {
            boolean reset = rng.nextBoolean();
            trace(reset ? Op.RESET : Op.CLEAR, live);
            clears++;
            long[] cleared = Arrays.copyOf(liveH, live);
            int floor = impl.slots.floor;
            boolean liveAtLast = false;
            for (int slot = 1; slot < limit; slot++) {
                liveAtLast |= state[slot] == LIVE && gen[slot] == maxGeneration;
            }
            if (reset) {
                table.reset();
            } else {
                table.clear();
            }
            if (reset && top < maxGeneration && retired == 0) {
                // reset: every opened slot one generation above the highest
                top++;
                for (int slot = 1; slot < limit; slot++) {
                    gen[slot] = top;
                    state[slot] = FREE;
                }
            } else if ((reset || liveAtLast) && epoch < layout.maxEpoch()) {
                // the next epoch: every opened slot starts again at the floor, retired ones too
                epoch++;
                for (int slot = 1; slot < limit; slot++) {
                    gen[slot] = floor;
                    state[slot] = FREE;
                }
                retired = 0;
                top = floor;
            } else {
                for (long h : cleared) {
                    int slot = slotOf(h);
                    if (gen[slot] == maxGeneration) {
                        state[slot] = RETIRED;
                        retired++;
                    } else {
                        gen[slot]++;
                        state[slot] = FREE;
                    }
                }
                if (!reset) {
                    top = Math.min(top + 1, maxGeneration);
                }
            }
            for (long h : cleared) {
                pushRemoved(h);
            }
            check(impl.stats().retired() == retired, "retired after " + (reset ? "reset" : "clear") + ": "
                    + impl.stats().retired() + ", model " + retired);
            model.clear();
            position.clear();
            Arrays.fill(liveV, 0, live, null);
            live = 0;
            // clear rebuilds the free list from every slot that is not retired; take its order
            int[] actual = TableAudit.freeSlots(impl);
            int[] sorted = actual.clone();
            Arrays.sort(sorted);
            int[] expected = new int[Math.max(0, limit - 1)];
            int n = 0;
            for (int slot = 1; slot < limit; slot++) {
                if (state[slot] == FREE) {
                    expected[n++] = slot;
                }
            }
            assertArrayEquals(Arrays.copyOf(expected, n), sorted, "free list after clear");
            free.clear();
            holes.clear();
            if (cfg.order() == ReuseOrder.SWEEP) {
                assertArrayEquals(Arrays.copyOf(expected, n), actual, "SWEEP free list after clear: slot order");
                cursor = 1;
            }
            for (int slot : actual) {
                if (cfg.order() == ReuseOrder.SWEEP) {
                    holes.add(slot);
                } else {
                    free.addLast(slot);
                }
            }
            for (long h : cleared) {
                check(!table.contains(h), "a handle survived clear");
            }
            fragmented = true;
            auditDue = true;
        }

        // ---------------------------------------------------------------------------------------
        // PackedTable: defragment, replayed on the model

        /** Orders over one field's raw bits: all of them, or the low 2 bits only (few unique keys). */
        RecordOrder[] makeOrders() {
            int n = 4;
            orders = new RecordOrder[n];
            orderField = new int[n];
            orderFewKeys = new boolean[n];
            for (int k = 0; k < n; k++) {
                int f = hot[rng.nextInt(hot.length)];
                boolean few = k % 2 == 1;
                orderField[k] = f;
                orderFewKeys[k] = few;
                Field field = fields[f];
                orders[k] = (a, b) -> compareKeys(Values.get(table, a, field), Values.get(table, b, field), few);
            }
            return orders;
        }

        static int compareKeys(long a, long b, boolean few) {
            return few ? Long.compare(a & 3, b & 3) : Long.compare(a, b);
        }

        void opDefragment() {
            int k = rng.nextInt(orders.length);
            long budget = switch (rng.nextInt(4)) {
                case 0 -> Long.MAX_VALUE;
                case 1 -> 0;
                default -> rng.nextInt(Math.max(1, live * 2));
            };
            trace(Op.DEFRAGMENT, budget);
            if (rng.nextInt(8) == 0) {
                packed.markFragmented();
                fragmented = true;
            }
            if (rng.nextInt(16) == 0) {
                TableSnapshot snapshot = TableSnapshot.of(table);
                assertThrows(IllegalArgumentException.class, () -> packed.defragment(1, null), "null order");
                assertThrows(IllegalArgumentException.class, () -> packed.defragment(-1, orders[k]), "negative budget");
                assertEquals(snapshot, TableSnapshot.of(table), "a rejected defragment changed the table");
            }
            if (fuzzing && rng.nextBoolean()) {
                defragmentFailing(k, budget);
                return;
            }
            long expected = modelDefragment(k, budget);
            long swaps = packed.defragment(budget, orders[k]);
            if (swaps != expected) {
                throw failure("defragment(" + budget + ", order " + k + ") made " + swaps + " swaps, the model "
                        + expected);
            }
            check(packed.isFragmented() == fragmented, "fragmented flag " + packed.isFragmented() + ", model "
                    + fragmented);
            if (!fragmented && sortedBy == k && rng.nextBoolean()) {
                // nothing changed since the complete pass: the same order again is a no-op
                check(modelDefragment(k, Long.MAX_VALUE) == 0, "model: a repeated pass made swaps");
                long again = packed.defragment(Long.MAX_VALUE, orders[k]);
                check(again == 0, "defragment right after a complete pass made " + again + " swaps");
            }
            defragmentSwaps += swaps;
            auditDue = true;
        }

        /**
         * defragment with order {@code k}, or its reverse, wrapped in a new order whose comparison
         * number {@code failAt} (from 0) fails: it throws, or it tries to add a record, which must
         * throw ConcurrentModificationException. Either ends the call; the rows swapped until then
         * stay swapped (the model replays the same swaps), every handle stays valid, and, as an
         * unfinished call that moved rows, it leaves the table fragmented. If the order never
         * reaches that comparison the call is an ordinary one by a new order.
         */
        void defragmentFailing(int k, long budget) {
            long failAt = rng.nextInt(2 * live + 2);
            boolean structural = rng.nextBoolean();
            int sign = rng.nextBoolean() ? -1 : 1;
            trace(Op.DEFRAGMENT_FAILING, (structural ? -1 - failAt : failAt) * sign);
            long[] compares = {0};
            RecordOrder failing = (a, b) -> {
                if (compares[0]++ == failAt) {
                    if (structural) {
                        table.add();
                        throw failure("the order added a record during defragment");
                    }
                    throw new OrderFailure();
                }
                return sign * orders[k].compare(a, b);
            };
            boolean wasFragmented = fragmented;
            long expected = modelSort(nextWrapperOrder--, k, sign, budget, failAt);
            // one branch per case, so that coverage guidance keeps an input that reaches a new one
            StorageFuzzTest.feedback((wasFragmented ? 4 : 0) | (modelFailed ? 2 : 0) | (expected > 0 ? 1 : 0));
            long swaps = -1;
            RuntimeException thrown = null;
            try {
                swaps = packed.defragment(budget, failing);
            } catch (RuntimeException e) {
                thrown = e;
            }
            if (modelFailed) {
                check(thrown != null, "defragment returned " + swaps + " although its order failed at comparison "
                        + failAt);
                check(structural ? thrown instanceof ConcurrentModificationException : thrown instanceof OrderFailure,
                        "defragment whose order failed threw " + thrown);
            } else {
                check(thrown == null, "defragment threw " + thrown + ", but the model's pass has only "
                        + compares[0] + " comparisons, not " + (failAt + 1));
                check(swaps == expected, "defragment(" + budget + ", failing order " + k + ") made " + swaps
                        + " swaps, the model " + expected);
            }
            check(packed.isFragmented() == fragmented, "after defragment by an order that "
                    + (modelFailed ? "failed at comparison " + failAt : "did not fail") + " (" + expected
                    + " swaps): fragmented flag " + packed.isFragmented() + ", model " + fragmented);
            defragmentSwaps += expected;
            auditDue = true;
        }

        /** Whether the last {@link #modelSort} stopped at its failing comparison. */
        boolean modelFailed;

        /** The table's algorithm on the model's rows: insertion sort by adjacent swaps, within a budget. */
        long modelDefragment(int k, long budget) {
            return modelSort(k, k, 1, budget, Long.MAX_VALUE);
        }

        /**
         * {@link #modelDefragment} by the order with identity {@code orderId} (for the no-op rule),
         * comparing as order {@code k} does (reversed if {@code sign} is -1), and failing at
         * comparison number {@code failAt}.
         */
        long modelSort(int orderId, int k, int sign, long budget, long failAt) {
            modelFailed = false;
            if (!fragmented && sortedBy == orderId) {
                defragmentNoOps++;
                return 0;
            }
            int f = orderField[k];
            boolean few = orderFewKeys[k];
            long swaps = 0;
            long compares = 0;
            int next = 1;
            sort:
            for (; next < live; next++) {
                for (int j = next; j > 0; j--) {
                    if (compares++ == failAt) {
                        modelFailed = true;
                        break sort;
                    }
                    if (sign * compareKeys(liveV[j - 1][f], liveV[j][f], few) <= 0) {
                        break;
                    }
                    if (swaps == budget) {
                        break sort;
                    }
                    long h = liveH[j];
                    long[] v = liveV[j];
                    liveH[j] = liveH[j - 1];
                    liveV[j] = liveV[j - 1];
                    liveH[j - 1] = h;
                    liveV[j - 1] = v;
                    position.put(liveH[j], j);
                    position.put(h, j - 1);
                    swaps++;
                }
            }
            if (modelFailed) {
                // ARCHITECTURE.md: an unfinished call that moved rows leaves the table fragmented
                if (swaps > 0) {
                    fragmented = true;
                }
                return swaps;
            }
            if (next >= live) {
                fragmented = false;
                sortedBy = orderId;
                defragmentsCompleted++;
            } else if (swaps > 0) {
                fragmented = true;
            }
            return swaps;
        }

        void opForEach() {
            trace(Op.FOR_EACH, live);
            prevGlobal = -1;
            visited = 0;
            boolean write = rng.nextInt(3) == 0;
            table.forEach((chunk, slot) -> {
                long global = (long) chunk.index() * slotsPerBlock + slot;
                check(global > prevGlobal, "forEach is not in slot order");
                prevGlobal = global;
                long h = chunk.handle(slot);
                checkPosition(h, global, visited);
                long[] values = model.get(h);
                if (values == null) {
                    throw failure("forEach visited " + table.format(h) + ", which the model does not hold");
                }
                for (int f = 0; f < fields.length; f++) {
                    long bits = Values.get(chunk, slot, fields[f]);
                    if (bits != values[f]) {
                        throw failure("forEach: " + table.format(h) + " " + fields[f] + " = 0x"
                                + Long.toHexString(bits) + ", model 0x" + Long.toHexString(values[f]));
                    }
                }
                if (write && rng.nextInt(4) == 0) {
                    int f = rng.nextInt(fields.length);
                    long bits = randomBits();
                    Values.set(chunk, slot, fields[f], bits);
                    values[f] = Values.normalize(types[f], bits);
                }
                visited++;
            });
            check(visited == live, "forEach visited " + visited + " records, the model holds " + live);
            visited = 0;
            int[] chunks = {0};
            table.forEachChunk(chunk -> {
                check(chunk.index() == chunks[0]++, "forEachChunk out of order");
                visited += chunk.liveCount();
            });
            check(chunks[0] == expectedChunks(), "forEachChunk visited " + chunks[0] + " chunks");
            check(visited == live, "the chunks' live counts add up to " + visited + ", the model holds " + live);
        }

        /**
         * Writes non-zero bytes into every field of every hole of one chunk through a writable
         * view of its records, as raw code may: later adds into those slots must still hand
         * out all-zero records (BulkTable only: a packed table's rows past its live count must
         * stay zero).
         */
        void opScribble() {
            trace(Op.SCRIBBLE, live);
            try (ChunkIteration chunks = table.iterate()) {
                if (chunks.count() == 0) {
                    return;
                }
                int c = rng.nextInt(chunks.count());
                MemorySegment records = chunks.chunk(c).writableRecords();
                for (int s = 0; s < slotsPerBlock; s++) {
                    int slot = c * slotsPerBlock + s;
                    if (slot < state.length && state[slot] == FREE) {
                        for (Field f : fields) {
                            records.asSlice(f.blockOffset() + (long) s * f.slotStride(), f.type().byteSize())
                                    .fill((byte) 0xA5);
                        }
                    }
                }
            }
        }

        void opChunks() {
            trace(Op.CHUNKS, live);
            int seen = 0;
            try (ChunkIteration chunks = table.iterate()) {
                check(chunks.count() == expectedChunks(), "iterate() has " + chunks.count() + " chunks");
                int index = 0;
                for (Chunk chunk : chunks) {
                    check(chunk.index() == index, "chunk " + chunk.index() + " at position " + index);
                    check(chunk.slotCount() == slotsPerBlock, "slotCount " + chunk.slotCount());
                    check(chunk.liveWordCount() == (slotsPerBlock + 63) / 64, "liveWordCount");
                    int a = 0;
                    for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                        slotsA[a++] = s;
                    }
                    int b = 0;
                    for (int w = 0; w < chunk.liveWordCount(); w++) {
                        for (long bits = chunk.liveBits(w); bits != 0; bits &= bits - 1) {
                            slotsB[b++] = (w << 6) + Long.numberOfTrailingZeros(bits);
                        }
                    }
                    check(Arrays.equals(slotsA, 0, a, slotsB, 0, b), "nextLive and liveBits disagree in chunk " + index);
                    int c = 0;
                    for (int start = chunk.nextLive(0), end; start >= 0; start = chunk.nextLive(end)) {
                        end = chunk.nextHole(start);
                        check(end > start && end <= slotsPerBlock, "nextHole(" + start + ") = " + end);
                        check(end == slotsPerBlock || !chunk.isLive(end), "nextHole(" + start + ") = " + end + ", a live slot");
                        for (int s = start; s < end; s++) {
                            check(c < a && slotsA[c++] == s, "the run [" + start + ", " + end + ") holds slot " + s
                                    + ", which nextLive does not visit, in chunk " + index);
                        }
                    }
                    check(c == a, "the runs of chunk " + index + " hold " + c + " slots, nextLive visits " + a);
                    check(chunk.nextHole(slotsPerBlock) == slotsPerBlock, "nextHole(slotCount) is not slotCount");
                    check(chunk.liveCount() == a, "liveCount " + chunk.liveCount() + " but " + a + " live slots");
                    check(chunk.nextLive(slotsPerBlock) == -1, "nextLive(slotCount) is not -1");
                    for (int i = 0; i < a; i++) {
                        int s = slotsA[i];
                        check(chunk.isLive(s), "isLive disagrees with nextLive");
                        long h = chunk.handle(s);
                        checkPosition(h, (long) index * slotsPerBlock + s, seen + i);
                        check(packed == null || s == i, "a PackedTable chunk has a hole before slot " + s);
                        long[] values = model.get(h);
                        if (values == null) {
                            throw failure("chunk " + index + " slot " + s + " holds " + table.format(h)
                                    + ", which the model does not hold");
                        }
                        for (int f = 0; f < fields.length; f++) {
                            if (Values.get(chunk, s, fields[f]) != values[f]) {
                                throw failure("chunk " + index + " slot " + s + ": " + fields[f] + " disagrees");
                            }
                        }
                        if (rng.nextInt(8) == 0) {
                            int f = rng.nextInt(fields.length);
                            long bits = randomBits();
                            Values.set(chunk, s, fields[f], bits);
                            values[f] = Values.normalize(types[f], bits);
                        }
                    }
                    check(packed == null || (a > 0 && (a == slotsPerBlock || index == chunks.count() - 1)),
                            "PackedTable chunk " + index + " of " + chunks.count() + " holds " + a + " records;"
                            + " every chunk but the last must be full");
                    seen += a;
                    if (a < slotsPerBlock && rng.nextInt(4) == 0) {
                        int hole = rng.nextInt(slotsPerBlock);
                        while (chunk.isLive(hole)) {
                            hole = (hole + 1) % slotsPerBlock;
                        }
                        int s = hole;
                        assertThrows(IllegalArgumentException.class, () -> Values.get(chunk, s, fields[0]),
                                "reading a hole");
                        assertThrows(IllegalArgumentException.class, () -> chunk.handle(s), "handle of a hole");
                    }
                    index++;
                }
                if (rng.nextBoolean()) {
                    structuralChangeFailsWhileIterating();
                }
            }
            check(seen == live, "the chunks hold " + seen + " live records, the model " + live);
        }

        void structuralChangeFailsWhileIterating() {
            long h = live > 0 ? liveH[rng.nextInt(live)] : Handles.NULL;
            int kinds = packed != null ? 7 : 6;
            Executable call = switch (h == Handles.NULL ? rng.nextInt(2) : rng.nextInt(kinds)) {
                case 0 -> () -> table.add();
                case 1 -> () -> table.addAll(new long[1 + rng.nextInt(3)]);
                case 2 -> () -> table.remove(h);
                case 3 -> () -> table.removeAll(new long[] {h});
                case 4 -> () -> table.clear();
                case 5 -> () -> table.cancelAdd(h);
                default -> () -> packed.defragment(Long.MAX_VALUE, orders[0]);
            };
            TableSnapshot snapshot = fuzzing ? snapshot() : null;
            assertThrows(ConcurrentModificationException.class, call, "a structural change while iterating");
            check(!table.isClosed(), "close succeeded during an iteration");
            if (snapshot != null) {
                assertEquals(snapshot, snapshot(), "a refused structural change changed the table");
            }
        }

        // ---------------------------------------------------------------------------------------
        // Checks

        void verifyStep() {
            if (table.size() != live) {
                throw failure("size() = " + table.size() + ", the model holds " + live);
            }
            maxLiveSeen = Math.max(maxLiveSeen, live);
            for (int i = 0; i < live; i++) {
                long h = liveH[i];
                long[] values = liveV[i];
                for (int f : hot) {
                    if (read(h, f) != values[f]) {
                        throw mismatch(h, f, values[f]);
                    }
                }
            }
            if (cold.length > 0) {
                for (int c = 0; c < COLD_FIELDS_PER_STEP; c++) {
                    int f = cold[coldCursor++ % cold.length];
                    for (int i = 0; i < live; i++) {
                        if (read(liveH[i], f) != liveV[i][f]) {
                            throw mismatch(liveH[i], f, liveV[i][f]);
                        }
                    }
                }
            }
            for (int i = 0; i < removedCount; i++) {
                if (table.contains(removed[i])) {
                    throw failure("removed handle " + table.format(removed[i]) + " is contained again");
                }
            }
            if (removedCount > 0 && step % STALE_CHECK_EVERY == 0) {
                expectStale(removed[removedCursor++ % removedCount]);
            }
            if (fuzzing) {
                checkIssued(ISSUED_STALE_CHECKS_PER_STEP);
                checkOrder();
            }
        }

        /** A snapshot for a call that must fail: audited in seeded runs, not in fuzzed ones (their periodic audits check the table). */
        TableSnapshot snapshot() {
            return fuzzing ? TableSnapshot.withoutAudit(table) : TableSnapshot.of(table);
        }

        /**
         * The order in which {@code forEach} visits the live handles: slot order for a BulkTable,
         * the model's row order for a PackedTable (values are read by handle above, and through
         * the chunks at every audit).
         */
        void checkOrder() {
            visited = 0;
            prevGlobal = -1;
            table.forEach((chunk, slot) -> {
                long global = (long) chunk.index() * slotsPerBlock + slot;
                check(global > prevGlobal, "forEach is not in slot order");
                prevGlobal = global;
                long h = chunk.handle(slot);
                check(model.containsKey(h), "forEach visits " + table.format(h) + ", which the model does not hold");
                checkPosition(h, global, visited++);
            });
            check(visited == live, "forEach visited " + visited + " records, the model holds " + live);
        }

        /**
         * Every handle this table ever handed out: the live ones read their values (above), no
         * other one is contained, and {@code staleChecks} of them (rotating; all at the end of a
         * fuzzed run) are rejected by {@code get} as STALE, each a thrown exception.
         */
        void checkIssued(int staleChecks) {
            if (issuedList.size() != issued.size()) {
                issuedList.clear();
                issuedList.addAll(issued);
            }
            for (long h : issuedList) {
                if (!model.containsKey(h) && table.contains(h)) {
                    throw failure("handle " + table.format(h) + " was removed but is contained again");
                }
            }
            int n = issuedList.size();
            for (int i = 0; i < Math.min(n, staleChecks); i++) {
                long h = issuedList.get(issuedCursor++ % n);
                if (!model.containsKey(h)) {
                    expectStale(h);
                }
            }
        }

        /**
         * {@link Values#get(Table, long, Field)} for the per-step scan: the same reads, dispatched
         * on a precomputed type instead of a pattern switch over the field's class.
         */
        long read(long h, int f) {
            Field field = fields[f];
            return switch (types[f]) {
                case BYTE -> table.get(h, (ByteField) field);
                case SHORT -> table.get(h, (ShortField) field);
                case CHAR -> table.get(h, (CharField) field);
                case INT -> table.get(h, (IntField) field);
                case LONG -> table.get(h, (LongField) field);
                case FLOAT -> Float.floatToRawIntBits(table.get(h, (FloatField) field));
                case DOUBLE -> Double.doubleToRawLongBits(table.get(h, (DoubleField) field));
                case BOOLEAN -> table.get(h, (BooleanField) field) ? 1 : 0;
                case HANDLE -> table.get(h, (HandleField) field);
            };
        }

        void audit() {
            trace(Op.AUDIT, live);
            TableAudit.check(impl);
            // every field of every record, in slot (row) order, against the model
            HashMap<Long, long[]> seen = new HashMap<>();
            prevGlobal = -1;
            table.forEach((chunk, slot) -> {
                long global = (long) chunk.index() * slotsPerBlock + slot;
                check(global > prevGlobal, "forEach is not in slot order");
                prevGlobal = global;
                checkPosition(chunk.handle(slot), global, seen.size());
                long[] values = new long[fields.length];
                for (int f = 0; f < fields.length; f++) {
                    values[f] = Values.get(chunk, slot, fields[f]);
                }
                seen.put(chunk.handle(slot), values);
            });
            check(seen.size() == model.size(), "forEach saw " + seen.size() + " records, the model holds "
                    + model.size());
            for (var entry : model.entrySet()) {
                long[] values = seen.get(entry.getKey());
                if (values == null) {
                    throw failure("forEach did not visit " + table.format(entry.getKey()));
                }
                for (int f = 0; f < fields.length; f++) {
                    if (values[f] != entry.getValue()[f]) {
                        throw mismatch(entry.getKey(), f, entry.getValue()[f]);
                    }
                }
            }
            // the free list, in reuse order
            int[] expectedFree = freeOrder();
            assertArrayEquals(expectedFree, TableAudit.freeSlots(impl), "free list (head first)");
            // stats and capacity
            TableStats stats = table.stats();
            assertEquals(live, stats.live(), "stats().live");
            assertEquals(packed != null ? 0 : freeSize(), stats.holes(), "stats().holes");
            assertEquals(retired, stats.retired(), "stats().retired");
            assertEquals(expectedBlocks(), stats.blocks(), "stats().blocks");
            assertEquals((long) expectedBlocks() * schema.blockBytes(), stats.nativeBytes(), "stats().nativeBytes");
            long expectedCapacity;
            if (packed != null) {
                expectedCapacity = Math.min((long) expectedBlocks() * slotsPerBlock, live + (long) available());
            } else {
                long opened = Math.min((long) expectedBlocks() * slotsPerBlock, (long) maxSlot + 1);
                expectedCapacity = live + freeSize() + (limit == 0 ? 0 : opened - limit);
            }
            assertEquals(expectedCapacity, table.capacity(), "capacity()");
            assertEquals(stats.capacity(), table.capacity(), "stats().capacity");
            assertEquals(live == 0, table.isEmpty(), "isEmpty()");
            // the removed window: all still rejected, and some of them (rotating) rejected as STALE
            for (int i = 0; i < removedCount; i++) {
                check(!table.contains(removed[i]), "a removed handle is contained again");
            }
            for (int i = 0; i < Math.min(removedCount, STALE_CHECKS_PER_AUDIT); i++) {
                expectStale(removed[removedCursor++ % removedCount]);
            }
            if (fuzzing) {
                checkIssued(ISSUED_STALE_CHECKS_PER_AUDIT);
            }
        }

        /**
         * Why the table must reject {@code h}, from the model alone, in the order the reasons are
         * documented and checked ({@link InvalidHandleException.Reason}): the null handle; a tag
         * that is not this table's (FOREIGN if an open table made it; CLOSED if a closed table
         * held it, the open holder's floor above it or no open holder; else FORGED); bits outside the
         * layout or slot 0 (FORGED); a slot never opened (OUT_OF_RANGE); an older generation, or the
         * retired slot's last one (STALE); any other generation (FORGED).
         *
         * @return the reason, or null if {@code h} is live
         */
        InvalidHandleException.Reason expectedReason(long h) {
            if (h == Handles.NULL) {
                return InvalidHandleException.Reason.NULL;
            }
            int handleTag = layout.tag(h);
            if (handleTag != impl.slots.tag()) {
                if (TagRegistry.nameOf(handleTag) != null) {
                    return TagRegistry.predatesHolder(handleTag, h)
                            ? InvalidHandleException.Reason.CLOSED : InvalidHandleException.Reason.FOREIGN;
                }
                return TagRegistry.closedNameOf(handleTag) != null
                        ? InvalidHandleException.Reason.CLOSED : InvalidHandleException.Reason.FORGED;
            }
            if (layout.hasStrayBits(h) || layout.slot(h) == 0) {
                return InvalidHandleException.Reason.FORGED;
            }
            if (layout.epoch(h) != epoch) {
                return layout.epoch(h) < epoch ? InvalidHandleException.Reason.STALE : InvalidHandleException.Reason.FORGED;
            }
            if (layout.slot(h) >= limit) {
                return InvalidHandleException.Reason.OUT_OF_RANGE;
            }
            int slot = slotOf(h);
            int g = layout.generation(h);
            if (g < gen[slot] || (g == gen[slot] && state[slot] == RETIRED)) {
                return InvalidHandleException.Reason.STALE;
            }
            return g == gen[slot] && state[slot] == LIVE ? null : InvalidHandleException.Reason.FORGED;
        }

        void expectStale(long h) {
            try {
                Values.get(table, h, fields[0]);
            } catch (InvalidHandleException e) {
                if (e.reason() != InvalidHandleException.Reason.STALE || e.handle() != h) {
                    throw failure("get(" + table.format(h) + ") of a removed handle was rejected as " + e.reason()
                            + ", not STALE: " + e.getMessage());
                }
                return;
            }
            throw failure("get(" + table.format(h) + ") of a removed handle did not throw");
        }

        /** A failing add: CapacityExceededException exactly when the model predicts it, nothing changed. */
        void expectFull(int n, Executable call) {
            trace(Op.CAPACITY_FAILURE, n);
            capacityFailures++;
            TableSnapshot snapshot = TableSnapshot.of(table);
            assertThrows(CapacityExceededException.class, call,
                    "adding " + n + " with room for " + available() + " must fail");
            assertEquals(snapshot, TableSnapshot.of(table), "a failed add changed the table");
            growing = false;
            low = rng.nextInt(cfg.maxLive() / 3 + 1);
            auditDue = true;
            if (maxSlot - retired < RENEW_BELOW_USABLE) {
                renew();
            }
        }

        // ---------------------------------------------------------------------------------------
        // Model of the slots

        int available() {
            long fresh = limit == 0 ? maxSlot : (long) maxSlot - limit + 1;
            return (int) Math.min(Integer.MAX_VALUE, freeSize() + fresh);
        }

        int freeSize() {
            return free.size() + holes.size();
        }

        /** The free slots in the order takes will use them. */
        int[] freeOrder() {
            if (cfg.order() != ReuseOrder.SWEEP) {
                return free.stream().mapToInt(Integer::intValue).toArray();
            }
            return java.util.stream.Stream.concat(holes.tailSet(cursor).stream(), holes.headSet(cursor).stream())
                    .mapToInt(Integer::intValue).toArray();
        }

        void addFree(int slot) {
            switch (cfg.order()) {
                case FIFO -> free.addLast(slot);
                case LIFO -> free.addFirst(slot);
                case SWEEP -> holes.add(slot);
            }
        }

        int takeSlot() {
            if (!holes.isEmpty()) {
                Integer next = holes.ceiling(cursor);
                int slot = next != null ? next : holes.first();
                holes.remove(slot);
                cursor = slot + 1;
                check(state[slot] == FREE, "model: slot " + slot + " in the free set is not free");
                return slot;
            }
            if (!free.isEmpty()) {
                int slot = free.pollFirst();
                check(state[slot] == FREE, "model: slot " + slot + " in the free list is not free");
                return slot;
            }
            int slot = limit == 0 ? 1 : limit;
            check(slot <= maxSlot, "model: no slot left");
            limit = slot + 1;
            cursor = limit;
            if (slot >= gen.length) {
                gen = Arrays.copyOf(gen, gen.length * 2);
                state = Arrays.copyOf(state, state.length * 2);
            }
            gen[slot] = 0;
            state[slot] = FREE;
            return slot;
        }

        /** Blocks the table holds: BulkTable, one per block of opened slots; PackedTable, enough for the most rows ever. */
        int expectedBlocks() {
            if (packed != null) {
                return (maxRowsEver + slotsPerBlock - 1) / slotsPerBlock;
            }
            return limit == 0 ? 0 : (limit - 1) / slotsPerBlock + 1;
        }

        /** Chunks an iteration visits: every block of a BulkTable; a PackedTable's blocks holding rows. */
        int expectedChunks() {
            return packed != null ? (live + slotsPerBlock - 1) / slotsPerBlock : expectedBlocks();
        }

        /**
         * Checks where iteration found a handle: a BulkTable's record sits at its slot; a
         * PackedTable's at its row, the model's position ({@code visitIndex}-th visited).
         */
        void checkPosition(long h, long global, int visitIndex) {
            if (packed != null) {
                check(global == visitIndex, "PackedTable rows are not contiguous: record " + visitIndex
                        + " visited at position " + global);
                check(visitIndex < live && liveH[visitIndex] == h, "row " + visitIndex + " holds " + table.format(h)
                        + ", the model's row order says " + (visitIndex < live ? table.format(liveH[visitIndex]) : "none"));
            } else {
                check(layout.slot(h) == global, "chunk.handle(slot) names another slot");
            }
        }

        int slotOf(long h) {
            return (int) layout.slot(h);
        }

        void put(long h, long[] values) {
            if (live == liveH.length) {
                liveH = Arrays.copyOf(liveH, live * 2);
                liveV = Arrays.copyOf(liveV, live * 2);
            }
            model.put(h, values);
            position.put(h, live);
            liveH[live] = h;
            liveV[live] = values;
            live++;
            maxRowsEver = Math.max(maxRowsEver, live);
            fragmented = true;
        }

        /** Takes a removed handle out of the model: its slot advances its generation and is freed or retired. */
        void forget(long h) {
            check(model.remove(h) != null, "model: removing a handle that is not live");
            int i = position.remove(h);
            live--;
            if (i != live) {
                liveH[i] = liveH[live];
                liveV[i] = liveV[live];
                position.put(liveH[i], i);
            }
            liveV[live] = null;
            fragmented = true;
            int slot = slotOf(h);
            check(state[slot] == LIVE, "model: slot of a live handle is not live");
            if (gen[slot] == maxGeneration) {
                state[slot] = RETIRED;
                retired++;
                top = maxGeneration;
            } else {
                gen[slot]++;
                top = Math.max(top, gen[slot]);
                state[slot] = FREE;
                addFree(slot);
            }
            pushRemoved(h);
        }

        void pushRemoved(long h) {
            removed[removedNext] = h;
            removedNext = (removedNext + 1) % REMOVED_WINDOW;
            removedCount = Math.min(removedCount + 1, REMOVED_WINDOW);
        }

        long[] pickDistinctLive(int k) {
            long[] picked = new long[k];
            HashSet<Long> taken = new HashSet<>();
            for (int n = 0; n < k; ) {
                long h = liveH[rng.nextInt(live)];
                if (taken.add(h)) {
                    picked[n++] = h;
                }
            }
            return picked;
        }

        long garbageNotLive() {
            long h;
            do {
                h = rng.nextBoolean() ? rng.nextLong() : mutate(live > 0 ? liveH[rng.nextInt(live)] : rng.nextLong());
            } while (h == Handles.NULL || model.containsKey(h));
            return h;
        }

        long randomBits() {
            return switch (rng.nextInt(10)) {
                case 0 -> 0L;
                case 1 -> -1L;
                case 2 -> rng.nextInt(256) - 128;
                case 3 -> rng.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                case 4 -> switch (rng.nextInt(5)) { // float specials
                    case 0 -> Float.floatToRawIntBits(-0f);
                    case 1 -> Float.floatToRawIntBits(Float.POSITIVE_INFINITY);
                    case 2 -> 0x7fc0_0000 | rng.nextInt(1 << 22); // quiet NaN with a payload
                    case 3 -> 0xffc0_0001;
                    default -> 1; // smallest subnormal
                };
                case 5 -> switch (rng.nextInt(4)) { // double specials
                    case 0 -> Double.doubleToRawLongBits(-0d);
                    case 1 -> Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY);
                    case 2 -> 0x7ff8_0000_0000_0000L | (rng.nextLong() & 0x0007_ffff_ffff_ffffL);
                    default -> 0xfff8_0000_dead_beefL;
                };
                case 6 -> rng.nextInt(1 << 16);
                default -> rng.nextLong();
            };
        }

        // ---------------------------------------------------------------------------------------
        // Tables

        void openTable() {
            table = cfg.newTable();
            impl = (AbstractTable) table;
            packed = table instanceof PackedTableImpl d ? d : null;
            schema = table.schema();
            fields = schema.fields().toArray(new Field[0]);
            types = new FieldType[fields.length];
            List<Integer> hotList = new ArrayList<>();
            List<Integer> coldList = new ArrayList<>();
            for (int f = 0; f < fields.length; f++) {
                types[f] = fields[f].type();
                (fields[f].name().startsWith("pad") && fields.length > 32 ? coldList : hotList).add(f);
            }
            hot = hotList.stream().mapToInt(Integer::intValue).toArray();
            cold = coldList.stream().mapToInt(Integer::intValue).toArray();
            layout = table.handleLayout();
            assertEquals(cfg.handles(), layout, "handle layout");
            if (table instanceof BulkTable bulk) {
                assertEquals(cfg.order(), bulk.reuseOrder(), "reuse order");
            }
            maxSlot = Math.min(layout.maxSlot(), cfg.maxCapacity());
            maxGeneration = layout.maxGeneration();
            slotsPerBlock = schema.slotsPerBlock();
            foreignField = cfg.schema().apply(cfg.layout()).fields().get(0);
            check(table.isEmpty() && table.capacity() == 0, "a new table is not empty");
            if (packed != null) {
                makeOrders();
            }
        }

        /**
         * Saves the table (to a channel, or every other time to a file), closes it and carries on
         * with the table loaded from the snapshot: everything observable must be the same, and
         * the model goes on predicting every handle. A loaded PackedTable is fragmented.
         */
        void opReload() {
            trace(Op.RELOAD, live);
            reloads++;
            TableSnapshot before = TableSnapshot.of(table);
            Table loaded;
            try {
                if (reloads % 2 == 0) {
                    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                    Snapshots.save(table, java.nio.channels.Channels.newChannel(bytes));
                    table.close();
                    loaded = Snapshots.load(java.nio.channels.Channels.newChannel(
                            new java.io.ByteArrayInputStream(bytes.toByteArray())), cfg.name(), Table.class, schema);
                } else {
                    java.nio.file.Path file = java.nio.file.Files.createTempFile("model-", ".bulk");
                    try {
                        Snapshots.save(table, file);
                        table.close();
                        loaded = Snapshots.load(file, schema);
                    } finally {
                        java.nio.file.Files.deleteIfExists(file);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            table = loaded;
            impl = (AbstractTable) loaded;
            // a restored table finds the highest generation of its slots again
            top = impl.slots.floor;
            for (int slot = 1; slot <= limit && slot < gen.length; slot++) {
                top = Math.max(top, gen[slot]);
            }
            packed = loaded instanceof PackedTableImpl d ? d : null;
            if (packed != null) {
                fragmented = true;
            }
            check(loaded.schema() == schema, "the loaded table does not use the expected schema");
            TableSnapshot after = TableSnapshot.of(loaded);
            check(after.equals(before), "the loaded table differs from the saved one:\n saved  " + before
                    + "\n loaded " + after);
        }

        /** Closes a table whose index space is used up and starts afresh with a new one. */
        void renew() {
            trace(Op.RENEW, retired);
            renewals++;
            audit();
            if (fuzzing) {
                checkIssued(Integer.MAX_VALUE);
            }
            long[] stillLive = Arrays.copyOf(liveH, live);
            table.close();
            check(table.isClosed(), "close() did not close");
            for (long h : stillLive) {
                check(!table.contains(h), "a closed table contains a handle");
            }
            assertThrows(IllegalStateException.class, () -> table.size(), "size() after close");
            assertThrows(IllegalStateException.class, () -> table.add(), "add() after close");
            table.close(); // idempotent
            model.clear();
            position.clear();
            Arrays.fill(liveV, null);
            live = 0;
            tag = -1;
            epoch = 0;
            top = 0;
            limit = 0;
            Arrays.fill(gen, 0);
            Arrays.fill(state, NEVER);
            free.clear();
            holes.clear();
            cursor = 1;
            retired = 0;
            issued.clear(); // a new table may get the old tag: old handles may name its records
            removedCount = 0;
            removedNext = 0;
            maxRowsEver = 0;
            fragmented = false;
            sortedBy = -1;
            growing = true;
            high = cfg.maxLive() / 2 + rng.nextInt(cfg.maxLive() / 2 + 1);
            openTable();
        }

        @Override
        public void close() {
            if (table != null) {
                table.close();
            }
        }

        // ---------------------------------------------------------------------------------------
        // Failures

        AssertionError mismatch(long h, int f, long expected) {
            long actual;
            try {
                actual = Values.get(table, h, fields[f]);
            } catch (RuntimeException e) {
                return failure("reading " + table.format(h) + " " + fields[f] + " threw " + e);
            }
            return failure(table.format(h) + " " + fields[f] + " reads 0x" + Long.toHexString(actual)
                    + ", the model says 0x" + Long.toHexString(expected));
        }

        AssertionError failure(String message) {
            return new AssertionError(message);
        }

        void check(boolean condition, String message) {
            if (!condition) {
                throw failure(message);
            }
        }

        static void assertArrayEquals(int[] expected, int[] actual, String what) {
            if (!Arrays.equals(expected, actual)) {
                throw new AssertionError(what + ": expected " + Arrays.toString(expected) + " but was "
                        + Arrays.toString(actual));
            }
        }

        String describeFailure(Throwable cause) {
            StringBuilder sb = new StringBuilder();
            sb.append(cfg.kind()).append(fuzzing ? " fuzzed model run" : " model test").append(" failed: config=")
                    .append(cfg.name());
            if (!fuzzing) {
                sb.append(", seed=").append(baseSeed).append(" (config stream seed ").append(cfg.seed(baseSeed))
                        .append(')');
            }
            sb.append(", step=").append(step).append(" of ").append(fuzzing ? "the input" : cfg.ops())
                    .append(", live=").append(live)
                    .append(", tables replaced=").append(renewals)
                    .append("\n  cause: ").append(cause);
            if (fuzzing) {
                sb.append("\n  replay: the input file in regression mode (see StorageFuzzTest)")
                        .append("\n  operations (oldest first; a step's checks are not listed):");
            } else {
                sb.append("\n  replay: mvn -pl storage-java test -Dtest=BulkTableModelTest -D")
                        .append(SEED_PROPERTY).append('=').append(baseSeed)
                        .append("\n  last operations (oldest first):");
            }
            int n = Math.min(traceNext, traceSize);
            for (int k = traceNext - n; k < traceNext; k++) {
                int i = k % traceSize;
                sb.append("\n    step ").append(traceStep[i]).append(' ').append(traceOp[i]).append(' ');
                long arg = traceArg[i];
                boolean handleArg = switch (traceOp[i]) {
                    case REMOVE, GET, SET, CONTAINS, INVALID_HANDLE, FOREIGN_FIELD, BAD_REMOVE_ALL -> true;
                    default -> false;
                };
                sb.append(handleArg && table != null ? table.format(arg) + " (0x" + Long.toHexString(arg) + ")"
                        : String.valueOf(arg));
            }
            return sb.toString();
        }
    }
}
