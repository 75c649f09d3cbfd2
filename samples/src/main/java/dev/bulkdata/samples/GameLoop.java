package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.TableStats;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A game loop: bullets spawned every frame, moved in a parallel pass over the table's chunks,
 * expired from inside that pass ({@link Chunk#removeLater}), some bursting into fragments
 * ({@link Chunk#addLater}), and the whole table purged with {@link BulkTable#reset()} at every
 * level change. Every few hundred frames it prints the live bullets, the blocks, the retired
 * slots and the native memory: after the first level the blocks stay where they are, no slot
 * retires, and no handle from an earlier level is accepted (one is kept and tried every frame).
 *
 * <p>The table's handle layout, {@code HandleLayout.of(20, 21, 11)}, is the one for a table
 * emptied every frame: 2^20 slots, 2^21 generations, 2^11 epochs. The outcome (counts and a
 * checksum of every bullet's position) is the same on any number of threads: removals are
 * applied in slot order and the fragments, queued through the chunks, in chunk order.
 */
public final class GameLoop {
    /**
     * Sizes of a run.
     *
     * @param spawnPerFrame bullets fired every frame
     * @param frames frames to run
     * @param levelEvery frames per level; the table is reset between levels
     * @param reportEvery frames between two printed lines
     * @param seed the random stream of the spawns
     */
    public record Params(int spawnPerFrame, int frames, int levelEvery, int reportEvery, long seed) {
        /** The samples command's run: about 100,000 bullets live, two minutes of game time. */
        public static final Params FULL = new Params(1_500, 7_500, 1_200, 600, 42L);
        /** The smoke-test run of {@code mvn verify}. */
        public static final Params SMALL = new Params(40, 650, 200, 100, 42L);
    }

    /**
     * What a run did.
     *
     * @param spawned bullets fired
     * @param fragments fragments queued from inside the passes
     * @param expired bullets and fragments removed from inside the passes
     * @param levels level changes (resets)
     * @param liveAtEnd bullets live after the last frame
     * @param blocksAfterFirstLevel blocks when the first level ended
     * @param maxBlocksAfterFirstLevel the most blocks at any frame after that
     * @param retired slots retired over the run
     * @param oldHandlesTried handles from an earlier level tried (one per frame after the first level)
     * @param oldHandlesAccepted of those, accepted by {@code contains}: must be 0
     * @param checksum the live bullets' positions, order-independent
     */
    public record Outcome(long spawned, long fragments, long expired, int levels, int liveAtEnd,
                          int blocksAfterFirstLevel, int maxBlocksAfterFirstLevel, int retired,
                          long oldHandlesTried, long oldHandlesAccepted, long checksum) {
    }

    private static final Schema BULLETS = Schema.builder("bullets").layout(RecordLayout.SOA)
            .add(FieldType.FLOAT, "x", "y", "vx", "vy")
            .add(FieldType.INT, "life", "burst")
            .build();
    private static final FloatField X = BULLETS.floatField("x");
    private static final FloatField Y = BULLETS.floatField("y");
    private static final FloatField VX = BULLETS.floatField("vx");
    private static final FloatField VY = BULLETS.floatField("vy");
    private static final IntField LIFE = BULLETS.intField("life");
    private static final IntField BURST = BULLETS.intField("burst");
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final float DT = 1f / 60;

    private GameLoop() {
    }

    /**
     * Runs the loop.
     *
     * @param p the sizes
     * @param threads threads of the update pass (the calling thread and {@code threads - 1} of a pool)
     * @param out where the lines go
     * @return what happened
     */
    public static Outcome run(Params p, int threads, SampleOutput out) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads - 1), r -> {
            Thread t = new Thread(r, "game-loop-worker");
            t.setDaemon(true);
            return t;
        });
        SplittableRandom random = new SplittableRandom(p.seed());
        long spawned = 0;
        long expired = 0;
        long[] fragments = new long[1];
        int levels = 0;
        int blocksAfterFirstLevel = -1;
        int maxBlocks = 0;
        long tried = 0;
        long accepted = 0;
        long oldHandle = 0;
        long[] fired = new long[p.spawnPerFrame()];
        try (BulkTable bullets = BulkTable.builder(BULLETS).handleLayout(HandleLayout.of(20, 21, 11)).build()) {
            out.line("%8s %8s %7s %8s %10s", "frame", "live", "blocks", "retired", "native");
            for (int frame = 1; frame <= p.frames(); frame++) {
                // Fire: outside any pass, so added at once, each bullet written through its chunk.
                bullets.addAll(fired, 0, fired.length, (chunk, slot, i) -> {
                    double angle = random.nextDouble(2 * Math.PI);
                    float speed = (float) random.nextDouble(50, 400);
                    chunk.set(slot, VX, speed * (float) Math.cos(angle));
                    chunk.set(slot, VY, speed * (float) Math.sin(angle));
                    chunk.set(slot, LIFE, random.nextInt(30, 120));
                    chunk.set(slot, BURST, random.nextInt(8) == 0 ? 1 : 0);
                });
                spawned += fired.length;
                // Move, age, expire and burst, on several threads; the changes apply when the pass ends.
                int before = bullets.size();
                long fragmentsBefore = fragments[0];
                bullets.forEachChunk(pool, threads, chunk -> step(chunk, bullets, fragments));
                expired += before - bullets.size() + fragments[0] - fragmentsBefore;
                // A handle from an earlier level must never be accepted.
                if (oldHandle != 0) {
                    tried++;
                    if (bullets.contains(oldHandle)) {
                        accepted++;
                    }
                }
                TableStats stats = bullets.stats();
                if (blocksAfterFirstLevel >= 0) {
                    maxBlocks = Math.max(maxBlocks, stats.blocks());
                }
                if (frame % p.reportEvery() == 0) {
                    out.line("%8d %8d %7d %8d %8.1f MiB", frame, stats.live(), stats.blocks(), stats.retired(),
                            stats.nativeBytes() / 1048576.0);
                }
                if (frame % p.levelEvery() == 0) {
                    oldHandle = fired[0];
                    bullets.reset();                       // level change: every bullet gone at once
                    levels++;
                    if (blocksAfterFirstLevel < 0) {
                        blocksAfterFirstLevel = bullets.stats().blocks();
                    }
                }
            }
            TableStats stats = bullets.stats();
            long checksum = checksum(bullets);
            return new Outcome(spawned, fragments[0], expired, levels, stats.live(), blocksAfterFirstLevel, maxBlocks,
                    stats.retired(), tried, accepted, checksum);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One chunk of the update pass: move, age, and at the end of its life remove the bullet; a
     * bursting bullet leaves two fragments, queued through the chunk so that their order (and
     * their handles) does not depend on which thread ran which chunk.
     */
    private static void step(Chunk chunk, BulkTable bullets, long[] fragments) {
        MemorySegment x = chunk.writableColumn(X);
        MemorySegment y = chunk.writableColumn(Y);
        MemorySegment vx = chunk.column(VX);
        MemorySegment vy = chunk.column(VY);
        MemorySegment life = chunk.writableColumn(LIFE);
        MemorySegment burst = chunk.column(BURST);
        for (int start = chunk.nextLive(0), end; start >= 0; start = chunk.nextLive(end)) {
            end = chunk.nextHole(start);
            for (int s = start; s < end; s++) {
                float nx = x.getAtIndex(F, s) + vx.getAtIndex(F, s) * DT;
                float ny = y.getAtIndex(F, s) + vy.getAtIndex(F, s) * DT;
                x.setAtIndex(F, s, nx);
                y.setAtIndex(F, s, ny);
                int left = life.getAtIndex(I, s) - 1;
                life.setAtIndex(I, s, left);
                if (left <= 0) {
                    chunk.removeLater(s);
                    if (burst.getAtIndex(I, s) != 0) {
                        float fvx = vy.getAtIndex(F, s);
                        float fvy = vx.getAtIndex(F, s);
                        chunk.addLater(h -> fragment(bullets, h, nx, ny, fvx, -fvy));
                        chunk.addLater(h -> fragment(bullets, h, nx, ny, -fvx, fvy));
                        synchronized (fragments) {
                            fragments[0] += 2;
                        }
                    }
                }
            }
        }
    }

    private static void fragment(BulkTable bullets, long h, float x, float y, float vx, float vy) {
        bullets.set(h, X, x);
        bullets.set(h, Y, y);
        bullets.set(h, VX, vx);
        bullets.set(h, VY, vy);
        bullets.set(h, LIFE, 20);
    }

    /** {@return a checksum of the live bullets' positions and lives, independent of their order} */
    private static long checksum(BulkTable bullets) {
        long[] sum = new long[1];
        bullets.forEach((chunk, s) -> sum[0] += (Float.floatToIntBits(chunk.get(s, X)) * 31L
                + Float.floatToIntBits(chunk.get(s, Y))) * 0x9E3779B97F4A7C15L + chunk.get(s, LIFE));
        return sum[0];
    }
}
