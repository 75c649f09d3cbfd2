package dev.bulkdata.benchmarks;

import com.badlogic.ashley.core.Component;
import com.badlogic.ashley.core.ComponentMapper;
import com.badlogic.ashley.core.Entity;
import com.badlogic.ashley.core.Family;
import com.badlogic.ashley.core.PooledEngine;
import com.badlogic.ashley.systems.IteratingSystem;

/**
 * Ashley 1.7.4's side of {@link EcsPeersBenchmark}, used as its wiki recommends for speed: a
 * {@link PooledEngine} (entities and components from pools), components read through
 * {@link ComponentMapper}s, the update an {@link IteratingSystem} over
 * {@code Family.all(Position, Velocity)} run by {@code engine.update(dt)}; an entity is an
 * {@link Entity} object. Ashley has no batch create (its create is one by one), and
 * {@code removeEntity} scans the engine's entity array and each family's (O(n) per removal), so
 * its churn runs at n/10 only.
 */
final class AshleyEcs {
    /** Position. */
    public static final class Position implements Component {
        public float x;
        public float y;
        public float z;
    }

    /** Velocity. */
    public static final class Velocity implements Component {
        public float x;
        public float y;
        public float z;
    }

    static final ComponentMapper<Position> POSITIONS = ComponentMapper.getFor(Position.class);
    static final ComponentMapper<Velocity> VELOCITIES = ComponentMapper.getFor(Velocity.class);

    /** The update {@code p += v * dt}. */
    static final class Mover extends IteratingSystem {
        Mover() {
            super(Family.all(Position.class, Velocity.class).get());
        }

        @Override
        protected void processEntity(Entity e, float dt) {
            Position p = POSITIONS.get(e);
            Velocity v = VELOCITIES.get(e);
            p.x += v.x * dt;
            p.y += v.y * dt;
            p.z += v.z * dt;
        }
    }

    final int n;
    final PooledEngine engine = new PooledEngine();
    /** Entity {@code i}. */
    final Entity[] ids;
    Entity[] shuffled = new Entity[0];

    AshleyEcs(int n) {
        this.n = n;
        ids = new Entity[n];
        engine.addSystem(new Mover());
    }

    /**
     * Create one by one: {@code engine.createEntity()}, {@code engine.createComponent(...)} per
     * component, fields set, {@code entity.add(...)}, {@code engine.addEntity(entity)}.
     * {@return the last entity}
     */
    Entity create(int count, boolean sparse) {
        Entity e = null;
        for (int i = 0; i < count; i++) {
            e = add(i, !sparse || EcsSpec.hasVelocity(i));
            ids[i] = e;
        }
        return e;
    }

    private Entity add(int i, boolean moving) {
        Entity e = engine.createEntity();
        Position p = engine.createComponent(Position.class);
        p.x = EcsSpec.px(i);
        p.y = EcsSpec.py(i);
        p.z = EcsSpec.pz(i);
        e.add(p);
        if (moving) {
            Velocity v = engine.createComponent(Velocity.class);
            v.x = EcsSpec.vx(i);
            v.y = EcsSpec.vy(i);
            v.z = EcsSpec.vz(i);
            e.add(v);
        }
        engine.addEntity(e);
        return e;
    }

    void shuffle(int[] order) {
        shuffled = new Entity[order.length];
        for (int i = 0; i < order.length; i++) {
            shuffled[i] = ids[order[i]];
        }
    }

    /** {@code engine.removeAllEntities()}. */
    void clear() {
        engine.removeAllEntities();
    }

    /** One update: {@code engine.update(dt)} runs the {@link Mover}. */
    void update() {
        engine.update(EcsSpec.DT);
    }

    float readRandom() {
        long state = EcsSpec.SEED;
        float sum = 0;
        Entity[] ids = this.ids;
        for (int k = 0; k < n; k++) {
            state = EcsSpec.next(state);
            sum += POSITIONS.get(ids[EcsSpec.position(state, n)]).x;
        }
        return sum;
    }

    float readShuffled() {
        float sum = 0;
        for (Entity e : shuffled) {
            sum += POSITIONS.get(e).x;
        }
        return sum;
    }

    /** {@code removeEntity} of the entities at positions {@code half}, then as many created. {@return the last entity} */
    Entity churn(int[] half) {
        for (int i : half) {
            engine.removeEntity(ids[i]);
        }
        Entity e = null;
        for (int i : half) {
            e = add(i, true);
            ids[i] = e;
        }
        return e;
    }

    double checksum(int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) {
            Position p = POSITIONS.get(ids[i]);
            sum += (double) p.x + p.y + p.z;
        }
        return sum;
    }

    int size() {
        return engine.getEntities().size();
    }
}
