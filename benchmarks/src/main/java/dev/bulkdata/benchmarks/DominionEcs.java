package dev.bulkdata.benchmarks;

import dev.dominion.ecs.api.Composition;
import dev.dominion.ecs.api.Dominion;
import dev.dominion.ecs.api.Entity;
import dev.dominion.ecs.api.Results;

import java.util.Iterator;

/**
 * Dominion 0.9.0's side of {@link EcsPeersBenchmark}, used as its README and its own benchmark
 * suite do: components are plain objects given to {@code createEntity(...)}; the batch create is
 * its prepared path ({@code createPreparedEntity(composition.of(...).withValue(...))}, the
 * suite's "create prepared entities"); the update iterates
 * {@code findEntitiesWith(Position.class, Velocity.class)}; an entity is an {@link Entity}
 * object read with {@code entity.get(Position.class)} and deleted with
 * {@code deleteEntity(entity)}. Dominion has no clear: the cleared world deletes every entity.
 * Entity {@code i} of the workloads is {@code ids[i]}.
 */
final class DominionEcs implements AutoCloseable {
    /** Position. */
    public static final class Position {
        public float x;
        public float y;
        public float z;

        Position(float x, float y, float z) {
            this.x = x;
            this.y = y;
            this.z = z;
        }
    }

    /** Velocity. */
    public static final class Velocity {
        public float x;
        public float y;
        public float z;

        Velocity(float x, float y, float z) {
            this.x = x;
            this.y = y;
            this.z = z;
        }
    }

    /** The name of every world here: its logging level is set below. */
    static final String NAME = "bulkdata-peers";

    static {
        // Dominion prints a banner and each world's settings at INFO when it is created: not
        // inside a timed create.
        System.setProperty("dominion.show-banner", "false");
        System.setProperty("dominion." + NAME + ".logging-level", "WARNING");
    }

    final int n;
    /** {@code Dominion.create(name)}: the default settings, as its README creates a world. */
    final Dominion world = Dominion.create(NAME);
    final Composition.Of2<Position, Velocity> moving = world.composition().of(Position.class, Velocity.class);
    /** Entity {@code i}. */
    final Entity[] ids;
    Entity[] shuffled = new Entity[0];

    DominionEcs(int n) {
        this.n = n;
        ids = new Entity[n];
    }

    private static Position position(int i) {
        return new Position(EcsSpec.px(i), EcsSpec.py(i), EcsSpec.pz(i));
    }

    private static Velocity velocity(int i) {
        return new Velocity(EcsSpec.vx(i), EcsSpec.vy(i), EcsSpec.vz(i));
    }

    /** Create one by one: {@code createEntity(new Position(...), new Velocity(...))}. {@return the last entity} */
    Entity create(int count, boolean sparse) {
        Entity e = null;
        for (int i = 0; i < count; i++) {
            e = !sparse || EcsSpec.hasVelocity(i) ? world.createEntity(position(i), velocity(i))
                    : world.createEntity(position(i));
            ids[i] = e;
        }
        return e;
    }

    /** Create by its prepared composition: {@code createPreparedEntity(moving.withValue(...))}. {@return the last entity} */
    Entity createPrepared(int count) {
        Entity e = null;
        for (int i = 0; i < count; i++) {
            e = world.createPreparedEntity(moving.withValue(position(i), velocity(i)));
            ids[i] = e;
        }
        return e;
    }

    void shuffle(int[] order) {
        shuffled = new Entity[order.length];
        for (int i = 0; i < order.length; i++) {
            shuffled[i] = ids[order[i]];
        }
    }

    /** Deletes entities {@code 0..count-1}. */
    void clear(int count) {
        for (int i = 0; i < count; i++) {
            world.deleteEntity(ids[i]);
        }
    }

    /** One update over {@code findEntitiesWith(Position.class, Velocity.class)}. {@return the entities visited} */
    int update() {
        int visited = 0;
        float dt = EcsSpec.DT;
        Iterator<Results.With2<Position, Velocity>> it = world.findEntitiesWith(Position.class, Velocity.class).iterator();
        while (it.hasNext()) {
            Results.With2<Position, Velocity> r = it.next();
            Position p = r.comp1();
            Velocity v = r.comp2();
            p.x += v.x * dt;
            p.y += v.y * dt;
            p.z += v.z * dt;
            visited++;
        }
        return visited;
    }

    /** Sum of {@code x} of {@code n} entities at random positions of {@code ids}: {@code get(Position.class)}. */
    float readRandom() {
        long state = EcsSpec.SEED;
        float sum = 0;
        Entity[] ids = this.ids;
        for (int k = 0; k < n; k++) {
            state = EcsSpec.next(state);
            sum += ids[EcsSpec.position(state, n)].get(Position.class).x;
        }
        return sum;
    }

    float readShuffled() {
        float sum = 0;
        for (Entity e : shuffled) {
            sum += e.get(Position.class).x;
        }
        return sum;
    }

    /** Deletes the entities at positions {@code half}, then creates as many (prepared). {@return the last entity} */
    Entity churn(int[] half) {
        for (int i : half) {
            world.deleteEntity(ids[i]);
        }
        Entity e = null;
        for (int i : half) {
            e = world.createPreparedEntity(moving.withValue(position(i), velocity(i)));
            ids[i] = e;
        }
        return e;
    }

    double checksum(int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) {
            Position p = ids[i].get(Position.class);
            sum += (double) p.x + p.y + p.z;
        }
        return sum;
    }

    int size() {
        int size = 0;
        for (Object ignored : world.findAllEntities()) {
            size++;
        }
        return size;
    }

    @Override
    public void close() {
        world.close();
    }
}
