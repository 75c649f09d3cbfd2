package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
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

/** {@link Group}: how it packs, what each pass hands out, and what it refuses. */
class GroupTest {
    private static final Schema ENTITY = Schema.builder("entity").add(FieldType.INT, "kind").build();
    /** 12 bytes: 1024 rows a block. */
    private static final Schema POSITION = Schema.builder("position").add(FieldType.FLOAT, "x", "y", "z").build();
    /** 24 bytes: 512 rows a block. */
    private static final Schema VELOCITY = Schema.builder("velocity").add(FieldType.DOUBLE, "x", "y", "z").build();
    private static final FloatField X = POSITION.floatField("x");
    private static final DoubleField DX = VELOCITY.doubleField("x");

    /** Entities 0..n-1, each with a position x = i, every third with a velocity dx = i. */
    private static long[] world(Table entities, ComponentTable positions, ComponentTable velocities, int n) {
        long[] ids = new long[n];
        entities.addAll(ids);
        for (int i = 0; i < n; i++) {
            positions.setAt(positions.add(ids[i]), X, i);
            if (i % 3 == 0) {
                velocities.setAt(velocities.add(ids[i]), DX, i);
            }
        }
        return ids;
    }

    /** The owners of a table's rows, in row order. */
    private static List<Long> owners(ComponentTable t) {
        List<Long> owners = new ArrayList<>();
        for (int r = 0; r < t.size(); r++) {
            owners.add(t.entityAt(r));
        }
        return owners;
    }

    @Test
    void ofGathersTheSharedEntitiesAtTheFrontOfBothInTheSameOrder() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            long[] ids = world(entities, positions, velocities, 3000);
            Group group = Group.of(positions, velocities);
            assertEquals(1000, group.size());
            for (int r = 0; r < 1000; r++) {
                assertEquals(positions.entityAt(r), velocities.entityAt(r));
            }
            for (int i = 0; i < 3000; i++) {
                assertEquals(i % 3 == 0, group.contains(ids[i]));
                assertEquals(i, positions.get(ids[i], X));   // records moved with their rows
            }
            assertEquals(3000, positions.size());
            assertEquals(1000, velocities.size());
        }
    }

    @Test
    void runsCoverTheGroupInOrderAndNeverCrossABlockOfEitherMember() {
        try (Table entities = PackedTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            Group group = Group.of(velocities, positions);   // made first: kept by every add
            long[] ids = world(entities, positions, velocities, 9000);
            assertEquals(3000, group.size());
            int[] next = {0};
            int visits = group.forEachRun(run -> {
                assertEquals(next[0], run.row());
                Chunk v = run.chunk(0);
                Chunk p = run.chunk(1);
                assertTrue(run.slot(0) + run.count() <= v.slotCount());
                assertTrue(run.slot(1) + run.count() <= p.slotCount());
                assertEquals(run.row() % 512, run.slot(0));
                assertEquals(run.row() % 1024, run.slot(1));
                for (int i = 0; i < run.count(); i++) {
                    assertEquals(v.handle(run.slot(0) + i), p.handle(run.slot(1) + i));
                    p.set(run.slot(1) + i, X, p.get(run.slot(1) + i, X) + (float) v.get(run.slot(0) + i, DX));
                }
                next[0] += run.count();
            });
            assertEquals(3000, visits);
            assertEquals(3000, next[0]);
            for (int i = 0; i < 9000; i++) {
                assertEquals(i % 3 == 0 ? 2f * i : i, positions.get(ids[i], X));
            }
        }
    }

    @Test
    void addAndRemoveOfEitherComponentKeepTheGroup() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY);
             Group group = Group.of(positions, velocities)) {
            long[] ids = world(entities, positions, velocities, 30);
            assertEquals(10, group.size());
            velocities.remove(ids[3]);
            assertEquals(9, group.size());
            assertFalse(group.contains(ids[3]));
            int row = velocities.add(ids[4]);        // entity 4 now has both: it joins, at the group's end
            assertEquals(9, row);
            assertEquals(10, group.size());
            assertEquals(velocities.entityAt(9), positions.entityAt(9));
            positions.remove(ids[6]);
            assertEquals(9, group.size());
            assertEquals(6, velocities.get(ids[6], DX));   // its velocity stays, outside the group
            int visits = group.forEach((entity, r) -> {
                assertEquals(positions.entityAt(r), entity);
                assertEquals(velocities.entityAt(r), entity);
            });
            assertEquals(9, visits);
        }
    }

    @Test
    void aPassSweepsTheRowsOfRemovedEntitiesOnlyAfterARemoval() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY);
             Group group = Group.of(positions, velocities)) {
            long[] ids = world(entities, positions, velocities, 30);
            entities.remove(ids[0]);
            entities.remove(ids[1]);                  // no velocity: only a stale position
            assertEquals(10, group.size());           // stale rows count until the sweep
            assertEquals(9, group.forEachRun(run -> { }));
            assertEquals(9, group.size());
            assertEquals(29, positions.size());       // the grouped stale position went, the other stays
            assertEquals(9, velocities.size());
            long reused = entities.add();
            positions.add(reused);
            assertFalse(group.contains(reused));
            velocities.add(reused);
            assertTrue(group.contains(reused));
            assertEquals(10, group.forEach((e, r) -> { }));
        }
    }

    @Test
    void takingOverAStaleGroupRowTakesItOutOfTheGroupFirst() {
        try (Table entities = BulkTable.builder(ENTITY).reuseOrder(ReuseOrder.LIFO).build();
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY);
             Group group = Group.of(positions, velocities)) {
            long[] ids = world(entities, positions, velocities, 9);
            entities.remove(ids[3]);                  // grouped; no pass sweeps it
            long reused = entities.add();             // slot of ids[3] (LIFO), a new generation
            assertEquals(HandleLayout.DEFAULT.slot(ids[3]), HandleLayout.DEFAULT.slot(reused));
            positions.add(reused);                    // takes over the stale position row
            assertEquals(2, group.size());            // 0 and 6; the stale velocity of ids[3] is out
            assertFalse(group.contains(reused));
            velocities.add(reused);                   // takes over the stale velocity row: joins
            assertEquals(3, group.size());
            assertTrue(group.contains(reused));
            assertEquals(0f, positions.get(reused, X));
            assertEquals(0.0, velocities.get(reused, DX));
        }
    }

    @Test
    void badArgumentsAreRefusedAndChangeNothing() {
        try (Table entities = BulkTable.of(ENTITY);
             Table others = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY);
             ComponentTable foreign = ComponentTable.of(others, VELOCITY)) {
            world(entities, positions, velocities, 100);
            List<Long> before = owners(positions);
            assertThrows(IllegalArgumentException.class, () -> Group.of((ComponentTable[]) null));
            assertThrows(IllegalArgumentException.class, () -> Group.of(positions));
            assertThrows(IllegalArgumentException.class, () -> Group.of(positions, null));
            assertThrows(IllegalArgumentException.class, () -> Group.of(positions, positions));
            assertThrows(IllegalArgumentException.class, () -> Group.of(positions, foreign));
            Join join = Join.of(positions, velocities);
            join.forEach((e, rows) -> assertThrows(ConcurrentModificationException.class,
                    () -> Group.of(positions, velocities)));
            assertEquals(before, owners(positions));
            Group group = Group.of(positions, velocities);
            assertThrows(IllegalArgumentException.class, () -> Group.of(velocities, foreign));
            assertThrows(IllegalArgumentException.class, () -> group.forEachRun(null));
            assertThrows(IllegalArgumentException.class, () -> group.forEach(null));
            List<Long> grouped = owners(positions);
            int[] joined = {0};
            join.forEach((e, rows) -> {
                joined[0]++;
                assertThrows(ConcurrentModificationException.class, () -> group.forEachRun(run -> { }));
            });
            assertEquals(34, joined[0]);
            assertEquals(grouped, owners(positions));
            group.close();
            assertThrows(IllegalStateException.class, group::size);
            assertThrows(IllegalStateException.class, () -> group.forEachRun(run -> { }));
            Group.of(velocities, positions).close();  // free to group again
        }
    }

    @Test
    void closingAMemberOrClearingOneEndsOrEmptiesTheGroup() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            long[] ids = world(entities, positions, velocities, 30);
            Group group = Group.of(positions, velocities);
            velocities.clear();
            assertEquals(0, group.size());
            assertEquals(30, positions.size());
            velocities.add(ids[5]);
            assertEquals(1, group.size());
            assertEquals(ids[5], positions.entityAt(0));
            velocities.close();
            assertTrue(group.isClosed());
            assertThrows(IllegalStateException.class, () -> group.contains(ids[5]));
            positions.remove(ids[5]);                 // no longer grouped: nothing reaches the closed table
            assertEquals(29, positions.size());
            ComponentTable spare = ComponentTable.of(entities, VELOCITY);
            spare.close();
            assertThrows(IllegalStateException.class, () -> Group.of(positions, spare));

        }
    }

    @Test
    void defragmentSortsTheGroupInEveryMemberThenTheRest() {
        try (Table entities = BulkTable.of(ENTITY);
             ComponentTable positions = ComponentTable.of(entities, POSITION);
             ComponentTable velocities = ComponentTable.of(entities, VELOCITY)) {
            long[] ids = new long[200];
            entities.addAll(ids);
            for (int i = 199; i >= 0; i--) {            // rows in reverse entity order
                positions.add(ids[i]);
                if (i % 2 == 0) {
                    velocities.add(ids[i]);
                }
            }
            Group group = Group.of(positions, velocities);
            while (positions.defragment(7) > 0) {
                // budgeted: call until done
            }
            assertEquals(100, group.size());
            for (int r = 0; r < 100; r++) {
                assertEquals(ids[2 * r], positions.entityAt(r));
                assertEquals(ids[2 * r], velocities.entityAt(r));
            }
            for (int r = 100; r < 200; r++) {
                assertEquals(ids[2 * (r - 100) + 1], positions.entityAt(r));
            }
            assertEquals(0, positions.defragment(10));
        }
    }
}
