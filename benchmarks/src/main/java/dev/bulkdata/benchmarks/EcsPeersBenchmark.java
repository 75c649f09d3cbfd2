package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * bulkdata against the JVM entity-component libraries a Java or Kotlin game programmer would
 * pick instead: artemis-odb 2.3.0 ({@link ArtemisEcs}), Dominion 0.9.0 ({@link DominionEcs}),
 * Fleks 2.12 ({@link FleksEcs}, Kotlin) and Ashley 1.7.4 ({@link AshleyEcs}), each used as its
 * own documentation recommends for speed, beside bulkdata used as its guides show
 * ({@link BulkdataEcs}: every bulkdata API path of this class is there).
 *
 * <p>{@code n} entities (1,000,000) with a Position and a Velocity (six floats; the values of
 * {@link EcsSpec}). Workloads: create {@code n} one by one and in a batch (where the library has
 * a batch path), into a new world and into a cleared one (the clear included); the update
 * {@code p += v * dt} over all; {@code n} reads of {@code x} by id, the ids taken from the id
 * array at random positions and pre-shuffled; churn (remove a random half by id, create as many)
 * at n and n/10; the update of a sparse world where every entity has a Position and 10 % a
 * Velocity. Memory per entity is {@code MemoryFootprint}'s. Every library computes the same
 * results ({@code EcsPeersTest}); the report's section "Against the JVM entity libraries" puts
 * each peer's time over bulkdata's. The method names start with the library's name, which the
 * report reads.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class EcsPeersBenchmark {

    /** The positions (in the id array) of the churn's random half of {@code count} entities. */
    static int[] half(int count) {
        return Arrays.copyOf(Subjects.shuffled(count, Subjects.SEED), count / 2);
    }

    /** The churn's share of n: 1 (n entities) or 10 (n/10). */
    @State(Scope.Benchmark)
    public static class Churn {
        @Param({"1", "10"})
        public int fraction;
    }

    // ---------------------------------------------------------------- bulkdata

    /** A dense bulkdata world of n entities, its ids also shuffled. */
    @State(Scope.Benchmark)
    public static class Bulk {
        BulkdataEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new BulkdataEcs(size.n).fill();
            world.shuffle(Subjects.shuffled(size.n, Subjects.SEED));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A handle array of n for the batch create into a new table. */
    @State(Scope.Benchmark)
    public static class BulkHandles {
        long[] ids;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            ids = new long[size.n];
        }
    }

    /** A dense bulkdata world of n/fraction entities and the churn's half. */
    @State(Scope.Benchmark)
    public static class BulkChurn {
        BulkdataEcs world;
        int[] half;
        long[] batch;

        @Setup(Level.Trial)
        public void setUp(Size size, Churn churn) {
            world = new BulkdataEcs(size.n / churn.fraction).fill();
            half = half(size.n / churn.fraction);
            batch = new long[half.length];
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse bulkdata world. */
    @State(Scope.Benchmark)
    public static class BulkSparse {
        BulkdataEcs.Sparse world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new BulkdataEcs.Sparse(size.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse bulkdata world, its two component tables in a {@code Group}. */
    @State(Scope.Benchmark)
    public static class BulkSparseGroup {
        BulkdataEcs.Sparse world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new BulkdataEcs.Sparse(size.n, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse update's floors: the component tables' layout, no library; positions in entity order. */
    @State(Scope.Benchmark)
    public static class SparseFloorJoin {
        BulkdataEcs.SparseFloor floor;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            floor = new BulkdataEcs.SparseFloor(size.n, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            floor.close();
        }
    }

    /** The same, the moving entities' positions first (the group's order). */
    @State(Scope.Benchmark)
    public static class SparseFloorGroup {
        BulkdataEcs.SparseFloor floor;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            floor = new BulkdataEcs.SparseFloor(size.n, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            floor.close();
        }
    }

    /** The update's floor: the same records in native blocks, no library. */
    @State(Scope.Benchmark)
    public static class Floor {
        BulkdataEcs.Floor blocks;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            blocks = new BulkdataEcs.Floor(size.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            blocks.close();
        }
    }

    /** Create n entities into a new {@code BulkTable}, each by {@code add()} and six {@code set(h, field, v)}. */
    @Benchmark
    @Fork(3)
    public long bulkdataCreateAdd(BulkHandles s) {
        try (BulkTable table = BulkTable.of(BulkdataEcs.SCHEMA)) {
            return BulkdataEcs.addAndSet(table, s.ids, s.ids.length);
        }
    }

    /** Create n entities into a new {@code BulkTable} by one {@code addAll(ids)}, then six {@code set(h, field, v)} each. */
    @Benchmark
    @Fork(3)
    public long bulkdataCreateAddAll(BulkHandles s) {
        try (BulkTable table = BulkTable.of(BulkdataEcs.SCHEMA)) {
            return BulkdataEcs.addAllAndSet(table, s.ids, s.ids.length);
        }
    }

    /** {@code clear()}, then create n by {@code add()} and six {@code set}s, into the table that keeps its blocks. */
    @Benchmark
    @Fork(3)
    public long bulkdataCreateAddCleared(Bulk s) {
        s.world.table.clear();
        return BulkdataEcs.addAndSet(s.world.table, s.world.ids, s.world.n);
    }

    /** {@code clear()}, then {@code addAll(ids)} and six {@code set}s each. */
    @Benchmark
    @Fork(3)
    public long bulkdataCreateAddAllCleared(Bulk s) {
        s.world.table.clear();
        return BulkdataEcs.addAllAndSet(s.world.table, s.world.ids, s.world.n);
    }

    /** The update through the chunk loop: {@code writableColumn}/{@code column} and {@code liveBits}. */
    @Benchmark
    @Fork(3)
    public void bulkdataUpdateColumns(Bulk s) {
        s.world.updateColumns();
    }

    /** The update through {@code table.forEach((chunk, slot) -> chunk.set(slot, f, ...))}. */
    @Benchmark
    @Fork(3)
    public void bulkdataUpdateForEach(Bulk s) {
        s.world.updateForEach();
    }

    /** n reads {@code get(h, px)}, h from the id array at random positions. */
    @Benchmark
    @Fork(3)
    public float bulkdataReadRandom(Bulk s) {
        return s.world.readRandom();
    }

    /** n reads {@code get(h, px)}, the handles pre-shuffled. */
    @Benchmark
    @Fork(3)
    public float bulkdataReadShuffled(Bulk s) {
        return s.world.readShuffled();
    }

    /** Churn: {@code remove(h)} of a random half, then {@code add()} and six {@code set}s as many times. */
    @Benchmark
    @Fork(3)
    public int bulkdataChurn(BulkChurn s) {
        return s.world.churn(s.half);
    }

    /** Churn in batches: one {@code removeAll} of a random half, one {@code addAll} whose initializer writes the six fields. */
    @Benchmark
    @Fork(3)
    public int bulkdataChurnBatch(BulkChurn s) {
        return s.world.churnBatch(s.half, s.batch);
    }

    /** The churn's floor: a world of n/fraction entities in {@link BulkdataEcs.ChurnFloor}, and the churn's half. */
    @State(Scope.Benchmark)
    public static class ChurnFloor {
        BulkdataEcs.ChurnFloor floor;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size, Churn churn) {
            floor = new BulkdataEcs.ChurnFloor(size.n / churn.fraction);
            half = half(size.n / churn.fraction);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            floor.close();
        }
    }

    /** {@link #bulkdataChurn}'s work with no library: a slot map of the table's layout ({@link BulkdataEcs.ChurnFloor}). */
    @Benchmark
    public int floorChurn(ChurnFloor s) {
        return s.floor.churn(s.half);
    }

    /**
     * The sparse update through a join, the path its docs recommend for speed:
     * {@code Join.of(positions, velocities).forEachRun} with chunk columns and a loop over each run's slots.
     */
    @Benchmark
    @Fork(3)
    public int bulkdataSparseJoin(BulkSparse s) {
        return s.world.updateJoinRuns();
    }

    /** The sparse update: {@code Join.of(positions, velocities).forEach} with {@code getAt}/{@code setAt}. */
    @Benchmark
    public int bulkdataSparseJoinForEach(BulkSparse s) {
        return s.world.updateJoin();
    }

    /**
     * The sparse update, recommended path: a {@code Group} of the two component tables,
     * {@code forEachRun} with chunk columns and a counted loop per run.
     */
    @Benchmark
    @Fork(3)
    public int bulkdataSparseGroup(BulkSparseGroup s) {
        return s.world.updateGroup();
    }

    /** The sparse update with no library over the join's layout: a sparse {@code int[]} lookup per match, no checks. */
    @Benchmark
    public int floorSparseJoin(SparseFloorJoin s) {
        return s.floor.updateJoin();
    }

    /** The sparse update with no library over the group's layout: rows 0..k of both in lockstep, no checks. */
    @Benchmark
    public int floorSparseGroup(SparseFloorGroup s) {
        return s.floor.updateGroup();
    }

    /** The update through storage-vector's whole-table kernels: {@code Kernels.axpy} per axis. */
    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xmx8g", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
    public void bulkdataUpdateKernels(Bulk s) {
        s.world.updateKernels();
    }

    /** The update with no library over the same 12 KiB blocks of 512 records (no live bits, no checks). */
    @Benchmark
    public void floorUpdate(Floor s) {
        s.blocks.update();
    }

    /** The random read's floor: the table's lookup layout, the handle's checks, no library. */
    @State(Scope.Benchmark)
    public static class ReadFloor {
        BulkdataEcs.ReadFloor floor;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            floor = new BulkdataEcs.ReadFloor(size.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            floor.close();
        }
    }

    /** {@code x} of n entities at random positions of an array of handles, no library (see {@link BulkdataEcs.ReadFloor}). */
    @Benchmark
    public float floorReadRandom(ReadFloor s) {
        return s.floor.readRandom();
    }

    // ---------------------------------------------------------------- bulkdata from Kotlin

    /** A dense world of n entities declared with the Kotlin DSL ({@link KotlinEcs}). */
    @State(Scope.Benchmark)
    public static class Kotlin {
        KotlinEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new KotlinEcs(size.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The update through {@code table.forEach { it[PX] += it[VX] * DT ... }}. */
    @Benchmark
    @Fork(3)
    public void kotlinUpdateForEach(Kotlin s) {
        s.world.updateForEach();
    }

    /** The update through docs/kotlin.md's typed chunk body in {@code forEachChunk}, no coroutines. */
    @Benchmark
    @Fork(3)
    public void kotlinUpdateChunks(Kotlin s) {
        s.world.updateChunks();
    }

    /** The same body written inline in the {@code forEachChunk} lambda. */
    @Benchmark
    public void kotlinUpdateChunksInline(Kotlin s) {
        s.world.updateChunksInline();
    }

    /** The slot accessors {@code chunk[s, PX]} over the live runs ({@code nextLive}/{@code nextHole}) in {@code forEachChunk}. */
    @Benchmark
    public void kotlinUpdateChunkSlots(Kotlin s) {
        s.world.updateChunkSlots();
    }

    /** The same body in {@code processChunks} on one thread: one worker on {@code runBlocking}'s event loop, the caller's thread. */
    @Benchmark
    @Fork(3)
    public int kotlinUpdateCoroutines(Kotlin s) {
        return s.world.updateCoroutinesOneThread();
    }

    /** The same body in {@code processChunks} on two workers of {@code Dispatchers.Default}. */
    @Benchmark
    public int kotlinUpdateCoroutines2(Kotlin s) {
        return s.world.updateCoroutines(kotlinx.coroutines.Dispatchers.getDefault(), 2);
    }

    // ---------------------------------------------------------------- artemis-odb

    /** A dense artemis world of n entities. */
    @State(Scope.Benchmark)
    public static class Artemis {
        ArtemisEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new ArtemisEcs(size.n);
            world.createArchetype(size.n);
            world.shuffle(Subjects.shuffled(size.n, Subjects.SEED));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** An artemis world of n/fraction entities and the churn's half. */
    @State(Scope.Benchmark)
    public static class ArtemisChurn {
        ArtemisEcs world;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size, Churn churn) {
            world = new ArtemisEcs(size.n / churn.fraction);
            world.createArchetype(world.n);
            half = half(world.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse artemis world. */
    @State(Scope.Benchmark)
    public static class ArtemisSparse {
        ArtemisEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new ArtemisEcs(size.n);
            world.create(size.n, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A new world, n entities by {@code create()} and {@code mapper.create(e)}, committed. */
    @Benchmark
    @Fork(3)
    public int artemisCreate(Size size) {
        ArtemisEcs world = new ArtemisEcs(size.n);
        int last = world.create(size.n, false);
        world.close();
        return last;
    }

    /** A new world, n entities by {@code create(archetype)}, committed. */
    @Benchmark
    @Fork(3)
    public int artemisCreateArchetype(Size size) {
        ArtemisEcs world = new ArtemisEcs(size.n);
        int last = world.createArchetype(size.n);
        world.close();
        return last;
    }

    /** Every entity deleted and committed, then n created one by one. */
    @Benchmark
    @Fork(3)
    public int artemisCreateCleared(Artemis s) {
        s.world.clear(s.world.n);
        return s.world.create(s.world.n, false);
    }

    /** Every entity deleted and committed, then n created by archetype. */
    @Benchmark
    @Fork(3)
    public int artemisCreateArchetypeCleared(Artemis s) {
        s.world.clear(s.world.n);
        return s.world.createArchetype(s.world.n);
    }

    /** {@code world.process()}: the {@code IteratingSystem} over {@code @All(Position, Velocity)}. */
    @Benchmark
    @Fork(3)
    public void artemisUpdate(Artemis s) {
        s.world.update();
    }

    @Benchmark
    @Fork(3)
    public float artemisReadRandom(Artemis s) {
        return s.world.readRandom();
    }

    @Benchmark
    @Fork(3)
    public float artemisReadShuffled(Artemis s) {
        return s.world.readShuffled();
    }

    @Benchmark
    @Fork(3)
    public int artemisChurn(ArtemisChurn s) {
        return s.world.churn(s.half);
    }

    @Benchmark
    @Fork(3)
    public void artemisSparse(ArtemisSparse s) {
        s.world.update();
    }

    // ---------------------------------------------------------------- Dominion

    /** A dense Dominion world of n entities. */
    @State(Scope.Benchmark)
    public static class Dominion {
        DominionEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new DominionEcs(size.n);
            world.createPrepared(size.n);
            world.shuffle(Subjects.shuffled(size.n, Subjects.SEED));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A Dominion world of n/fraction entities and the churn's half. */
    @State(Scope.Benchmark)
    public static class DominionChurn {
        DominionEcs world;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size, Churn churn) {
            world = new DominionEcs(size.n / churn.fraction);
            world.createPrepared(world.n);
            half = half(world.n);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse Dominion world. */
    @State(Scope.Benchmark)
    public static class DominionSparse {
        DominionEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new DominionEcs(size.n);
            world.create(size.n, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A new world, n entities by {@code createEntity(position, velocity)}. */
    @Benchmark
    @Fork(3)
    public Object dominionCreate(Size size) {
        DominionEcs world = new DominionEcs(size.n);
        Object last = world.create(size.n, false);
        world.close();
        return last;
    }

    /** A new world, n entities by {@code createPreparedEntity(composition.withValue(...))}. */
    @Benchmark
    @Fork(3)
    public Object dominionCreatePrepared(Size size) {
        DominionEcs world = new DominionEcs(size.n);
        Object last = world.createPrepared(size.n);
        world.close();
        return last;
    }

    /** Every entity deleted, then n created one by one. */
    @Benchmark
    @Fork(3)
    public Object dominionCreateCleared(Dominion s) {
        s.world.clear(s.world.n);
        return s.world.create(s.world.n, false);
    }

    /** Every entity deleted, then n created prepared. */
    @Benchmark
    @Fork(3)
    public Object dominionCreatePreparedCleared(Dominion s) {
        s.world.clear(s.world.n);
        return s.world.createPrepared(s.world.n);
    }

    /** The iteration of {@code findEntitiesWith(Position.class, Velocity.class)}. */
    @Benchmark
    @Fork(3)
    public int dominionUpdate(Dominion s) {
        return s.world.update();
    }

    @Benchmark
    @Fork(3)
    public float dominionReadRandom(Dominion s) {
        return s.world.readRandom();
    }

    @Benchmark
    @Fork(3)
    public float dominionReadShuffled(Dominion s) {
        return s.world.readShuffled();
    }

    @Benchmark
    @Fork(3)
    public Object dominionChurn(DominionChurn s) {
        return s.world.churn(s.half);
    }

    @Benchmark
    @Fork(3)
    public int dominionSparse(DominionSparse s) {
        return s.world.update();
    }

    // ---------------------------------------------------------------- Fleks

    /** A dense Fleks world of n entities. */
    @State(Scope.Benchmark)
    public static class Fleks {
        FleksEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new FleksEcs(size.n);
            world.create(size.n, false);
            world.shuffle(Subjects.shuffled(size.n, Subjects.SEED));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A Fleks world of n/fraction entities and the churn's half. */
    @State(Scope.Benchmark)
    public static class FleksChurn {
        FleksEcs world;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size, Churn churn) {
            world = new FleksEcs(size.n / churn.fraction);
            world.create(world.getN(), false);
            half = half(world.getN());
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** The sparse Fleks world. */
    @State(Scope.Benchmark)
    public static class FleksSparse {
        FleksEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new FleksEcs(size.n);
            world.create(size.n, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }
    }

    /** A new world, n entities by {@code world.entity { it += Position(...); it += Velocity(...) }}. */
    @Benchmark
    @Fork(3)
    public int fleksCreate(Size size) {
        FleksEcs world = new FleksEcs(size.n);
        world.create(size.n, false);
        int count = world.size();
        world.close();
        return count;
    }

    /** {@code world.removeAll()}, then n created. */
    @Benchmark
    @Fork(3)
    public int fleksCreateCleared(Fleks s) {
        s.world.clear();
        s.world.create(s.world.getN(), false);
        return s.world.size();
    }

    /** {@code world.update(dt)}: the {@code IteratingSystem} over {@code family { all(Position, Velocity) }}. */
    @Benchmark
    @Fork(3)
    public void fleksUpdate(Fleks s) {
        s.world.update();
    }

    @Benchmark
    @Fork(3)
    public float fleksReadRandom(Fleks s) {
        return s.world.readRandom();
    }

    @Benchmark
    @Fork(3)
    public float fleksReadShuffled(Fleks s) {
        return s.world.readShuffled();
    }

    @Benchmark
    @Fork(3)
    public int fleksChurn(FleksChurn s) {
        return s.world.churn(s.half);
    }

    @Benchmark
    @Fork(3)
    public void fleksSparse(FleksSparse s) {
        s.world.update();
    }

    // ---------------------------------------------------------------- Ashley

    /** A dense Ashley engine of n entities. */
    @State(Scope.Benchmark)
    public static class Ashley {
        AshleyEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new AshleyEcs(size.n);
            world.create(size.n, false);
            world.shuffle(Subjects.shuffled(size.n, Subjects.SEED));
        }
    }

    /** An Ashley engine of n/10 entities and the churn's half: its removal is O(n), so no churn at n. */
    @State(Scope.Benchmark)
    public static class AshleyChurn {
        AshleyEcs world;
        int[] half;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new AshleyEcs(size.n / 10);
            world.create(world.n, false);
            half = half(world.n);
        }
    }

    /** The sparse Ashley engine. */
    @State(Scope.Benchmark)
    public static class AshleySparse {
        AshleyEcs world;

        @Setup(Level.Trial)
        public void setUp(Size size) {
            world = new AshleyEcs(size.n);
            world.create(size.n, true);
        }
    }

    /** A new {@code PooledEngine}, n entities by {@code createEntity}, {@code createComponent}, {@code addEntity}. */
    @Benchmark
    @Fork(3)
    public Object ashleyCreate(Size size) {
        return new AshleyEcs(size.n).create(size.n, false);
    }

    /** {@code removeAllEntities()}, then n created. */
    @Benchmark
    @Fork(3)
    public Object ashleyCreateCleared(Ashley s) {
        s.world.clear();
        return s.world.create(s.world.n, false);
    }

    /** {@code engine.update(dt)}: the {@code IteratingSystem} over {@code Family.all(Position, Velocity)}. */
    @Benchmark
    @Fork(3)
    public void ashleyUpdate(Ashley s) {
        s.world.update();
    }

    @Benchmark
    @Fork(3)
    public float ashleyReadRandom(Ashley s) {
        return s.world.readRandom();
    }

    @Benchmark
    @Fork(3)
    public float ashleyReadShuffled(Ashley s) {
        return s.world.readShuffled();
    }

    /** The churn at n/10 ({@link AshleyChurn}). */
    @Benchmark
    @Fork(3)
    public Object ashleyChurn(AshleyChurn s) {
        return s.world.churn(s.half);
    }

    @Benchmark
    @Fork(3)
    public void ashleySparse(AshleySparse s) {
        s.world.update();
    }
}
