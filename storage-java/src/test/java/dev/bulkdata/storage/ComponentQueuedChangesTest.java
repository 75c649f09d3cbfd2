package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ComponentTable#removeLater} and {@link ComponentTable#addLater} from inside a loop, a
 * {@link Join} and a {@link Group} pass, against a model: queued, applied when the loop ends.
 */
class ComponentQueuedChangesTest {
    private static final Schema ENTITY = Schema.builder("entity").add(FieldType.INT, "kind").build();
    private static final Schema POSITION = Schema.builder("position").add(FieldType.FLOAT, "x").build();
    private static final Schema VELOCITY = Schema.builder("velocity").add(FieldType.FLOAT, "v").build();
    private static final FloatField X = POSITION.floatField("x");
    private static final FloatField V = VELOCITY.floatField("v");

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void passesThatQueueRemovalsAndAdds_matchTheModel(boolean grouped) {
        long seed = Seeds.seed("ComponentQueuedChangesTest", grouped ? 0xC0DE_0002L : 0xC0DE_0001L);
        try {
            run(seed, grouped);
        } catch (AssertionError | RuntimeException e) {
            fail(Seeds.replay(seed) + " grouped=" + grouped + ": " + e, e);
        }
    }

    private static void run(long seed, boolean grouped) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            Group group = grouped ? Group.of(positions, velocities) : null;
            Join join = Join.of(positions, velocities);
            Map<Long, Float> velocityModel = new HashMap<>();
            List<Long> all = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                long e = entities.add();
                all.add(e);
                positions.add(e);
                positions.set(e, X, i);
                if (i % 3 != 0) {
                    velocities.add(e);
                    velocities.set(e, V, i);
                    velocityModel.put(e, (float) i);
                }
            }
            for (int pass = 0; pass < 40; pass++) {
                int kind = random.nextInt(3);
                long passSeed = random.nextLong();
                List<Long> removed = new ArrayList<>();
                Map<Long, Float> added = new HashMap<>();
                // Stop the slow ones (their velocity removed), from inside a pass over both.
                java.util.function.LongConsumer maybeStop = e -> {
                    if (new SplittableRandom(passSeed ^ e).nextInt(10) == 0) {
                        velocities.removeLater(e);
                        if (new SplittableRandom(passSeed + e).nextBoolean()) {
                            velocities.removeLater(e); // twice: removed once
                        }
                        removed.add(e);
                        assertTrue(velocities.contains(e), "a queued removal waits for the loop's end");
                    }
                };
                switch (kind) {
                    case 0 -> join.forEach((e, rows) -> maybeStop.accept(e));
                    case 1 -> velocities.forEach((e, row) -> maybeStop.accept(e));
                    default -> {
                        if (group != null) {
                            group.forEach((e, row) -> maybeStop.accept(e));
                        } else {
                            join.forEach((e, rows) -> maybeStop.accept(e));
                        }
                    }
                }
                // Start some of the still ones (a velocity added), from inside a loop over velocities.
                velocities.forEach((e, row) -> {
                    long other = all.get(new SplittableRandom(passSeed ^ e).nextInt(all.size()));
                    if (!velocities.contains(other) && !added.containsKey(other) && new SplittableRandom(e).nextInt(4) == 0) {
                        float v = e % 1000;
                        velocities.addLater(other, h -> velocities.set(h, V, v));
                        added.put(other, v);
                        assertFalse(velocities.contains(other), "a queued add waits for the loop's end");
                    }
                });
                for (long e : removed) {
                    velocityModel.remove(e);
                }
                velocityModel.putAll(added);
                assertEquals(velocityModel.size(), velocities.size(), "pass " + pass);
                for (Map.Entry<Long, Float> m : velocityModel.entrySet()) {
                    assertEquals(m.getValue(), velocities.get(m.getKey(), V), "pass " + pass);
                }
                if (group != null) {
                    assertEquals(velocityModel.size(), group.size(), "every entity has a position: the group is the velocities");
                }
            }
        }
    }

    @Test
    void outsideALoop_theyActAtOnce_andBadInputThrowsWhenQueued() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            long a = entities.add();
            long b = entities.add();
            velocities.addLater(a, e -> velocities.set(e, V, 3f));
            assertEquals(3f, velocities.get(a, V));
            velocities.add(b);
            velocities.forEach((e, row) -> {
                assertThrows(ConcurrentModificationException.class, () -> velocities.remove(e));
                assertThrows(IllegalArgumentException.class, () -> velocities.addLater(a, x -> { }));
                assertThrows(IllegalArgumentException.class, () -> velocities.addLater(a, null));
            });
            entities.remove(b);
            assertThrows(InvalidHandleException.class, () -> velocities.removeLater(b));
            velocities.removeLater(a);
            assertFalse(velocities.contains(a));
        }
    }

    @Test
    void anInitThatThrows_removesItsComponentAgain() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            long a = entities.add();
            long b = entities.add();
            velocities.add(a);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> velocities.forEach((x, row) ->
                    velocities.addLater(b, h -> {
                        throw new IllegalStateException("init failed");
                    })));
            assertEquals("init failed", e.getMessage());
            assertFalse(velocities.contains(b));
            assertEquals(1, velocities.size());
        }
    }
}
