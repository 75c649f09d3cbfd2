package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.DenseRows;
import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.memory.BlockArena;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DenseRows against a list-of-records model: swap-and-pop, swaps, zeroed tails, chunk views. */
class DenseRowsTest {
    private static final long SEED = 0x5EED_DE45L;

    /** A table name for the chunk views; handles are just {@code 1000 + row}. */
    private record FakeOwner(boolean[] closed) implements DenseChunk.Owner {
        @Override
        public String name() {
            return "dense";
        }

        @Override
        public void checkChunkAccess() {
            if (closed[0]) {
                throw new IllegalStateException("table 'dense' is closed");
            }
        }

        @Override
        public long handleOfRow(int row) {
            return 1000 + row;
        }

        @Override
        public ChangeVersions versions() {
            return VERSIONS;
        }

        @Override
        public void removeRowLater(int row) {
            throw new IllegalStateException("the fake owner queues nothing");
        }

        @Override
        public void addLaterFrom(int chunk, java.util.function.LongConsumer init) {
            throw new IllegalStateException("the fake owner queues nothing");
        }
    }

    /** The fake owner keeps no versions, as a component table. */
    private static final ChangeVersions VERSIONS = ChangeVersions.unused(TestSchemas.mixed(RecordLayout.SOA));

    private static long[] read(DenseRows<DenseChunk> rows, int row, List<Field> fields) {
        long[] values = new long[fields.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = Values.get(rows, row, fields.get(i));
        }
        return values;
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void model_mixed(RecordLayout layout) {
        runModel(TestSchemas.mixed(layout), SEED ^ layout.ordinal(), 60_000, 200);
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void model_narrow(RecordLayout layout) {
        runModel(TestSchemas.narrow(layout), SEED + 7 * layout.ordinal(), 60_000, 3000);
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void model_particles(RecordLayout layout) {
        runModel(TestSchemas.particles(layout), SEED - 11 * layout.ordinal(), 40_000, 2000);
    }

    private void runModel(Schema schema, long seed, int operations, int targetSize) {
        try (var holder = new ArenaHolder()) {
            boolean[] closed = {false};
            FakeOwner owner = new FakeOwner(closed);
            DenseRows<DenseChunk> rows = new DenseRows<>(schema, holder.arena, (r, b) -> new DenseChunk(owner, r, b),
                    Integer.MAX_VALUE);
            try {
                model(rows, schema, seed, operations, targetSize);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("DenseRows model failed; seed=0x" + Long.toHexString(seed) + " schema="
                        + schema, e);
            }
        }
    }

    private static void model(DenseRows<DenseChunk> rows, Schema schema, long seed, int operations, int targetSize) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Field> fields = schema.fields();
        List<long[]> model = new ArrayList<>();
        assertEquals(0, rows.blockCount(), "no memory before the first row");
        for (int op = 0; op < operations; op++) {
            int kind = random.nextInt(100);
            boolean grow = model.size() < targetSize;
            if (kind < (grow ? 45 : 30)) {
                int row = rows.addRow();
                assertEquals(model.size(), row, "addRow returns the old size");
                assertArrayEquals(new long[fields.size()], read(rows, row, fields), "a new row is all zero");
                model.add(new long[fields.size()]);
            } else if (kind < 75 && !model.isEmpty()) {
                int row = random.nextInt(model.size());
                int last = model.size() - 1;
                int moved = rows.removeRow(row);
                assertEquals(row == last ? -1 : last, moved, "removeRow reports the moved row");
                model.set(row, model.get(last));
                model.removeLast();
            } else if (kind < 85 && !model.isEmpty()) {
                int a = random.nextInt(model.size());
                int b = random.nextInt(model.size());
                rows.swapRows(a, b);
                long[] x = model.get(a);
                model.set(a, model.get(b));
                model.set(b, x);
            } else if (kind < 99 && !model.isEmpty()) {
                int row = random.nextInt(model.size());
                int f = random.nextInt(fields.size());
                long bits = Values.normalize(fields.get(f).type(), random.nextLong());
                Values.set(rows, row, fields.get(f), bits);
                model.get(row)[f] = bits;
            } else if (random.nextInt(20) == 0) {
                rows.clear();
                model.clear();
            }
            assertEquals(model.size(), rows.size());
            if (op % 997 == 0 || op == operations - 1) {
                audit(rows, model, fields);
            }
        }
    }

    /** Every row matches the model, the tail is zero, and the chunk views show exactly the rows. */
    private static void audit(DenseRows<DenseChunk> rows, List<long[]> model, List<Field> fields) {
        for (int r = 0; r < model.size(); r++) {
            assertArrayEquals(model.get(r), read(rows, r, fields), "row " + r);
        }
        assertTrue(rows.tailIsZero(), "rows past size are zero");
        int per = rows.rowsPerBlock();
        assertEquals((model.size() + per - 1) / per, rows.chunkCount());
        int seen = 0;
        for (int b = 0; b < rows.chunkCount(); b++) {
            Chunk chunk = rows.chunk(b);
            assertEquals(rows.rowsInBlock(b), chunk.liveCount());
            if (b < rows.chunkCount() - 1) {
                assertEquals(per, chunk.liveCount(), "every chunk but the last is full");
            }
            for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                assertEquals(1000 + seen, chunk.handle(s));
                for (int f = 0; f < fields.size(); f++) {
                    assertEquals(model.get(seen)[f], Values.get(chunk, s, fields.get(f)));
                }
                seen++;
            }
        }
        assertEquals(model.size(), seen, "chunks visit exactly the rows");
        assertEquals(rows.blockCount() * (long) rows.schema().blockBytes(), rows.nativeBytes());
    }

    @Test
    void chunkView_liveBitsAndBounds() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        try (var holder = new ArenaHolder()) {
            boolean[] closed = {false};
            FakeOwner owner = new FakeOwner(closed);
            DenseRows<DenseChunk> rows = new DenseRows<>(schema, holder.arena, (r, b) -> new DenseChunk(owner, r, b),
                    Integer.MAX_VALUE);
            for (int i = 0; i < 512 + 70; i++) {
                rows.addRow();
            }
            Chunk full = rows.chunk(0);
            Chunk last = rows.chunk(1);
            assertEquals(-1L, full.liveBits(7));
            assertEquals(-1L, last.liveBits(0));
            assertEquals((1L << 6) - 1, last.liveBits(1));
            assertEquals(0L, last.liveBits(2));
            assertEquals(69, last.nextLive(69));
            assertEquals(-1, last.nextLive(70));
            assertEquals(-1, last.nextLive(512));
            assertTrue(last.isLive(69));
            assertFalse(last.isLive(70));
            FloatField t = schema.floatField("t");
            assertThrows(IllegalArgumentException.class, () -> last.get(70, t));
            assertThrows(IndexOutOfBoundsException.class, () -> last.get(512, t));
            last.set(69, t, 2.5f);
            assertEquals(2.5f, FieldAccess.get(t, rows.blockOf(512 + 69), rows.slotOf(512 + 69)));
            assertEquals(512L * Float.BYTES, last.column(t).byteSize());
            rows.forget();
            closed[0] = true;
            assertThrows(IllegalStateException.class, () -> last.get(0, t));
            assertThrows(IllegalStateException.class, last::liveCount);
            assertThrows(IllegalStateException.class, last::records);
        }
    }

    @Test
    void addRow_atMaxRows_throwsAndChangesNothing() {
        Schema schema = TestSchemas.mixed(RecordLayout.AOS);
        try (var holder = new ArenaHolder()) {
            DenseRows<DenseChunk> rows = new DenseRows<>(schema, holder.arena, null, 3);
            rows.addRow();
            rows.addRow();
            rows.addRow();
            assertThrows(CapacityExceededException.class, rows::addRow);
            assertEquals(3, rows.size());
            assertEquals(1, rows.blockCount());
        }
    }

    /** A BlockArena with an owner object that the test keeps reachable, closed at the end. */
    private static final class ArenaHolder implements AutoCloseable {
        final BlockArena arena = new BlockArena(this, dev.bulkdata.storage.internal.tags.TagRegistry.register("dense-rows-test", HandleLayout.DEFAULT));

        @Override
        public void close() {
            arena.close();
        }
    }
}
