package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model test of change versions: random operations on a table (add, addAll, remove,
 * removeAll, cancelAdd, clear, set by handle, set by slot, writable and read-only views,
 * defragment, markVersion) while a model predicts every chunk's structure version and every
 * field version exactly, after every step, for both table kinds and both layouts. The model
 * knows where each record is (a BulkTable's slot, a PackedTable's row, kept by swap-and-pop and
 * by replaying defragment's insertion sort), so it predicts which chunks a swap-and-pop or a
 * defragment swap touches, including a record moving from the last chunk into another. Every
 * few steps a filtered pass ({@code forEachChunk}, {@code iterate}, {@code forEach} with a
 * random {@link ChangeFilter} and a random earlier version) must visit exactly the chunks the
 * model selects.
 *
 * <p>The seed is {@value #DEFAULT_SEED} unless {@code -Dbulkdata.seed=...} says otherwise; it is
 * printed, and a failure names it with the configuration and step.
 */
class ChangeVersionModelTest {
    static final long DEFAULT_SEED = 0xC4A9_6E5L;
    static final long SEED = Seeds.fromProperty(DEFAULT_SEED);
    static final int STEPS = 6_000;
    static final int MAX_RECORDS = 200;

    static Stream<Arguments> configs() {
        return Stream.of(
                Arguments.of(TableKind.BULK, RecordLayout.SOA), Arguments.of(TableKind.BULK, RecordLayout.AOS),
                Arguments.of(TableKind.PACKED, RecordLayout.SOA), Arguments.of(TableKind.PACKED, RecordLayout.AOS));
    }

    /** The model: where each live record is, and every chunk's predicted stamps. */
    static final class Model {
        final TableKind kind;
        final int shift;
        final int fields;
        final HandleLayout layout;
        int current = 1;
        /** Per chunk: [structure, field 0, field 1, ...]. */
        final Map<Integer, int[]> stamps = new HashMap<>();
        /** PackedTable: the handle in each row. BulkTable: live handles in no order. */
        final List<Long> rows = new ArrayList<>();
        /** Versions markVersion returned, for filters. */
        final List<Integer> marks = new ArrayList<>();

        Model(TableKind kind, Schema schema, HandleLayout layout) {
            this.kind = kind;
            this.shift = Integer.numberOfTrailingZeros(schema.slotsPerBlock());
            this.fields = schema.fields().size();
            this.layout = layout;
        }

        int[] chunk(int c) {
            return stamps.computeIfAbsent(c, k -> new int[fields + 1]);
        }

        /** The chunk of a live record. */
        int chunkOf(long h) {
            int position = kind == TableKind.BULK ? (int) layout.slot(h) : rows.indexOf(h);
            assertTrue(position >= 0, "model: record not found");
            return position >>> shift;
        }

        void stampStructure(int c) {
            chunk(c)[0] = current;
        }

        void stampField(int c, int f) {
            chunk(c)[1 + f] = current;
        }

        void stampFields(int c) {
            Arrays.fill(chunk(c), 1, fields + 1, current);
        }

        void stampAll(int c) {
            Arrays.fill(chunk(c), current);
        }

        /** An add returned {@code h}. */
        void added(long h) {
            rows.add(h);
            stampAll(kind == TableKind.BULK ? (int) layout.slot(h) >>> shift : (rows.size() - 1) >>> shift);
        }

        /** A record leaves (remove, removeAll in slot order, cancelAdd). */
        void removed(long h) {
            if (kind == TableKind.BULK) {
                stampStructure((int) layout.slot(h) >>> shift);
                rows.remove(h);
                return;
            }
            int row = rows.indexOf(h);
            int last = rows.size() - 1;
            stampStructure(row >>> shift);
            if (row != last) {
                stampFields(row >>> shift);
                stampStructure(last >>> shift);
                rows.set(row, rows.get(last));
            }
            rows.remove(last);
        }

        /** Chunks that hold records. */
        BitSet liveChunks() {
            BitSet chunks = new BitSet();
            for (int i = 0; i < rows.size(); i++) {
                chunks.set((kind == TableKind.BULK ? (int) layout.slot(rows.get(i)) : i) >>> shift);
            }
            return chunks;
        }

        void cleared() {
            liveChunks().stream().forEach(this::stampStructure);
            rows.clear();
        }

        boolean newer(int stamp, int since) {
            return Integer.compareUnsigned(current - since, ChangeVersions.WINDOW) > 0 || stamp - since > 0;
        }

        boolean selects(int c, int[] filterFields, boolean structure, int since) {
            int[] s = chunk(c);
            if (structure && newer(s[0], since)) {
                return true;
            }
            for (int f : filterFields) {
                if (newer(s[1 + f], since)) {
                    return true;
                }
            }
            return false;
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configs")
    void versionsFollowTheModel(TableKind kind, RecordLayout layoutKind) {
        long seed = SEED ^ (kind.ordinal() * 31L + layoutKind.ordinal());
        System.out.printf("[ChangeVersionModelTest] %s %s seed=%d (replay with -Dbulkdata.seed=%d)%n",
                kind, layoutKind, seed, SEED);
        SplittableRandom random = new SplittableRandom(seed);
        Schema schema = TestSchemas.mixed(layoutKind);
        List<Field> fields = schema.fields();
        try (Table table = kind.of(schema)) {
            AbstractTable impl = (AbstractTable) table;
            Model model = new Model(kind, schema, table.handleLayout());
            int step = 0;
            String op = "";
            try {
                for (; step < STEPS; step++) {
                    int size = model.rows.size();
                    int choice = random.nextInt(100);
                    if (choice < 20 && size < MAX_RECORDS || size == 0) {
                        op = "add";
                        model.added(table.add());
                    } else if (choice < 24 && size < MAX_RECORDS) {
                        op = "addAll";
                        long[] out = new long[1 + random.nextInt(12)];
                        table.addAll(out);
                        for (long h : out) {
                            model.added(h);
                        }
                    } else if (choice < 36) {
                        op = "remove";
                        long h = model.rows.get(random.nextInt(size));
                        table.remove(h);
                        model.removed(h);
                    } else if (choice < 40) {
                        op = "removeAll";
                        long[] batch = pick(random, model.rows, 1 + random.nextInt(Math.min(size, 10)));
                        table.removeAll(batch);
                        // The table releases a batch in slot order.
                        long[] sorted = Arrays.stream(batch).boxed()
                                .sorted((a, b) -> Long.compare(model.layout.slot(a), model.layout.slot(b)))
                                .mapToLong(Long::longValue).toArray();
                        for (long h : sorted) {
                            model.removed(h);
                        }
                    } else if (choice < 43) {
                        op = "add+cancelAdd";
                        long h = table.add();
                        model.added(h);
                        table.cancelAdd(h);
                        model.removed(h);
                    } else if (choice < 44) {
                        op = "clear";
                        table.clear();
                        model.cleared();
                    } else if (choice < 60) {
                        op = "set by handle";
                        long h = model.rows.get(random.nextInt(size));
                        int f = random.nextInt(fields.size());
                        Values.set(table, h, fields.get(f), random.nextLong());
                        model.stampField(model.chunkOf(h), f);
                    } else if (choice < 70) {
                        op = "set by slot / views";
                        chunkWrites(random, table, model, fields, layoutKind);
                    } else if (choice < 74 && kind == TableKind.PACKED) {
                        op = "defragment";
                        defragment(random, (PackedTable) table, model, fields.get(random.nextInt(fields.size())));
                    } else if (choice < 84) {
                        op = "markVersion";
                        int v = table.markVersion();
                        assertEquals(model.current, v, "markVersion returns the current version");
                        model.marks.add(v);
                        model.current++;
                    } else {
                        op = "filtered pass";
                        filteredPass(random, table, model, fields);
                    }
                    check(impl, model);
                }
            } catch (Throwable e) {
                throw new AssertionError(kind + " " + layoutKind + " seed=" + SEED + " step=" + step + " op=" + op
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** Every chunk of the table carries the stamps the model predicts. */
    private static void check(AbstractTable table, Model model) {
        ChangeVersions versions = table.versions;
        assertEquals(model.current, versions.current, "current version");
        int chunks = table.chunkCount();
        for (int c = 0; c < chunks; c++) {
            int[] expected = model.chunk(c);
            assertEquals(expected[0], versions.structure(c), "structure version of chunk " + c);
            for (int f = 0; f < model.fields; f++) {
                if (expected[1 + f] != versions.field(c, f)) {
                    assertEquals(expected[1 + f], versions.field(c, f), "version of field " + f + " of chunk " + c);
                }
            }
        }
    }

    private static long[] pick(SplittableRandom random, List<Long> live, int count) {
        List<Long> copy = new ArrayList<>(live);
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = copy.remove(random.nextInt(copy.size()));
        }
        return out;
    }

    /** Writes through chunks: set by slot, writable views (which stamp), read-only views (which do not, and throw on a write). */
    private static void chunkWrites(SplittableRandom random, Table table, Model model, List<Field> fields, RecordLayout layout) {
        try (ChunkIteration chunks = table.iterate()) {
            Chunk chunk = chunks.chunk(random.nextInt(chunks.count()));
            int c = chunk.index();
            int f = random.nextInt(fields.size());
            Field field = fields.get(f);
            switch (random.nextInt(5)) {
                case 0 -> {
                    int slot = chunk.nextLive(0);
                    if (slot >= 0) {
                        Values.set(chunk, slot, field, random.nextLong());
                        model.stampField(c, f);
                    }
                }
                case 1 -> {
                    if (layout == RecordLayout.SOA) {
                        chunk.writableColumn(field);
                        model.stampField(c, f);
                    }
                }
                case 2 -> {
                    chunk.writableRecords();
                    model.stampFields(c);
                }
                case 3 -> {
                    MemorySegment read = chunk.records();
                    assertTrue(read.isReadOnly());
                    assertThrows(IllegalArgumentException.class, () -> read.set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
                }
                default -> {
                    if (layout == RecordLayout.SOA) {
                        MemorySegment read = chunk.column(field);
                        assertTrue(read.isReadOnly());
                        assertThrows(IllegalArgumentException.class,
                                () -> read.set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
                    }
                }
            }
        }
    }

    /** A defragment pass with a fresh order (never the no-op), replayed on the model's rows swap by swap. */
    private static void defragment(SplittableRandom random, PackedTable table, Model model, Field key) {
        long budget = random.nextInt(40);
        Map<Long, Long> keys = new HashMap<>();
        for (long h : model.rows) {
            keys.put(h, Values.get(table, h, key));
        }
        RecordOrder order = (a, b) -> Long.compare(Values.get(table, a, key), Values.get(table, b, key));
        long swaps = table.defragment(budget, order);
        long modelSwaps = 0;
        List<Long> rows = model.rows;
        sort:
        for (int i = 1; i < rows.size(); i++) {
            for (int j = i; j > 0 && keys.get(rows.get(j - 1)) > keys.get(rows.get(j)); j--) {
                if (modelSwaps == budget) {
                    break sort;
                }
                long a = rows.get(j - 1);
                rows.set(j - 1, rows.get(j));
                rows.set(j, a);
                model.stampAll((j - 1) >>> model.shift);
                model.stampAll(j >>> model.shift);
                modelSwaps++;
            }
        }
        assertEquals(modelSwaps, swaps, "defragment swaps");
        List<Long> order2 = new ArrayList<>();
        table.forEach((chunk, slot) -> order2.add(chunk.handle(slot)));
        assertEquals(rows, order2, "rows after defragment");
    }

    /** A random filter and earlier version: every kind of filtered pass visits exactly the chunks the model selects. */
    private static void filteredPass(SplittableRandom random, Table table, Model model, List<Field> fields) {
        int since = model.marks.isEmpty() || random.nextInt(8) == 0
                ? random.nextInt() : model.marks.get(model.marks.size() - 1 - random.nextInt(Math.min(4, model.marks.size())));
        int count = random.nextInt(3);
        boolean structure = count == 0 || random.nextBoolean();
        int[] chosen = new int[count];
        Field[] chosenFields = new Field[count];
        for (int i = 0; i < count; i++) {
            chosen[i] = random.nextInt(fields.size());
            chosenFields[i] = fields.get(chosen[i]);
        }
        ChangeFilter filter = count == 0 ? ChangeFilter.structure()
                : structure ? ChangeFilter.of(chosenFields).orStructure() : ChangeFilter.of(chosenFields);
        BitSet expected = new BitSet();
        int chunks = ((AbstractTable) table).chunkCount();
        for (int c = 0; c < chunks; c++) {
            if (model.selects(c, chosen, structure, since)) {
                expected.set(c);
            }
        }
        BitSet visited = new BitSet();
        table.forEachChunk(filter, since, chunk -> {
            visited.set(chunk.index());
            assertEquals(true, filter.test(chunk, since));
            for (int i = 0; i < count; i++) {
                assertEquals(model.newer(model.chunk(chunk.index())[1 + chosen[i]], since),
                        chunk.changedSince(chosenFields[i], since));
            }
            assertEquals(model.newer(model.chunk(chunk.index())[0], since), chunk.structureChangedSince(since));
        });
        assertEquals(expected, visited, "forEachChunk(" + filter + ", " + since + ")");
        BitSet iterated = new BitSet();
        try (ChunkIteration it = table.iterate(filter, since)) {
            for (Chunk chunk : it) {
                iterated.set(chunk.index());
            }
            for (int c = 0; c < it.count(); c++) {
                assertEquals(expected.get(c), it.selects(c), "selects(" + c + ")");
            }
        }
        assertEquals(expected, iterated, "iterate(" + filter + ", " + since + ")");
        BitSet records = new BitSet();
        int[] visits = new int[1];
        table.forEach(filter, since, (chunk, slot) -> {
            records.set(chunk.index());
            visits[0]++;
        });
        BitSet live = new BitSet();
        live.or(expected);
        BitSet liveChunks = new BitSet();
        try (ChunkIteration it = table.iterate()) {
            int expectedVisits = 0;
            for (Chunk chunk : it) {
                if (chunk.liveCount() > 0) {
                    liveChunks.set(chunk.index());
                }
                if (expected.get(chunk.index())) {
                    expectedVisits += chunk.liveCount();
                }
            }
            assertEquals(expectedVisits, visits[0], "records visited by forEach(filter)");
        }
        live.and(liveChunks);
        assertEquals(live, records, "forEach(" + filter + ", " + since + ")");
    }

    /**
     * Before the first mark a table skips its stamps (each would be a no-op): the stamps stay
     * at 1 whatever is written, and the first mark sees exactly the writes made after it, in
     * both table kinds.
     */
    @Test
    void writesBeforeTheFirstMarkStampNothingAndTheFirstMarkIsExact() {
        for (Table table : new Table[] {BulkTable.of(TestSchemas.particles(RecordLayout.SOA)),
                PackedTable.of(TestSchemas.particles(RecordLayout.AOS))}) {
            try (table) {
                FloatField px = table.schema().floatField("px");
                FloatField py = table.schema().floatField("py");
                long[] handles = new long[3 * table.schema().slotsPerBlock()];
                table.addAll(handles);
                for (long h : handles) {
                    table.set(h, px, 1f);
                }
                table.remove(handles[0]);
                ChangeVersions versions = ((AbstractTable) table).versions;
                int chunks = ((AbstractTable) table).chunkCount();
                for (int c = 0; c < chunks; c++) {
                    assertEquals(1, versions.structure(c), "structure stamp of chunk " + c);
                    assertEquals(1, versions.field(c, px.index()), "px stamp of chunk " + c);
                }
                int v = table.markVersion();
                assertEquals(1, v);
                long last = handles[handles.length - 1];
                table.set(last, py, 2f);
                int[] changed = new int[2];
                table.forEachChunk(chunk -> {
                    boolean hasLast = false;
                    for (int s = 0; s < table.schema().slotsPerBlock(); s++) {
                        hasLast |= chunk.isLive(s) && chunk.handle(s) == last;
                    }
                    assertEquals(hasLast, chunk.changedSince(py, v), "py of the chunk holding the set record only");
                    assertFalse(chunk.changedSince(px, v), "px was written before the mark only");
                    assertFalse(chunk.structureChangedSince(v), "no add or remove after the mark");
                    changed[0] += chunk.changedSince(py, v) ? 1 : 0;
                    changed[1]++;
                });
                assertEquals(1, changed[0]);
                assertEquals(chunks, changed[1]);
            }
        }
    }

    @Test
    void aVersionOutsideTheWindowCountsEveryChunkAsChanged() {
        try (BulkTable table = BulkTable.of(TestSchemas.particles(RecordLayout.SOA))) {
            long h = table.add();
            int v = table.markVersion();
            FloatField px = table.schema().floatField("px");
            table.forEachChunk(chunk -> {
                assertFalse(chunk.changedSince(px, v));
                assertFalse(chunk.structureChangedSince(v));
                assertTrue(chunk.changedSince(px, v - 1));
                assertTrue(chunk.changedSince(px, v + 5), "a version from the future");
            });
            ChangeVersions versions = ((AbstractTable) table).versions;
            versions.setCurrentForTest(v + ChangeVersions.WINDOW);
            table.forEachChunk(chunk -> assertFalse(chunk.changedSince(px, v), "exact at the window's edge"));
            versions.setCurrentForTest(v + ChangeVersions.WINDOW + 1);
            table.forEachChunk(chunk -> assertTrue(chunk.changedSince(px, v), "older than the window"));
            table.set(h, px, 1f);
            assertTrue(versions.field(0, px.index()) == versions.current);
        }
    }

    @Test
    void marksPastTheClampKeepRecentVersionsExact() {
        try (BulkTable table = BulkTable.of(TestSchemas.particles(RecordLayout.SOA))) {
            long h = table.add();
            FloatField px = table.schema().floatField("px");
            FloatField py = table.schema().floatField("py");
            ChangeVersions versions = ((AbstractTable) table).versions;
            // Just before a clamp: the chunk's stamps are 1, far more than a window behind.
            versions.setCurrentForTest((1 << 30) + (1 << 29) - 1);
            table.set(h, py, 2f);                      // py stamped recently
            int recent = table.markVersion();          // crosses a multiple of 2^29: clamp
            int after = table.markVersion();
            assertEquals((1 << 30) + (1 << 29) - 1, recent);
            assertEquals(versions.current - 1 - ChangeVersions.WINDOW, versions.field(0, px.index()),
                    "an old stamp is raised to the window's floor");
            table.forEachChunk(chunk -> {
                assertFalse(chunk.changedSince(px, recent));
                assertFalse(chunk.changedSince(py, recent));
                assertTrue(chunk.changedSince(py, recent - 1));
                assertFalse(chunk.changedSince(px, after));
            });
        }
    }

    @Test
    void loadedTableStartsAtVersionOne(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        FloatField px = schema.floatField("px");
        java.nio.file.Path file = dir.resolve("t.bulk");
        try (BulkTable table = BulkTable.builder(schema).tag(4090).build()) {
            long h = table.add();
            for (int i = 0; i < 5; i++) {
                table.markVersion();
            }
            table.set(h, px, 1f);
            Snapshots.save(table, file);
        }
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, schema)) {
            ChangeVersions versions = ((AbstractTable) loaded).versions;
            assertEquals(1, versions.current);
            assertEquals(1, versions.structure(0));
            assertEquals(1, versions.field(0, px.index()));
            assertEquals(1, loaded.markVersion());
            loaded.forEachChunk(chunk -> {
                assertFalse(chunk.changedSince(px, 1));
                assertTrue(chunk.changedSince(px, 0));
            });
        }
    }

    @Test
    void componentChunksKeepNoVersions() {
        try (BulkTable entities = BulkTable.of(TestSchemas.particles(RecordLayout.SOA));
             ComponentTable parts = ComponentTable.of(entities, TestSchemas.particles(RecordLayout.SOA))) {
            long e = entities.add();
            parts.add(e);
            FloatField px = parts.schema().floatField("px");
            parts.forEachChunk(chunk -> {
                chunk.set(0, px, 1f);
                chunk.writableColumn(px);
                assertTrue(chunk.column(px).isReadOnly());
                assertThrows(UnsupportedOperationException.class, () -> chunk.changedSince(px, 0));
                assertThrows(UnsupportedOperationException.class, () -> chunk.structureChangedSince(0));
            });
            assertEquals(1f, parts.get(e, px));
        }
    }

    @Test
    void filterMistakesAreRejected() {
        Schema a = TestSchemas.particles(RecordLayout.SOA);
        Schema b = TestSchemas.particles(RecordLayout.SOA);
        assertThrows(IllegalArgumentException.class, ChangeFilter::of);
        assertThrows(IllegalArgumentException.class, () -> ChangeFilter.of(a.field("px"), b.field("py")));
        assertThrows(IllegalArgumentException.class, () -> ChangeFilter.of((Field) null));
        try (BulkTable table = BulkTable.of(a)) {
            table.add();
            ChangeFilter other = ChangeFilter.of(b.field("px"));
            assertThrows(IllegalArgumentException.class, () -> table.forEachChunk(other, 0, c -> { }));
            assertThrows(IllegalArgumentException.class, () -> table.forEach(other, 0, (c, s) -> { }));
            assertThrows(IllegalArgumentException.class, () -> table.iterate(other, 0));
            assertThrows(IllegalArgumentException.class, () -> table.iterate(null, 0));
            table.add();   // no iteration was left open by the refused calls
            assertEquals(2, table.size());
            assertEquals("ChangeFilter[px or structure]", ChangeFilter.of(a.field("px")).orStructure().toString());
        }
    }
}
