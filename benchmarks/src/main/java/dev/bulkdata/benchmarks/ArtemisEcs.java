package dev.bulkdata.benchmarks;

import com.artemis.Archetype;
import com.artemis.ArchetypeBuilder;
import com.artemis.Component;
import com.artemis.ComponentMapper;
import com.artemis.World;
import com.artemis.WorldConfigurationBuilder;
import com.artemis.annotations.All;
import com.artemis.systems.IteratingSystem;

/**
 * artemis-odb 2.3.0's side of {@link EcsPeersBenchmark}, used as its README recommends for
 * speed: components are {@code Component} subclasses reached through {@link ComponentMapper}s,
 * the update is an {@link IteratingSystem} over {@code @All(Position, Velocity)} run by
 * {@code world.process()}, entities are {@code int} ids. Creation and deletion are committed
 * at the next {@code process()} (artemis's entity edits are batched per frame); {@link #commit}
 * runs one with the update system disabled, and every create, clear and churn ends with it.
 * Entity {@code i} of the workloads is {@code ids[i]}. The batch create is an {@link Archetype}
 * (artemis's fast path for entities of one composition).
 */
final class ArtemisEcs implements AutoCloseable {
    /** Position: artemis components are mutable objects created and pooled by their mapper. */
    public static final class Position extends Component {
        public float x;
        public float y;
        public float z;
    }

    /** Velocity. */
    public static final class Velocity extends Component {
        public float x;
        public float y;
        public float z;
    }

    /** The update {@code p += v * dt}, the mappers injected by the world. */
    @All({Position.class, Velocity.class})
    public static final class Mover extends IteratingSystem {
        ComponentMapper<Position> positions;
        ComponentMapper<Velocity> velocities;

        @Override
        protected void process(int e) {
            Position p = positions.get(e);
            Velocity v = velocities.get(e);
            float dt = world.delta;
            p.x += v.x * dt;
            p.y += v.y * dt;
            p.z += v.z * dt;
        }
    }

    final int n;
    final World world;
    final Mover mover = new Mover();
    final ComponentMapper<Position> positions;
    final ComponentMapper<Velocity> velocities;
    final Archetype moving;
    /** The id of entity {@code i}. */
    final int[] ids;
    int[] shuffled = new int[0];

    ArtemisEcs(int n) {
        this.n = n;
        world = new World(new WorldConfigurationBuilder().with(mover).build());
        world.setDelta(EcsSpec.DT);
        positions = world.getMapper(Position.class);
        velocities = world.getMapper(Velocity.class);
        moving = new ArchetypeBuilder().add(Position.class).add(Velocity.class).build(world);
        ids = new int[n];
    }

    /** Commits the pending creations and deletions: one {@code process()} with the update disabled. */
    void commit() {
        mover.setEnabled(false);
        world.process();
        mover.setEnabled(true);
    }

    /**
     * Create one by one: {@code world.create()}, then {@code mapper.create(e)} per component and
     * its fields set. {@return the last id}
     */
    int create(int count, boolean sparse) {
        int e = -1;
        for (int i = 0; i < count; i++) {
            e = world.create();
            Position p = positions.create(e);
            p.x = EcsSpec.px(i);
            p.y = EcsSpec.py(i);
            p.z = EcsSpec.pz(i);
            if (!sparse || EcsSpec.hasVelocity(i)) {
                Velocity v = velocities.create(e);
                v.x = EcsSpec.vx(i);
                v.y = EcsSpec.vy(i);
                v.z = EcsSpec.vz(i);
            }
            ids[i] = e;
        }
        commit();
        return e;
    }

    /** Create by archetype: {@code world.create(archetype)}, then the fields set through the mappers. {@return the last id} */
    int createArchetype(int count) {
        int e = -1;
        for (int i = 0; i < count; i++) {
            e = world.create(moving);
            set(e, i);
            ids[i] = e;
        }
        commit();
        return e;
    }

    private void set(int e, int i) {
        Position p = positions.get(e);
        p.x = EcsSpec.px(i);
        p.y = EcsSpec.py(i);
        p.z = EcsSpec.pz(i);
        Velocity v = velocities.get(e);
        v.x = EcsSpec.vx(i);
        v.y = EcsSpec.vy(i);
        v.z = EcsSpec.vz(i);
    }

    void shuffle(int[] order) {
        shuffled = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            shuffled[i] = ids[order[i]];
        }
    }

    /** Deletes entities {@code 0..count-1} and commits. */
    void clear(int count) {
        for (int i = 0; i < count; i++) {
            world.delete(ids[i]);
        }
        commit();
    }

    /** One update: {@code world.process()} runs the {@link Mover}. */
    void update() {
        world.process();
    }

    /** Sum of {@code x} of {@code n} entities at random positions of {@code ids}, through the mapper. */
    float readRandom() {
        long state = EcsSpec.SEED;
        float sum = 0;
        int[] ids = this.ids;
        ComponentMapper<Position> positions = this.positions;
        for (int k = 0; k < n; k++) {
            state = EcsSpec.next(state);
            sum += positions.get(ids[EcsSpec.position(state, n)]).x;
        }
        return sum;
    }

    /** Sum of {@code x} of every entity, in the shuffled order. */
    float readShuffled() {
        float sum = 0;
        ComponentMapper<Position> positions = this.positions;
        for (int e : shuffled) {
            sum += positions.get(e).x;
        }
        return sum;
    }

    /**
     * Deletes the entities at positions {@code half}, commits, creates as many by archetype,
     * commits. {@return the last id created}
     */
    int churn(int[] half) {
        int e = -1;
        for (int i : half) {
            world.delete(ids[i]);
        }
        commit();
        for (int i : half) {
            e = world.create(moving);
            set(e, i);
            ids[i] = e;
        }
        commit();
        return e;
    }

    double checksum(int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) {
            Position p = positions.get(ids[i]);
            sum += (double) p.x + p.y + p.z;
        }
        return sum;
    }

    /** The live entities (test use: the first call subscribes to every entity, a cost from then on). */
    int size() {
        return world.getAspectSubscriptionManager().get(com.artemis.Aspect.all()).getEntities().size();
    }

    @Override
    public void close() {
        world.dispose();
    }
}
