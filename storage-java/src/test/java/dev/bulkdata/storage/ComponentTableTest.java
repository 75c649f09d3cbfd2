package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ComponentTable}'s rules one by one: every bad input throws the documented exception
 * and leaves the table unchanged; stale components are invisible and get swept or taken over;
 * chunks name each row's owner.
 */
class ComponentTableTest {
    private static final Schema ENTITIES = TestSchemas.particles(RecordLayout.SOA);
    private static final Schema VELOCITY = Schema.builder("velocity").add(FieldType.FLOAT, "vx", "vy").build();
    private static final FloatField VX = VELOCITY.floatField("vx");
    private static final FloatField PX = ENTITIES.floatField("px");

    private static InvalidHandleException.Reason reason(Runnable call) {
        return assertThrows(InvalidHandleException.class, call::run).reason();
    }

    @Test
    void badInput_throws_andLeavesTheTableUnchanged() {
        try (Table entities = BulkTable.of(ENTITIES);
             Table strangers = BulkTable.of(TestSchemas.particles(RecordLayout.SOA));
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long e = entities.add();
            long plain = entities.add();
            velocity.add(e);
            velocity.set(e, VX, 3f);
            long dead = entities.add();
            velocity.add(dead);
            entities.remove(dead);
            long foreign = strangers.add();

            assertEquals(InvalidHandleException.Reason.NULL, reason(() -> velocity.add(Handles.NULL)));
            assertEquals(InvalidHandleException.Reason.STALE, reason(() -> velocity.add(dead)));
            assertEquals(InvalidHandleException.Reason.STALE, reason(() -> velocity.get(dead, VX)));
            assertEquals(InvalidHandleException.Reason.STALE, reason(() -> velocity.set(dead, VX, 1f)));
            assertEquals(InvalidHandleException.Reason.STALE, reason(() -> velocity.remove(dead)));
            assertEquals(InvalidHandleException.Reason.FOREIGN, reason(() -> velocity.add(foreign)));
            assertEquals(InvalidHandleException.Reason.FOREIGN, reason(() -> velocity.get(foreign, VX)));
            assertEquals(InvalidHandleException.Reason.OUT_OF_RANGE,
                    reason(() -> velocity.get(e + 1000, VX)));
            assertEquals(InvalidHandleException.Reason.FORGED,
                    reason(() -> velocity.get(e + (1L << 32), VX))); // a generation the slot never had
            assertTrue(assertThrows(IllegalArgumentException.class, () -> velocity.add(e)).getMessage()
                    .contains("already has"));
            IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> velocity.get(plain, VX));
            assertFalse(none instanceof InvalidHandleException);
            assertTrue(none.getMessage().contains("has no component"));
            assertThrows(IllegalArgumentException.class, () -> velocity.remove(plain));
            assertThrows(IllegalArgumentException.class, () -> velocity.get(e, PX)); // field of another schema
            assertThrows(IllegalArgumentException.class, () -> velocity.set(e, (FloatField) null, 1f));
            assertThrows(IndexOutOfBoundsException.class, () -> velocity.getAt(2, VX));
            assertThrows(IndexOutOfBoundsException.class, () -> velocity.setAt(-1, VX, 1f));
            assertThrows(IndexOutOfBoundsException.class, () -> velocity.entityAt(2));
            assertThrows(IllegalArgumentException.class, () -> ComponentTable.of(null, VELOCITY));
            assertThrows(IllegalArgumentException.class, () -> ComponentTable.of(entities, null));

            assertEquals(2, velocity.size());
            assertTrue(velocity.contains(e));
            assertEquals(3f, velocity.get(e, VX));
            assertFalse(velocity.contains(dead));
            assertFalse(velocity.contains(foreign));
            assertFalse(velocity.contains(plain));
            TableAudit.check(velocity);
        }
    }

    @Test
    void staleComponent_isInvisible_thenTakenOverByTheSlotsNextEntity_zeroed() {
        try (Table entities = BulkTable.builder(ENTITIES).reuseOrder(ReuseOrder.LIFO).build();
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long old = entities.add();
            velocity.add(old);
            velocity.set(old, VX, 7f);
            entities.remove(old);
            assertFalse(velocity.contains(old));
            long reborn = entities.add();
            assertEquals(HandleLayout.DEFAULT.slot(old), HandleLayout.DEFAULT.slot(reborn));
            assertFalse(velocity.contains(reborn), "a new entity in the slot does not inherit the component");
            assertThrows(IllegalArgumentException.class, () -> velocity.get(reborn, VX));
            assertEquals(1, velocity.size()); // the stale row is still there
            assertEquals(0, velocity.add(reborn));
            assertEquals(0f, velocity.get(reborn, VX));
            assertEquals(1, velocity.size());
            TableAudit.check(velocity);
        }
    }

    @Test
    void removeDead_andForEachChunk_sweepStaleComponents() {
        try (Table entities = PackedTable.of(ENTITIES);
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long[] es = new long[1000];
            entities.addAll(es);
            for (int i = 0; i < es.length; i++) {
                velocity.add(es[i]);
                velocity.set(es[i], VX, i);
            }
            for (int i = 0; i < es.length; i += 3) {
                entities.remove(es[i]);
            }
            List<Long> owners = new ArrayList<>();
            float[] sum = new float[1];
            velocity.forEachChunk(chunk -> {
                for (int s = 0; s < chunk.liveCount(); s++) {
                    owners.add(chunk.handle(s));
                    sum[0] += chunk.get(s, VX);
                }
            });
            float expected = 0;
            for (int i = 0; i < es.length; i++) {
                if (i % 3 != 0) {
                    expected += i;
                    assertTrue(owners.contains(es[i]));
                }
            }
            assertEquals(666, owners.size());
            assertEquals(expected, sum[0]);
            assertEquals(666, velocity.size());
            assertEquals(0, velocity.removeDead());
            entities.remove(es[1]);
            assertEquals(1, velocity.removeDead());
            TableAudit.check(velocity);
        }
    }

    @Test
    void structuralChangesInsideLoops_throw_andChangeNothing() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long e = entities.add();
            long other = entities.add();
            velocity.add(e);
            velocity.forEach((owner, row) -> {
                assertThrows(ConcurrentModificationException.class, () -> velocity.add(other));
                assertThrows(ConcurrentModificationException.class, () -> velocity.remove(owner));
                assertThrows(ConcurrentModificationException.class, velocity::clear);
                assertThrows(ConcurrentModificationException.class, velocity::removeDead);
                assertThrows(ConcurrentModificationException.class, velocity::close);
                velocity.setAt(row, VX, 5f); // field writes are fine
            });
            assertEquals(1, velocity.size());
            assertFalse(velocity.contains(other));
            assertEquals(5f, velocity.get(e, VX));
        }
    }

    @Test
    void closed_throwsIllegalState_andHasAnswersFalse() {
        try (Table entities = BulkTable.of(ENTITIES)) {
            long e = entities.add();
            ComponentTable velocity = ComponentTable.of(entities, VELOCITY);
            velocity.add(e);
            velocity.close();
            velocity.close();
            assertTrue(velocity.isClosed());
            assertFalse(velocity.contains(e));
            assertThrows(IllegalStateException.class, () -> velocity.get(e, VX));
            assertThrows(IllegalStateException.class, () -> velocity.add(e));
            assertThrows(IllegalStateException.class, velocity::size);
            assertThrows(IllegalStateException.class, () -> velocity.getAt(0, VX));
            assertThrows(IllegalStateException.class, () -> velocity.forEach((x, r) -> { }));
            assertEquals("velocity", velocity.name());
        }
        Table closedEntities = BulkTable.of(ENTITIES);
        closedEntities.close();
        assertThrows(IllegalStateException.class, () -> ComponentTable.of(closedEntities, VELOCITY));
    }

    @Test
    void clear_removesEveryComponent_andTheTableIsReusable() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long[] es = new long[3000];
            entities.addAll(es);
            for (long e : es) {
                velocity.add(e);
                velocity.set(e, VX, 1f);
            }
            velocity.clear();
            assertEquals(0, velocity.size());
            assertFalse(velocity.contains(es[0]));
            TableAudit.check(velocity);
            velocity.add(es[5]);
            assertEquals(0f, velocity.get(es[5], VX));
        }
    }

    @Test
    void defragment_reachesEntityOrderWithinBudgets_keepsEveryValue_andThenDoesNothing() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long[] es = new long[2000];
            entities.addAll(es);
            java.util.SplittableRandom rng = new java.util.SplittableRandom(SparseSetTest.SEED);
            for (int i = es.length - 1; i > 0; i--) { // add components in shuffled entity order
                int j = rng.nextInt(i + 1);
                long t = es[i];
                es[i] = es[j];
                es[j] = t;
            }
            for (long e : es) {
                velocity.add(e);
                velocity.set(e, VX, HandleLayout.DEFAULT.slot(e));
            }
            long total = 0;
            int calls = 0;
            for (long swaps; (swaps = velocity.defragment(10_000)) > 0; calls++) {
                assertTrue(swaps <= 10_000);
                total += swaps;
                for (long e : es) {
                    assertEquals((float) HandleLayout.DEFAULT.slot(e), velocity.get(e, VX));
                }
            }
            assertTrue(calls > 1, "a shuffled table needs several budgeted calls, took " + calls);
            assertTrue(total > 0);
            for (int row = 1; row < velocity.size(); row++) {
                assertTrue(HandleLayout.DEFAULT.slot(velocity.entityAt(row - 1)) < HandleLayout.DEFAULT.slot(velocity.entityAt(row)));
                assertEquals((float) HandleLayout.DEFAULT.slot(velocity.entityAt(row)), velocity.getAt(row, VX));
            }
            assertEquals(0, velocity.defragment(Long.MAX_VALUE));
            assertThrows(IllegalArgumentException.class, () -> velocity.defragment(-1));
            TableAudit.check(velocity);
        }
    }
}
