package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.Handles;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Snapshots;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A simulation saved in the middle of its run and continued from the file by a fresh table:
 * its final state is bit for bit the state of the same simulation run without a break.
 *
 * <p>Bodies chase other bodies: each body holds a handle of its target in a handle field
 * ({@link Schema.Builder#addHandle}, aimed at its own table), steers toward it while it lives
 * and forgets it once it is gone (a stale handle, caught with {@code contains}). Every tick each
 * body ages and moves, bodies past their lifetime are removed, and new ones are added, each
 * given as target the body found at a random place in iteration order. So the run depends on
 * everything a snapshot must bring back: which slots are live, the iteration order, every
 * field's bits, the generations (a stale target must stay stale) and the free list (the handles
 * the next adds return, which later bodies store as targets).
 *
 * <p>The sample runs the simulation twice: once without a break, and once saving the table to
 * a file at the middle tick, closing it, loading the file into a new table
 * ({@link Snapshots#load}) and carrying on. It then compares the two final checksums (a hash of
 * every live record's slot, fields and target in iteration order); {@link Outcome#resumedEqual()}
 * must be true. The table has a fixed tag ({@code tag(3900)}), as a table that is saved should,
 * so the loaded table takes it back and the targets stored before the save stay valid.
 *
 * <p>The save is also loaded as the program's next release would load it: under
 * {@link #BODIES_V2}, a schema with one more field ({@code mass}, declared with a load
 * default of 1, {@link Schema.Builder#loadDefault}) and its fields in another order. Every
 * body comes back with its fields and target as saved, by name, and a mass of 1
 * ({@link Outcome#upgradedEqual()}).
 *
 * <p>The randomness of a tick comes from the seed and the tick number alone, so the continued
 * run needs nothing from the first half but the file. Single-threaded.
 */
public final class SaveAndResume {
    /**
     * The sizes of a run.
     *
     * @param spawnPerTick bodies added every tick
     * @param lifetime ticks a body lives
     * @param ticks ticks in a run; the save happens after {@code ticks / 2}
     * @param seed the seed
     */
    public record Params(int spawnPerTick, int lifetime, int ticks, long seed) {
        /** The main command's size: 200,000 bodies chasing each other for 200 ticks. */
        public static final Params FULL = new Params(2_000, 100, 200, 9009L);
        /** A smoke-test size. */
        public static final Params SMALL = new Params(40, 20, 60, 9009L);
    }

    /**
     * What the two runs ended with.
     *
     * @param live bodies live at the end of the uninterrupted run
     * @param lostTargets targets found stale (their body removed) in the uninterrupted run
     * @param savedBytes the size of the snapshot file
     * @param savedAtTick the tick after which the second run saved and reloaded
     * @param checksum the uninterrupted run's final checksum
     * @param resumedChecksum the saved-and-resumed run's final checksum
     * @param resumedEqual whether the resumed run ended exactly as the uninterrupted one (live
     *     count, lost targets and checksum)
     * @param upgradedEqual whether the save, loaded under {@link #BODIES_V2}, held every body as
     *     saved (count and checksum of the saved fields) with the added field at its default
     */
    public record Outcome(int live, long lostTargets, long savedBytes, int savedAtTick, long checksum,
                          long resumedChecksum, boolean resumedEqual, boolean upgradedEqual) {
    }

    /** The fixed tag of the bodies table: fixed tags (3840..4095) are free in every new run. */
    static final int TAG = 3900;

    static final Schema BODIES = Schema.builder("bodies")
            .add(FieldType.FLOAT, "x", "y", "vx", "vy")
            .add(FieldType.INT, "age")
            .addHandle("target", "bodies")        // the body this one chases: a handle of this table
            .build();
    /**
     * The schema of the program's next release: {@code mass} added, which the bodies of a save
     * of {@link #BODIES} load with at 1, and the fields in another order. {@link Snapshots#load}
     * matches the fields by name.
     */
    static final Schema BODIES_V2 = Schema.builder("bodies")
            .addHandle("target", "bodies")
            .add(FieldType.INT, "age")
            .add(FieldType.FLOAT, "x", "y", "vx", "vy", "mass")
            .loadDefault("mass", 1)                // what the bodies of an older save get
            .build();
    private static final FloatField X = BODIES.floatField("x");
    private static final FloatField Y = BODIES.floatField("y");
    private static final FloatField VX = BODIES.floatField("vx");
    private static final FloatField VY = BODIES.floatField("vy");
    private static final IntField AGE = BODIES.intField("age");
    private static final HandleField TARGET = BODIES.handleField("target");

    private static final float DT = 1f / 60;
    private static final float STEER = 0.5f;

    private final Params params;
    private BulkTable bodies;
    private long lostTargets;
    /** Scratch for one tick: the handles of the bodies to remove, then the live handles in order. */
    private long[] scratch = new long[1024];

    private SaveAndResume(Params params, BulkTable bodies) {
        this.params = params;
        this.bodies = bodies;
    }

    /**
     * Runs the simulation without a break, then again with a save and load at the middle tick,
     * printing a summary.
     *
     * @param p the sizes
     * @param out where to print
     * @return what both runs ended with
     */
    public static Outcome run(Params p, SampleOutput out) {
        Path dir;
        try {
            dir = Files.createTempDirectory("bulkdata-resume");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path file = dir.resolve("bodies.bulk");
        int middle = p.ticks() / 2;
        String[] phase = {"uninterrupted"};
        Progress progress = out.progress("tick", 2 * p.ticks(), () -> phase[0]);
        try {
            long checksum;
            int live;
            long lost;
            SaveAndResume whole = new SaveAndResume(p, BulkTable.builder(BODIES).tag(TAG).build());
            try (BulkTable t = whole.bodies) {
                for (int tick = 0; tick < p.ticks(); tick++) {
                    whole.tick(tick);
                    progress.step(tick + 1);
                }
                checksum = checksum(t);
                live = t.size();
                lost = whole.lostTargets;
            }
            phase[0] = "saved at the middle and resumed";
            SaveAndResume first = new SaveAndResume(p, BulkTable.builder(BODIES).tag(TAG).build());
            long savedChecksum;
            int savedLive;
            try (BulkTable t = first.bodies) {
                for (int tick = 0; tick < middle; tick++) {
                    first.tick(tick);
                    progress.step(p.ticks() + tick + 1);
                }
                Snapshots.save(t, file);                      // then the table is closed: all is in the file
                savedChecksum = checksum(t);
                savedLive = t.size();
            }
            long bytes = Files.size(file);
            boolean upgraded;
            try (BulkTable v2 = Snapshots.load(file, BulkTable.class, BODIES_V2)) {   // the next release's load
                FloatField mass = BODIES_V2.floatField("mass");
                boolean[] defaulted = {true};
                v2.forEach((chunk, slot) -> defaulted[0] &= chunk.get(slot, mass) == 1f);
                upgraded = defaulted[0] && v2.size() == savedLive && checksum(v2) == savedChecksum;
            }
            SaveAndResume second = new SaveAndResume(p, Snapshots.load(file, BulkTable.class, BODIES));
            second.lostTargets = first.lostTargets;
            long resumedChecksum;
            boolean equal;
            try (BulkTable t = second.bodies) {
                for (int tick = middle; tick < p.ticks(); tick++) {
                    second.tick(tick);
                    progress.step(p.ticks() + tick + 1);
                }
                resumedChecksum = checksum(t);
                equal = resumedChecksum == checksum && t.size() == live && second.lostTargets == lost;
            }
            progress.done();
            out.line("%,d bodies live after %d ticks, %,d targets lost to removal", live, p.ticks(), lost);
            out.line("saved after tick %d: %,d bytes; loaded into a new table and continued", middle, bytes);
            out.line("the same save loaded under the next release's schema (one more field, mass = 1): %,d bodies,"
                    + " %s", savedLive, upgraded ? "every field and target as saved" : "DIFFERENT");
            out.line("final checksum %016x uninterrupted, %016x saved and resumed: %s", checksum, resumedChecksum,
                    equal ? "equal" : "DIFFERENT");
            return new Outcome(live, lost, bytes, middle, checksum, resumedChecksum, equal, upgraded);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }

    /** One tick: steer and move, age and remove, then add new bodies with targets. */
    private void tick(int tick) {
        SplittableRandom random = new SplittableRandom(params.seed() * 31 + tick);
        int[] expired = {0};
        bodies.forEach((chunk, slot) -> {
            long target = chunk.get(slot, TARGET);
            float x = chunk.get(slot, X);
            float y = chunk.get(slot, Y);
            float vx = chunk.get(slot, VX);
            float vy = chunk.get(slot, VY);
            if (target != Handles.NULL) {
                if (bodies.contains(target)) {
                    vx += (bodies.get(target, X) - x) * STEER * DT;
                    vy += (bodies.get(target, Y) - y) * STEER * DT;
                } else {
                    chunk.set(slot, TARGET, Handles.NULL);        // the target was removed: stale, forget it
                    lostTargets++;
                }
            }
            chunk.set(slot, VX, vx);
            chunk.set(slot, VY, vy);
            chunk.set(slot, X, x + vx * DT);
            chunk.set(slot, Y, y + vy * DT);
            int age = chunk.get(slot, AGE) + 1;
            chunk.set(slot, AGE, age);
            if (age >= params.lifetime()) {
                remember(expired[0]++, chunk.handle(slot));
            }
        });
        bodies.removeAll(scratch, 0, expired[0]);
        int live = 0;
        try (var chunks = bodies.iterate()) {
            for (var chunk : chunks) {
                for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                    remember(live++, chunk.handle(s));
                }
            }
        }
        for (int i = 0; i < params.spawnPerTick(); i++) {
            long h = bodies.add();
            bodies.set(h, X, (float) random.nextDouble(-100, 100));
            bodies.set(h, Y, (float) random.nextDouble(-100, 100));
            bodies.set(h, VX, (float) random.nextGaussian());
            bodies.set(h, VY, (float) random.nextGaussian());
            int pick = random.nextInt(live + 1);
            bodies.set(h, TARGET, pick == live ? Handles.NULL : scratch[pick]);   // live + 1: sometimes none
        }
    }

    private void remember(int i, long handle) {
        if (i == scratch.length) {
            scratch = java.util.Arrays.copyOf(scratch, 2 * i);
        }
        scratch[i] = handle;
    }

    /**
     * A hash of every live record in iteration order: its slot, its fields of {@link #BODIES}
     * (found by name, so a table of {@link #BODIES_V2} hashes alike), and its target's slot and
     * whether the target is live. Slots rather than whole handles: the two runs' tables are
     * different tables under the same tag, whose generations start at different floors.
     */
    static long checksum(BulkTable table) {
        long[] h = {0x9E3779B97F4A7C15L};
        dev.bulkdata.storage.schema.HandleLayout layout = table.handleLayout();
        Schema schema = table.schema();
        FloatField x = schema.floatField("x");
        FloatField y = schema.floatField("y");
        FloatField vx = schema.floatField("vx");
        FloatField vy = schema.floatField("vy");
        IntField age = schema.intField("age");
        HandleField targetField = schema.handleField("target");
        table.forEach((chunk, slot) -> {
            long v = h[0];
            long target = chunk.get(slot, targetField);
            v = mix(v, layout.slot(chunk.handle(slot)));
            v = mix(v, Float.floatToRawIntBits(chunk.get(slot, x)));
            v = mix(v, Float.floatToRawIntBits(chunk.get(slot, y)));
            v = mix(v, Float.floatToRawIntBits(chunk.get(slot, vx)));
            v = mix(v, Float.floatToRawIntBits(chunk.get(slot, vy)));
            v = mix(v, chunk.get(slot, age));
            v = mix(v, target == Handles.NULL ? -1 : layout.slot(target));
            h[0] = mix(v, table.contains(target) ? 1 : 0);
        });
        return h[0];
    }

    private static long mix(long h, long v) {
        long x = (h ^ v) * 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 31);
    }
}
