package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.kotlin.TypedTable;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

/**
 * Workloads 1, 5 and 10: create {@code n} records (setting {@code t}) into an empty
 * container (and into a cleared table that keeps its blocks); churn (remove a random half, add
 * {@code n/2}); clear {@code n} records.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class ChangeBenchmark {

    /** A filled SOA table and the positions (in its handle array) of a random half. */
    @State(Scope.Benchmark)
    public static class Bulk {
        Table table;
        FloatField t;
        long[] handles;
        int[] half;
        int n;

        Schema schema() {
            return Subjects.SOA;
        }

        Table make(Schema schema, int n, long[] handles) {
            return Subjects.table(schema, n, handles);
        }

        @Setup(Level.Trial)
        public void setUp(Size size) {
            n = size.n;
            handles = new long[n];
            table = make(schema(), n, handles);
            t = schema().floatField("t");
            half = java.util.Arrays.copyOf(Subjects.shuffled(n, Subjects.SEED), n / 2);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** The same in AOS: a removal wipes one cache line instead of one per column. */
    @State(Scope.Benchmark)
    public static class BulkAos extends Bulk {
        @Override
        Schema schema() {
            return Subjects.AOS;
        }
    }

    /**
     * The same with FIFO reuse: adds take the holes in the order the removals made them (a
     * random order here), where the default, SWEEP, takes them in slot order.
     */
    @State(Scope.Benchmark)
    public static class BulkFifo extends Bulk {
        @Override
        Table make(Schema schema, int n, long[] handles) {
            return Subjects.fill(BulkTable.builder(schema).reuseOrder(ReuseOrder.FIFO).build(), n, handles);
        }
    }

    /** The same with a packed table. */
    @State(Scope.Benchmark)
    public static class Packed extends Bulk {
        @Override
        Table make(Schema schema, int n, long[] handles) {
            return Subjects.packed(schema, n, handles);
        }
    }

    /** A Kotlin-declared table and the positions of a random half. */
    @State(Scope.Benchmark)
    public static class Kotlin {
        TypedTable<KParticles> table;
        long[] handles;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            handles = new long[size.n];
            table = KotlinWorkloads.open(size.n, handles);
            half = java.util.Arrays.copyOf(Subjects.shuffled(size.n, Subjects.SEED), size.n / 2);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** Filled maps keyed by ids, the same random half of positions, and the next free id. */
    @State(Scope.Benchmark)
    public static class Maps {
        HashMap<Long, Particle> map;
        Long2ObjectOpenHashMap<Particle> fastutil;
        long[] ids;
        int[] half;
        long nextId;
        int n;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            n = size.n;
            map = Subjects.hashMap(n);
            fastutil = Subjects.fastutil(n);
            ids = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = i + 1L;
            }
            nextId = n + 1L;
            half = java.util.Arrays.copyOf(Subjects.shuffled(n, Subjects.SEED), n / 2);
        }
    }

    /**
     * Batch create: a handle array of {@code n}, a table kept for the whole trial (cleared and
     * refilled by every call), and the no-library floor's memory: {@code n} meta words in
     * native memory, live bits, and blocks of 512 32-byte SOA records.
     */
    @State(Scope.Benchmark)
    public static class Batch {
        BulkTable cleared;
        long[] handles;
        java.lang.foreign.Arena arena;
        java.lang.foreign.MemorySegment meta;
        java.lang.foreign.MemorySegment records;
        long[] live;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            handles = new long[size.n];
            cleared = BulkTable.of(Subjects.SOA);
            cleared.addAll(handles);
            arena = java.lang.foreign.Arena.ofShared();
            meta = arena.allocate((size.n + 1L) * 4, 64);
            int blocks = (size.n >>> 9) + 1;
            records = arena.allocate((long) blocks << 14, 64);
            live = new long[blocks * 8];
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            cleared.close();
            arena.close();
        }
    }

    /** {@code addAll} of {@code n} records into a new, empty table (its memory first touched here). */
    @Benchmark
    @Fork(3)
    public long addAllFresh(Batch s) {
        try (BulkTable table = BulkTable.of(Subjects.SOA)) {
            table.addAll(s.handles);
            return s.handles[s.handles.length - 1];
        }
    }

    /** {@code addAll} of {@code n} records into a table just cleared: every record zeroed again. */
    @Benchmark
    @Fork(3)
    public long addAllCleared(Batch s) {
        s.cleared.clear();
        s.cleared.addAll(s.handles);
        return s.handles[s.handles.length - 1];
    }

    /**
     * The floor of a batch add, no library: what {@link #addAllCleared} writes for {@code n}
     * records of the same layout (a meta word made live, the live bits a word at a time, the
     * 32-byte records zeroed, a handle from slot and generation), into memory already touched.
     */
    @Benchmark
    @Fork(3)
    public long floorAddAll(Batch s) {
        int n = s.handles.length;
        java.lang.foreign.MemorySegment meta = s.meta;
        for (int slot = 1; slot <= n; slot++) {
            int m = meta.get(java.lang.foreign.ValueLayout.JAVA_INT, slot * 4L) | 1;
            meta.set(java.lang.foreign.ValueLayout.JAVA_INT, slot * 4L, m);
            s.handles[slot - 1] = (7L << 56) | ((long) (m >>> 1) << 32) | slot;
        }
        java.util.Arrays.fill(s.live, -1L);
        s.records.asSlice(0, (long) ((n >>> 9) + 1) << 14).fill((byte) 0);
        return s.handles[n - 1];
    }

    /** A filled SOA table kept for the whole trial, cleared and refilled by every call. */
    @State(Scope.Benchmark)
    public static class Refill {
        BulkTable table;
        int n;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            n = size.n;
            table = Subjects.table(Subjects.SOA, n, new long[n]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
        }
    }

    /** Tables to clear: refilled before every invocation. */
    @State(Scope.Benchmark)
    public static class ToClear {
        BulkTable table;
        BulkTable aos;
        TypedTable<KParticles> kotlin;
        PackedTable packed;
        HashMap<Long, Particle> map;
        ArrayList<Particle> list;
        long[] handles;
        int n;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            n = size.n;
            handles = new long[n];
            table = BulkTable.of(Subjects.SOA);
            aos = BulkTable.of(Subjects.AOS);
            kotlin = KotlinWorkloads.open(0, handles);
            packed = PackedTable.of(Subjects.SOA);
            map = new HashMap<>();
            list = new ArrayList<>();
        }

        @Setup(Level.Invocation)
        public void refill() {
            if (table.isEmpty()) {
                table.addAll(handles);
            }
            if (aos.isEmpty()) {
                aos.addAll(handles);
            }
            if (kotlin.isEmpty()) {
                kotlin.core().addAll(handles);
            }
            if (packed.isEmpty()) {
                packed.addAll(handles);
            }
            if (map.isEmpty()) {
                for (int i = 0; i < n; i++) {
                    map.put(i + 1L, Subjects.particle(i));
                }
            }
            if (list.isEmpty()) {
                for (int i = 0; i < n; i++) {
                    list.add(Subjects.particle(i));
                }
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
            aos.close();
            kotlin.close();
            packed.close();
        }
    }

    @Benchmark
    @Fork(3)
    public long createBulk(Size size) {
        try (BulkTable table = BulkTable.of(Subjects.SOA)) {
            return fill(table, size.n);
        }
    }

    @Benchmark
    @Fork(3)
    public long createBulkAos(Size size) {
        try (BulkTable table = BulkTable.of(Subjects.AOS)) {
            return fill(table, size.n);
        }
    }

    /** The create loop: {@code n} adds, each setting t; returns the last handle. */
    private static long fill(Table table, int n) {
        FloatField t = table.schema().floatField("t");
        long last = 0;
        for (int i = 0; i < n; i++) {
            last = table.add();
            table.set(last, t, Subjects.t(i));
        }
        return last;
    }

    /**
     * Create into a table that already has its blocks: clear it (every old handle goes stale),
     * then add and set {@code n} records again. Beside {@link #createBulk}, which allocates and
     * first-touches a new table's memory, this shows that memory's cost apart.
     */
    @Benchmark
    @Fork(3)
    public long createBulkRefill(Refill s) {
        s.table.clear();
        return fill(s.table, s.n);
    }

    @Benchmark
    @Fork(3)
    public long createPacked(Size size) {
        try (PackedTable table = PackedTable.of(Subjects.SOA)) {
            return fill(table, size.n);
        }
    }

    @Benchmark
    @Fork(3)
    public long createKotlin(Size size) {
        return KotlinWorkloads.create(size.n);
    }

    @Benchmark
    public Object createArrayList(Size size) {
        ArrayList<Particle> list = new ArrayList<>();
        for (int i = 0; i < size.n; i++) {
            list.add(new Particle(Subjects.t(i)));
        }
        return list;
    }

    @Benchmark
    @Fork(3)
    public Object createHashMap(Size size) {
        HashMap<Long, Particle> map = new HashMap<>();
        for (int i = 0; i < size.n; i++) {
            map.put(i + 1L, new Particle(Subjects.t(i)));
        }
        return map;
    }

    @Benchmark
    public Object createFastutil(Size size) {
        Long2ObjectOpenHashMap<Particle> map = new Long2ObjectOpenHashMap<>();
        for (int i = 0; i < size.n; i++) {
            map.put(i + 1L, new Particle(Subjects.t(i)));
        }
        return map;
    }

    @Benchmark
    @Fork(3)
    public int churnBulk(Bulk s) {
        return churn(s);
    }

    @Benchmark
    @Fork(3)
    public int churnBulkAos(BulkAos s) {
        return churn(s);
    }

    @Benchmark
    @Fork(3)
    public int churnBulkFifo(BulkFifo s) {
        return churn(s);
    }

    /** Scratch for {@link #churnBulkBySlot}: (slot << 32 | position) keys, sorted in place. */
    @State(Scope.Benchmark)
    public static class SlotOrder {
        long[] keys;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            keys = new long[size.n / 2];
        }
    }

    /**
     * The same churn, with the removals sorted by slot first (sort included in the time): the
     * removals then touch the table in address order too, as the adds (SWEEP reuse) do.
     */
    @Benchmark
    @Fork(3)
    public int churnBulkBySlot(Bulk s, SlotOrder o) {
        long[] keys = o.keys;
        for (int k = 0; k < s.half.length; k++) {
            int i = s.half[k];
            keys[k] = (s.handles[i] & 0xFFFF_FFFFL) << 32 | i;
        }
        java.util.Arrays.sort(keys);
        for (long key : keys) {
            s.table.remove(s.handles[(int) key]);
        }
        for (long key : keys) {
            int i = (int) key;
            long h = s.table.add();
            s.table.set(h, s.t, Subjects.t(i));
            s.handles[i] = h;
        }
        return s.table.size();
    }

    /** The same churn with the removals as one {@code removeAll} batch (the table sorts it by slot). */
    @Benchmark
    @Fork(3)
    public int churnBulkRemoveAll(Bulk s, SlotOrder o) {
        long[] batch = o.keys;
        for (int k = 0; k < s.half.length; k++) {
            batch[k] = s.handles[s.half[k]];
        }
        s.table.removeAll(batch, 0, s.half.length);
        for (int i : s.half) {
            long h = s.table.add();
            s.table.set(h, s.t, Subjects.t(i));
            s.handles[i] = h;
        }
        return s.table.size();
    }

    @Benchmark
    @Fork(3)
    public int churnPacked(Packed s) {
        return churn(s);
    }

    @Benchmark
    @Fork(3)
    public int churnKotlin(Kotlin s) {
        return KotlinWorkloads.churn(s.table, s.handles, s.half);
    }

    private static int churn(Bulk s) {
        for (int i : s.half) {
            s.table.remove(s.handles[i]);
        }
        for (int i : s.half) {
            long h = s.table.add();
            s.table.set(h, s.t, Subjects.t(i));
            s.handles[i] = h;
        }
        return s.table.size();
    }

    @Benchmark
    public int churnHashMap(Maps s) {
        for (int i : s.half) {
            s.map.remove(s.ids[i]);
        }
        for (int i : s.half) {
            long id = s.nextId++;
            s.map.put(id, new Particle(Subjects.t(i)));
            s.ids[i] = id;
        }
        return s.map.size();
    }

    @Benchmark
    @Fork(3)
    public int churnFastutil(Maps s) {
        for (int i : s.half) {
            s.fastutil.remove(s.ids[i]);
        }
        for (int i : s.half) {
            long id = s.nextId++;
            s.fastutil.put(id, new Particle(Subjects.t(i)));
            s.ids[i] = id;
        }
        return s.fastutil.size();
    }

    @Benchmark
    public int clearBulk(ToClear s) {
        s.table.clear();
        return s.table.size();
    }

    /**
     * {@code reset()} against {@link #clearBulk}: the same table of {@code n} records, refilled
     * before every invocation ({@link ToClear#refill}, {@code Level.Invocation}), emptied by the
     * purge (O(blocks): no slot's meta word written, a step per block) instead of the clear (a
     * pass over every slot's meta word). A call of a few microseconds is near what JMH can time
     * per invocation (its timestamps around each call): read the figure as an order of
     * magnitude, not to the nanosecond.
     */
    @Benchmark
    public int resetBulk(ToClear s) {
        s.table.reset();
        return s.table.size();
    }

    @Benchmark
    public int resetPacked(ToClear s) {
        s.packed.reset();
        return s.packed.size();
    }

    @Benchmark
    public int clearBulkAos(ToClear s) {
        s.aos.clear();
        return s.aos.size();
    }

    @Benchmark
    public int clearKotlin(ToClear s) {
        s.kotlin.clear();
        return s.kotlin.size();
    }

    @Benchmark
    public int clearPacked(ToClear s) {
        s.packed.clear();
        return s.packed.size();
    }

    @Benchmark
    public int clearHashMap(ToClear s) {
        s.map.clear();
        return s.map.size();
    }

    @Benchmark
    public int clearArrayList(ToClear s) {
        s.list.clear();
        return s.list.size();
    }
}
