package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;

import static dev.bulkdata.storage.AllocationTest.roundsUntilAllocationFree;

/**
 * Component get/set by entity and by row, and the join loop, allocate nothing once compiled;
 * measured as {@link AllocationTest} measures (bytes allocated by this thread per round).
 */
class ComponentAllocationTest {
    private static final int N = 100_000;
    private static final Schema ENTITIES = TestSchemas.particles(RecordLayout.SOA);
    private static final Schema POSITION = Schema.builder("position").add(FieldType.FLOAT, "px", "py").build();
    private static final Schema VELOCITY = Schema.builder("velocity").add(FieldType.FLOAT, "vx", "vy").build();
    private static final FloatField PX = POSITION.floatField("px");
    private static final FloatField VX = VELOCITY.floatField("vx");

    @Test
    void componentGetAndSet_allocateNothing() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable position = ComponentTable.of(entities, POSITION)) {
            long[] es = new long[N];
            entities.addAll(es);
            for (long e : es) {
                position.add(e);
            }
            roundsUntilAllocationFree("component get/set by entity", () -> {
                float sum = 0;
                for (int i = 0; i < es.length; i++) {
                    position.set(es[i], PX, i);
                    sum += position.get(es[i], PX);
                }
                return (long) sum;
            });
            roundsUntilAllocationFree("component add/remove", () -> {
                for (int i = 0; i < es.length; i += 2) {
                    position.remove(es[i]);
                }
                for (int i = 0; i < es.length; i += 2) {
                    position.add(es[i]);
                }
                return position.size();
            });
        }
    }

    @Test
    void joinLoop_allocatesNothing() {
        try (Table entities = BulkTable.of(ENTITIES);
             ComponentTable position = ComponentTable.of(entities, POSITION);
             ComponentTable velocity = ComponentTable.of(entities, VELOCITY)) {
            long[] es = new long[N];
            entities.addAll(es);
            for (int i = 0; i < es.length; i++) {
                position.add(es[i]);
                if (i % 2 == 0) {
                    velocity.add(es[i]);
                    velocity.setAt(velocity.size() - 1, VX, 1f);
                }
            }
            Join moving = Join.of(position, velocity);
            Join.Visitor move = (entity, rows) ->
                    position.setAt(rows[0], PX, position.getAt(rows[0], PX) + velocity.getAt(rows[1], VX));
            roundsUntilAllocationFree("join", () -> moving.forEach(move));
            ComponentTable.Visitor sweep = (entity, row) -> position.setAt(row, PX, 0f);
            roundsUntilAllocationFree("component forEach", () -> {
                position.forEach(sweep);
                return 0;
            });
        }
    }
}
