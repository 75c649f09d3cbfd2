package dev.bulkdata.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every library of {@link EcsPeersBenchmark} computes the same results on every workload, at a
 * small n: the same entities after create (one by one, in a batch, into a cleared world), the
 * same positions after updates (dense, through every bulkdata path, and sparse), the same sums
 * of the random and shuffled reads, the same entities after churn. Sums of positions are
 * compared exactly: each entity's {@code p += v * dt} is the same float arithmetic whatever the
 * library, and the checksums add in entity order.
 */
class EcsPeersTest {
    static final int N = 3000;

    /** One library's dense world, as the test drives it. */
    interface World {
        void create(int count);

        void update();

        float readRandom();

        float readShuffled();

        void churn(int[] half);

        double checksum(int count);

        int size();
    }

    /** Every library's dense world, filled with {@code n} entities by the given create path. */
    static List<World> worlds(int n, boolean batch, boolean cleared) {
        List<World> worlds = new ArrayList<>();
        BulkdataEcs bulk = new BulkdataEcs(n);
        worlds.add(new World() {
            int updates;

            public void create(int count) {
                if (cleared) {
                    BulkdataEcs.addAllAndSet(bulk.table, bulk.ids, count);
                    bulk.table.clear();
                }
                if (batch) {
                    BulkdataEcs.addAllAndSet(bulk.table, bulk.ids, count);
                } else {
                    BulkdataEcs.addAndSet(bulk.table, bulk.ids, count);
                }
                bulk.shuffle(Subjects.shuffled(count, Subjects.SEED));
            }

            public void update() {
                // the three paths, in turn: they must agree with each other and the peers
                switch (updates++ % 3) {
                    case 0 -> bulk.updateColumns();
                    case 1 -> bulk.updateForEach();
                    default -> bulk.updateKernels();
                }
            }

            public float readRandom() {
                return bulk.readRandom();
            }

            public float readShuffled() {
                return bulk.readShuffled();
            }

            private boolean batchChurn;

            public void churn(int[] half) {
                // both paths, in turn: one by one, then in batches
                batchChurn = !batchChurn;
                if (batchChurn) {
                    bulk.churn(half);
                } else {
                    bulk.churnBatch(half, new long[half.length]);
                }
            }

            public double checksum(int count) {
                return bulk.checksum(count);
            }

            public int size() {
                return bulk.size();
            }

            @Override
            public String toString() {
                return "bulkdata";
            }
        });
        ArtemisEcs artemis = new ArtemisEcs(n);
        worlds.add(new World() {
            public void create(int count) {
                if (cleared) {
                    artemis.createArchetype(count);
                    artemis.clear(count);
                }
                if (batch) {
                    artemis.createArchetype(count);
                } else {
                    artemis.create(count, false);
                }
                artemis.shuffle(Subjects.shuffled(count, Subjects.SEED));
            }

            public void update() {
                artemis.update();
            }

            public float readRandom() {
                return artemis.readRandom();
            }

            public float readShuffled() {
                return artemis.readShuffled();
            }

            public void churn(int[] half) {
                artemis.churn(half);
            }

            public double checksum(int count) {
                return artemis.checksum(count);
            }

            public int size() {
                return artemis.size();
            }

            @Override
            public String toString() {
                return "artemis-odb";
            }
        });
        DominionEcs dominion = new DominionEcs(n);
        worlds.add(new World() {
            public void create(int count) {
                if (cleared) {
                    dominion.createPrepared(count);
                    dominion.clear(count);
                }
                if (batch) {
                    dominion.createPrepared(count);
                } else {
                    dominion.create(count, false);
                }
                dominion.shuffle(Subjects.shuffled(count, Subjects.SEED));
            }

            public void update() {
                assertEquals(dominion.size(), dominion.update());
            }

            public float readRandom() {
                return dominion.readRandom();
            }

            public float readShuffled() {
                return dominion.readShuffled();
            }

            public void churn(int[] half) {
                dominion.churn(half);
            }

            public double checksum(int count) {
                return dominion.checksum(count);
            }

            public int size() {
                return dominion.size();
            }

            @Override
            public String toString() {
                return "Dominion";
            }
        });
        FleksEcs fleks = new FleksEcs(n);
        worlds.add(new World() {
            public void create(int count) {
                if (cleared) {
                    fleks.create(count, false);
                    fleks.clear();
                }
                fleks.create(count, false);
                fleks.shuffle(Subjects.shuffled(count, Subjects.SEED));
            }

            public void update() {
                fleks.update();
            }

            public float readRandom() {
                return fleks.readRandom();
            }

            public float readShuffled() {
                return fleks.readShuffled();
            }

            public void churn(int[] half) {
                fleks.churn(half);
            }

            public double checksum(int count) {
                return fleks.checksum(count);
            }

            public int size() {
                return fleks.size();
            }

            @Override
            public String toString() {
                return "Fleks";
            }
        });
        AshleyEcs ashley = new AshleyEcs(n);
        worlds.add(new World() {
            public void create(int count) {
                if (cleared) {
                    ashley.create(count, false);
                    ashley.clear();
                }
                ashley.create(count, false);
                ashley.shuffle(Subjects.shuffled(count, Subjects.SEED));
            }

            public void update() {
                ashley.update();
            }

            public float readRandom() {
                return ashley.readRandom();
            }

            public float readShuffled() {
                return ashley.readShuffled();
            }

            public void churn(int[] half) {
                ashley.churn(half);
            }

            public double checksum(int count) {
                return ashley.checksum(count);
            }

            public int size() {
                return ashley.size();
            }

            @Override
            public String toString() {
                return "Ashley";
            }
        });
        return worlds;
    }

    /** The checksum of n fresh entities, computed from {@link EcsSpec} alone. */
    static double expectedChecksum(int n) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += (double) EcsSpec.px(i) + EcsSpec.py(i) + EcsSpec.pz(i);
        }
        return sum;
    }

    @Test
    void everyWorkloadGivesEveryLibraryTheSameResults() {
        for (boolean batch : new boolean[] {false, true}) {
            for (boolean cleared : new boolean[] {false, true}) {
                List<World> worlds = worlds(N, batch, cleared);
                String how = (batch ? "batch" : "one by one") + (cleared ? ", cleared" : "");
                for (World w : worlds) {
                    w.create(N);
                    assertEquals(N, w.size(), w + " size after create, " + how);
                    assertEquals(expectedChecksum(N), w.checksum(N), w + " checksum after create, " + how);
                }
                World reference = worlds.get(0);
                float random = reference.readRandom();
                float shuffled = reference.readShuffled();
                for (World w : worlds) {
                    assertEquals(random, w.readRandom(), w + " random read, " + how);
                    assertEquals(shuffled, w.readShuffled(), w + " shuffled read, " + how);
                }
                for (World w : worlds) {
                    for (int k = 0; k < 4; k++) {
                        w.update();
                    }
                }
                double updated = reference.checksum(N);
                for (World w : worlds) {
                    assertEquals(updated, w.checksum(N), w + " checksum after 4 updates, " + how);
                }
                int[] half = EcsPeersBenchmark.half(N);
                for (World w : worlds) {
                    w.churn(half);
                    w.churn(half);
                }
                double churned = reference.checksum(N);
                for (World w : worlds) {
                    assertEquals(N, w.size(), w + " size after churn, " + how);
                    assertEquals(churned, w.checksum(N), w + " checksum after churn, " + how);
                    w.update();
                }
                double after = reference.checksum(N);
                for (World w : worlds) {
                    assertEquals(after, w.checksum(N), w + " checksum after churn and update, " + how);
                }
            }
        }
    }

    @Test
    void theSparseUpdateMovesTheSameEntitiesInEveryLibrary() {
        int moving = EcsSpec.moving(N);
        BulkdataEcs.Sparse bulk = new BulkdataEcs.Sparse(N);
        BulkdataEcs.Sparse runs = new BulkdataEcs.Sparse(N);
        BulkdataEcs.Sparse grouped = new BulkdataEcs.Sparse(N, true);
        BulkdataEcs.SparseFloor floorJoin = new BulkdataEcs.SparseFloor(N, false);
        BulkdataEcs.SparseFloor floorGroup = new BulkdataEcs.SparseFloor(N, true);
        ArtemisEcs artemis = new ArtemisEcs(N);
        artemis.create(N, true);
        DominionEcs dominion = new DominionEcs(N);
        dominion.create(N, true);
        FleksEcs fleks = new FleksEcs(N);
        fleks.create(N, true);
        AshleyEcs ashley = new AshleyEcs(N);
        ashley.create(N, true);
        for (int k = 0; k < 3; k++) {
            assertEquals(moving, bulk.updateJoin());
            assertEquals(moving, runs.updateJoinRuns());
            assertEquals(moving, grouped.updateGroup());
            assertEquals(moving, floorJoin.updateJoin());
            assertEquals(moving, floorGroup.updateGroup());
            artemis.update();
            assertEquals(moving, dominion.update());
            fleks.update();
            ashley.update();
        }
        double expected = bulk.checksum(N);
        assertEquals(expected, runs.checksum(N), "bulkdata Join.forEachRun");
        assertEquals(expected, grouped.checksum(N), "bulkdata Group");
        assertEquals(expected, floorJoin.checksum(N), "floor, join layout");
        assertEquals(expected, floorGroup.checksum(N), "floor, group layout");
        assertEquals(expected, artemis.checksum(N), "artemis-odb");
        assertEquals(expected, dominion.checksum(N), "Dominion");
        assertEquals(expected, fleks.checksum(N), "Fleks");
        assertEquals(expected, ashley.checksum(N), "Ashley");
        // and the moving entities did move
        assertEquals(false, expected == expectedChecksum(N));
        bulk.close();
        runs.close();
        grouped.close();
        floorJoin.close();
        floorGroup.close();
    }

    @Test
    void theFloorComputesTheDenseUpdate() {
        try (BulkdataEcs bulk = new BulkdataEcs(N).fill(); BulkdataEcs.Floor floor = new BulkdataEcs.Floor(N)) {
            for (int k = 0; k < 3; k++) {
                bulk.updateColumns();
                floor.update();
            }
            assertEquals(bulk.checksum(N), floor.checksum(N));
        }
    }

    @Test
    void theChurnFloorChurnsAsTheTable() {
        int[] half = EcsPeersBenchmark.half(N);
        try (BulkdataEcs bulk = new BulkdataEcs(N).fill(); BulkdataEcs.ChurnFloor floor = new BulkdataEcs.ChurnFloor(N)) {
            assertEquals(bulk.checksum(N), floor.checksum(N));
            for (int round = 0; round < 3; round++) {
                assertEquals(bulk.churn(half), floor.churn(half));
                assertEquals(bulk.checksum(N), floor.checksum(N));
            }
        }
    }

    @Test
    void theReadFloorReadsWhatTheTableReads() {
        try (BulkdataEcs bulk = new BulkdataEcs(N).fill(); BulkdataEcs.ReadFloor floor = new BulkdataEcs.ReadFloor(N)) {
            assertEquals(bulk.readRandom(), floor.readRandom());
        }
    }

    /** Every Kotlin path of the update computes what the Java chunk loop computes, pass after pass. */
    @Test
    void theKotlinPathsComputeTheDenseUpdate() {
        try (BulkdataEcs bulk = new BulkdataEcs(N).fill(); KotlinEcs kotlin = new KotlinEcs(N)) {
            assertEquals(bulk.checksum(N), kotlin.checksum(N));
            List<Runnable> paths = List.of(kotlin::updateForEach, kotlin::updateChunks, kotlin::updateChunksInline,
                    kotlin::updateChunkSlots, kotlin::updateCoroutinesOneThread,
                    () -> kotlin.updateCoroutines(kotlinx.coroutines.Dispatchers.getDefault(), 2));
            for (Runnable path : paths) {
                bulk.updateColumns();
                path.run();
                assertEquals(bulk.checksum(N), kotlin.checksum(N));
            }
        }
    }
}
