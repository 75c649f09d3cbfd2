package dev.bulkdata.storage.inspector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;

/**
 * A small running program for the tests: particles in a BulkTable (each frame the oldest few
 * fade and as many new ones appear in their holes, and a few move), emitters in a PackedTable
 * whose handle field names each emitter's newest particle, and a component table of heat on
 * every tenth particle.
 */
final class World implements AutoCloseable {
    final Schema particleSchema = Schema.builder("particles").add(FieldType.FLOAT, "x", "y", "vx", "vy")
            .add(FieldType.INT, "age").build();
    final FloatField x = particleSchema.floatField("x");
    final FloatField vx = particleSchema.floatField("vx");
    final IntField age = particleSchema.intField("age");
    final Schema emitterSchema = Schema.builder("emitters").add(FieldType.FLOAT, "rate")
            .addHandle("newest", "particles").build();
    final FloatField rate = emitterSchema.floatField("rate");
    final HandleField newest = emitterSchema.handleField("newest");
    final Schema heatSchema = Schema.builder("heat").add(FieldType.FLOAT, "kelvin").build();
    final FloatField kelvin = heatSchema.floatField("kelvin");

    final BulkTable particles = BulkTable.of(particleSchema);
    final PackedTable emitters = PackedTable.of(emitterSchema);
    final ComponentTable heat = ComponentTable.of(particles, heatSchema);
    final long[] ring;
    final long[] emitterHandles = new long[3];
    int frame;

    World(int count) {
        ring = new long[count];
        particles.addAll(ring);
        for (int i = 0; i < count; i++) {
            particles.set(ring[i], x, i);
            particles.set(ring[i], vx, 1f);
            particles.set(ring[i], age, i);
            if (i % 10 == 0) {
                heat.add(ring[i]);
                heat.set(ring[i], kelvin, 300f + i);
            }
        }
        for (int e = 0; e < emitterHandles.length; e++) {
            emitterHandles[e] = emitters.add();
            emitters.set(emitterHandles[e], rate, 10f * (e + 1));
            emitters.set(emitterHandles[e], newest, ring[count - 1 - e]);
        }
    }

    /** One frame: 8 particles fade and 8 appear in their holes; the emitters point at the newest. */
    void frame() {
        int replaced = Math.min(8, ring.length);
        int from = (frame * replaced) % (ring.length - replaced + 1);
        particles.removeAll(ring, from, from + replaced);
        particles.addAll(ring, from, from + replaced);
        for (int i = from; i < from + replaced; i++) {
            particles.set(ring[i], x, frame);
            particles.set(ring[i], vx, 2f);
        }
        for (int e = 0; e < emitterHandles.length; e++) {
            emitters.set(emitterHandles[e], newest, ring[from + (e % replaced)]);
        }
        frame++;
    }

    @Override
    public void close() {
        heat.close();
        emitters.close();
        particles.close();
    }
}
