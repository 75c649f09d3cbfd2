package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.Handles;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.Join;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;

import java.util.SplittableRandom;

/**
 * The entities and proximity components of "Relational Data and Sparse Sets": entities live in a {@link BulkTable}; some of
 * them have a proximity component (a trigger radius) and some an audio component, each kept
 * packed in a {@link ComponentTable} whose sparse set links entity slots to dense rows. Every
 * frame a player walks a circle, entities despawn and spawn, some lose their proximity
 * component (swap-and-pop: the last row moves into the freed one), and a {@link Join} over
 * proximity and audio, driven by the smaller set, plays the audio of every entity whose radius
 * the player is inside.
 *
 * <p>A despawned entity's components are not removed by hand: they go stale, the join skips
 * them, and {@link ComponentTable#removeDead()} sweeps them out now and then; after each sweep
 * {@link ComponentTable#defragment(long)} moves the component rows back toward entity order
 * (new components are appended at the end, wherever their entity's slot is), within a budget
 * of swaps, so loops over components walk entity memory forwards. To prove no
 * component is ever attached to the wrong entity, every entity carries a serial and each
 * component the serial of the entity it was added for; and every frame the join's count is
 * checked against {@code has(e) && has(e)} asked entity by entity.
 *
 * <p>Single-threaded; one instance runs once.
 */
public final class EntitiesAndProximity {
    /** The sizes of a run. */
    public record Params(int entities, int frames, int churnPerFrame, int dropsPerFrame, int sweepEvery,
                         long defragmentSwaps, float world, long seed) {
        /**
         * The main command's size. Defragment gets a budget of swaps per sweep: its insertion
         * sort moves an appended row one neighbour per swap, so at this churn the order
         * improves within the budget but is not reached.
         */
        public static final Params FULL = new Params(100_000, 200, 1_000, 300, 50, 250_000, 1_000f, 2002L);
        /** A smoke-test size: the budget is enough to reach entity order at every sweep. */
        public static final Params SMALL = new Params(2_000, 40, 40, 10, 10, Long.MAX_VALUE, 200f, 2002L);
    }

    /**
     * What a run observed.
     *
     * @param spawned entities added, including the initial ones
     * @param despawned entities removed (their components went stale)
     * @param proximityAdded proximity components added
     * @param audioAdded audio components added
     * @param swapRemoved proximity components removed by swap-and-pop
     * @param staleSwept stale components swept out by {@code removeDead}
     * @param defragmentSwaps row swaps made by {@code defragment} toward entity order
     * @param orderBefore share of neighbouring proximity rows in entity order before the last defragment
     * @param orderAfter the same share after it (1.0 when the pass completed)
     * @param joinVisits entities visited by the join, over all frames
     * @param joinMismatches frames whose join count differed from the entity-by-entity count (must be 0)
     * @param triggers visits where the player was inside the proximity radius
     * @param wrongOwners component reads that found another entity's serial (must be 0)
     * @param entitiesAtEnd live entities after the last frame
     * @param checksum order-independent sum over join visits of serials and trigger counts
     */
    public record Outcome(long spawned, long despawned, long proximityAdded, long audioAdded, long swapRemoved,
                          long staleSwept, long defragmentSwaps, double orderBefore, double orderAfter, long joinVisits, long joinMismatches, long triggers, long wrongOwners,
                          int entitiesAtEnd, long checksum) {
    }

    private static final Schema ENTITIES = Schema.builder("entities")
            .add(FieldType.FLOAT, "x", "y")
            .add(FieldType.LONG, "serial")
            .build();
    private static final FloatField X = ENTITIES.floatField("x");
    private static final FloatField Y = ENTITIES.floatField("y");
    private static final LongField SERIAL = ENTITIES.longField("serial");

    private static final Schema PROXIMITY = Schema.builder("proximity")
            .add(FieldType.FLOAT, "radius")
            .add(FieldType.INT, "triggers")
            .add(FieldType.LONG, "owner")
            .build();
    private static final FloatField RADIUS = PROXIMITY.floatField("radius");
    private static final IntField TRIGGERS = PROXIMITY.intField("triggers");
    private static final LongField PROXIMITY_OWNER = PROXIMITY.longField("owner");

    private static final Schema AUDIO = Schema.builder("audio")
            .add(FieldType.INT, "clip", "plays")
            .add(FieldType.LONG, "owner")
            .build();
    private static final IntField CLIP = AUDIO.intField("clip");
    private static final IntField PLAYS = AUDIO.intField("plays");
    private static final LongField AUDIO_OWNER = AUDIO.longField("owner");

    private static final double PROXIMITY_SHARE = 0.5;
    private static final double AUDIO_SHARE = 0.4;

    private final Params p;
    private final SplittableRandom random;
    private final BulkTable entities;
    private final ComponentTable proximity;
    private final ComponentTable audio;
    private final Join triggered;
    private final Join.Visitor visit = this::visit;
    /** The game's own list of live entity handles, for picking at random. */
    private long[] alive;
    private int aliveCount;
    private long nextSerial = 1;
    private float playerX, playerY;
    private long frameVisits;

    private long spawned, despawned, proximityAdded, audioAdded, swapRemoved, staleSwept, defragmentSwaps, joinVisits;
    private double orderBefore = 1, orderAfter = 1;
    private long joinMismatches, triggers, wrongOwners, checksum;

    private EntitiesAndProximity(Params p) {
        this.p = p;
        this.random = new SplittableRandom(p.seed());
        this.entities = BulkTable.of(ENTITIES);
        this.proximity = ComponentTable.of(entities, PROXIMITY);
        this.audio = ComponentTable.of(entities, AUDIO);
        this.triggered = Join.of(proximity, audio);
        this.alive = new long[p.entities()];
    }

    /**
     * Runs the scenario for {@code p.frames()} frames.
     *
     * @param p sizes and seed
     * @param out where to print progress and the summary
     * @return the counts and checksum, for tests
     */
    public static Outcome run(Params p, SampleOutput out) {
        EntitiesAndProximity world = new EntitiesAndProximity(p);
        try {
            return world.simulate(out);
        } finally {
            world.audio.close();
            world.proximity.close();
            world.entities.close();
        }
    }

    private Outcome simulate(SampleOutput out) {
        for (int i = 0; i < p.entities(); i++) {
            spawn();
        }
        Progress progress = out.progress("frame", p.frames(),
                () -> String.format("entities %,d  proximity %,d  audio %,d  joined %,d", entities.size(),
                        proximity.size(), audio.size(), frameVisits));
        for (int frame = 1; frame <= p.frames(); frame++) {
            double angle = frame * 2 * Math.PI / p.frames();
            playerX = (float) (Math.cos(angle) * p.world() / 3);
            playerY = (float) (Math.sin(angle) * p.world() / 3);
            for (int k = 0; k < p.churnPerFrame(); k++) {
                despawn(random.nextInt(aliveCount));
            }
            for (int k = 0; k < p.churnPerFrame(); k++) {
                spawn();
            }
            dropProximity();
            frameVisits = triggered.forEach(visit);
            joinVisits += frameVisits;
            if (frameVisits != countByHas()) {
                joinMismatches++;
            }
            if (frame % p.sweepEvery() == 0) {
                staleSwept += proximity.removeDead() + audio.removeDead();
                orderBefore = entityOrder(proximity);
                defragmentSwaps += proximity.defragment(p.defragmentSwaps()) + audio.defragment(p.defragmentSwaps());
                orderAfter = entityOrder(proximity);
            }
            progress.step(frame);
        }
        progress.done();
        Outcome o = new Outcome(spawned, despawned, proximityAdded, audioAdded, swapRemoved, staleSwept,
                defragmentSwaps, orderBefore, orderAfter, joinVisits,
                joinMismatches, triggers, wrongOwners, entities.size(), checksum);
        out.line("entities   %,d spawned, %,d despawned (their components went stale); %,d live",
                o.spawned(), o.despawned(), o.entitiesAtEnd());
        out.line("components %,d proximity and %,d audio added; %,d proximity removed by swap-and-pop;"
                + " %,d stale swept by removeDead", o.proximityAdded(), o.audioAdded(), o.swapRemoved(), o.staleSwept());
        out.line("defragment %,d row swaps toward entity order; neighbouring proximity rows in entity order:"
                + " %.1f%% before the last sweep, %.1f%% after", o.defragmentSwaps(), 100 * o.orderBefore(),
                100 * o.orderAfter());
        out.line("join       proximity x audio: %,d visits in %,d frames (%,d frames disagree with has()), %,d triggers",
                o.joinVisits(), p.frames(), o.joinMismatches(), o.triggers());
        out.line("check      %,d components read for the wrong entity; checksum %016x", o.wrongOwners(), o.checksum());
        return o;
    }

    private void spawn() {
        long e = entities.add();
        long serial = nextSerial++;
        entities.set(e, X, (float) ((random.nextDouble() - 0.5) * p.world()));
        entities.set(e, Y, (float) ((random.nextDouble() - 0.5) * p.world()));
        entities.set(e, SERIAL, serial);
        if (random.nextDouble() < PROXIMITY_SHARE) {
            int row = proximity.add(e);
            proximity.setAt(row, RADIUS, (float) random.nextDouble(1, p.world() / 20));
            proximity.setAt(row, PROXIMITY_OWNER, serial);
            proximityAdded++;
        }
        if (random.nextDouble() < AUDIO_SHARE) {
            int row = audio.add(e);
            audio.setAt(row, CLIP, random.nextInt(64));
            audio.setAt(row, AUDIO_OWNER, serial);
            audioAdded++;
        }
        if (aliveCount == alive.length) {
            alive = java.util.Arrays.copyOf(alive, aliveCount * 2);
        }
        alive[aliveCount++] = e;
        spawned++;
    }

    /** Removes an entity from its table only: its components go stale, nothing else is touched. */
    private void despawn(int i) {
        entities.remove(alive[i]);
        alive[i] = alive[--aliveCount];
        despawned++;
    }

    /** Some entities lose their proximity component: swap-and-pop moves the last row into its row. */
    private void dropProximity() {
        for (int k = 0; k < p.dropsPerFrame(); k++) {
            long e = alive[random.nextInt(aliveCount)];
            if (proximity.contains(e)) {
                proximity.remove(e);
                swapRemoved++;
            }
        }
    }

    private void visit(long e, int[] rows) {
        long serial = entities.get(e, SERIAL);
        if (proximity.getAt(rows[0], PROXIMITY_OWNER) != serial || audio.getAt(rows[1], AUDIO_OWNER) != serial) {
            wrongOwners++;
        }
        float dx = entities.get(e, X) - playerX;
        float dy = entities.get(e, Y) - playerY;
        float radius = proximity.getAt(rows[0], RADIUS);
        int plays = audio.getAt(rows[1], PLAYS);
        if (dx * dx + dy * dy < radius * radius) {
            triggers++;
            proximity.setAt(rows[0], TRIGGERS, proximity.getAt(rows[0], TRIGGERS) + 1);
            audio.setAt(rows[1], PLAYS, ++plays);
        }
        checksum += serial * 0x9E3779B97F4A7C15L ^ ((long) plays << 8 | audio.getAt(rows[1], CLIP));
    }

    /** The share of neighbouring rows whose owners are in ascending entity slot order. */
    private static double entityOrder(ComponentTable components) {
        int n = components.size();
        if (n < 2) {
            return 1;
        }
        HandleLayout layout = components.entities().handleLayout();
        long ordered = 0;
        long previous = layout.slot(components.entityAt(0));
        for (int row = 1; row < n; row++) {
            long slot = layout.slot(components.entityAt(row));
            if (slot > previous) {
                ordered++;
            }
            previous = slot;
        }
        return (double) ordered / (n - 1);
    }

    private long countByHas() {
        long n = 0;
        for (int i = 0; i < aliveCount; i++) {
            if (proximity.contains(alive[i]) && audio.contains(alive[i])) {
                n++;
            }
        }
        return n;
    }
}
