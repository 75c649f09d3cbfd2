package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotEntries;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Table#reset()} and the generation budget of a table emptied every frame
 * (docs/tables-and-handles.md, "Generation budget"): a soak of 2^21 frames of clear-and-refill
 * and of reset-and-refill on a small table whose generations run out every 2,048 frames, and a
 * small layout driven to retirement, checked against the documented formula, {@code stats()}
 * and the {@code dev.bulkdata.SlotRetirement} event.
 */
class ResetTest {
    private static final Schema SCHEMA = Schema.builder("reset-test").add(FieldType.FLOAT, "x").add(FieldType.INT, "n")
            .build();
    private static final FloatField X = SCHEMA.floatField("x");

    /** 2^21 frames with 2^11 generations and 2^11 epochs: the epoch moves on 1,024 times. */
    private static final HandleLayout SOAK = HandleLayout.of(4, 11, 11);
    private static final int FRAMES = 1 << 21;
    private static final int RECORDS = 5;

    @TempDir
    Path dir;

    enum Empty { CLEAR, RESET }

    private static void empty(Table t, Empty how) {
        if (how == Empty.CLEAR) {
            t.clear();
        } else {
            t.reset();
        }
    }

    private static int floor(Table t) {
        return ((AbstractTable) t).lease.floor;
    }

    /**
     * The soak of point 1: every frame the table is emptied and refilled with the same number of
     * records; its blocks, capacity and retired count never change, the refill takes slots 1 to
     * 5 again, and old handles (the last frame's, and one from a random earlier frame) are never
     * accepted, not even after the generations and epochs wrapped past them.
     */
    @ParameterizedTest
    @EnumSource(Empty.class)
    void soak_2pow21FramesOfEmptyingAndRefilling_neverRetireGrowOrAcceptAnOldHandle(Empty how) {
        for (TableKind kind : TableKind.values()) {
            try (Table t = kind.build(SCHEMA, SOAK, 15)) {
                long budget = (1L << SOAK.epochBits()) * ((1L << SOAK.generationBits()) - floor(t));
                assertTrue(budget > FRAMES, "the soak runs within the documented budget: " + budget);
                long[] now = new long[RECORDS];
                long[] before = new long[RECORDS];
                long[] old = new long[256];        // handles of earlier frames, a random one replaced each frame
                t.addAll(now, 0, RECORDS);
                System.arraycopy(now, 0, old, 0, RECORDS);
                int blocks = t.stats().blocks();
                int capacity = t.capacity();
                SplittableRandom rng = new SplittableRandom(42);
                int accepted = 0;
                int epochsSeen = 0;
                for (int frame = 1; frame < FRAMES; frame++) {
                    System.arraycopy(now, 0, before, 0, RECORDS);
                    empty(t, how);
                    t.addAll(now, 0, RECORDS);
                    t.set(now[0], X, frame);
                    for (int i = 0; i < RECORDS; i++) {
                        if (t.contains(before[i])) {
                            accepted++;
                        }
                    }
                    long sample = old[rng.nextInt(old.length)];
                    if (sample != 0 && t.contains(sample)) {
                        accepted++;
                    }
                    old[rng.nextInt(old.length)] = before[rng.nextInt(RECORDS)];
                    TableStats s = t.stats();
                    if (s.blocks() != blocks || s.retired() != 0 || t.capacity() != capacity || s.live() != RECORDS) {
                        throw new AssertionError("frame " + frame + ": " + s + ", capacity " + t.capacity()
                                + "; expected " + blocks + " blocks, capacity " + capacity + ", none retired");
                    }
                    if (SOAK.slot(now[RECORDS - 1]) != RECORDS) {
                        throw new AssertionError("frame " + frame + ": the refill took slot "
                                + SOAK.slot(now[RECORDS - 1]) + " for its last record, not " + RECORDS);
                    }
                    if (SOAK.epoch(now[0]) != SOAK.epoch(before[0])) {
                        epochsSeen++;
                    }
                }
                assertEquals(0, accepted, kind + " " + how + ": handles of earlier frames accepted");
                assertEquals((FRAMES - 1) / ((1 << SOAK.generationBits()) - floor(t)), epochsSeen, kind + " " + how
                        + ": the epoch moves on once every 2^generationBits - floor frames (floor "
                        + floor(t) + ")");
                assertEquals(FRAMES - 1, t.get(now[0], X), 0f);
            }
        }
    }

    /**
     * A small layout, 2 generation bits and 2 epoch bits, driven past its budget: the first
     * retirement comes at exactly the emptying the docs' formula names, {@code 2^epochBits *
     * (2^generationBits - floor)}, with every live slot at once; {@code stats().retired()} and
     * the {@code dev.bulkdata.SlotRetirement} event report it; the next refill then grows into
     * fresh slots.
     */
    @ParameterizedTest
    @EnumSource(Empty.class)
    void smallLayoutDrivenToRetirement_retiresAtTheDocumentedFrame_statsAndEventReportIt(Empty how) throws Exception {
        HandleLayout tiny = HandleLayout.of(8, 2, 2);
        try (Recording recording = new Recording()) {
            recording.enable("dev.bulkdata.SlotRetirement");
            recording.start();
            int tag;
            long firstRetirement;
            try (Table t = TableKind.BULK.build(SCHEMA, tiny, 255)) {
                tag = ((AbstractTable) t).slots.tag();
                firstRetirement = (1L << tiny.epochBits()) * ((1L << tiny.generationBits()) - floor(t));
                long[] h = new long[3];
                t.addAll(h, 0, 3);
                long emptied = 0;
                while (t.stats().retired() == 0) {
                    empty(t, how);
                    emptied++;
                    assertTrue(emptied <= firstRetirement, "no retirement by emptying " + firstRetirement);
                    if (t.stats().retired() == 0) {
                        t.addAll(h, 0, 3);
                        assertEquals(3, tiny.slot(h[2]), "slots 1..3 reused");
                    }
                }
                assertEquals(firstRetirement, emptied, "the first retirement comes at 2^e * (2^g - floor)");
                assertEquals(3, t.stats().retired());
                t.addAll(h, 0, 3);
                assertEquals(6, tiny.slot(h[2]), "retired slots are not reused: the refill opens slots 4..6");
                assertEquals(3, t.stats().retired());
            }
            Path file = dir.resolve("retire.jfr");
            recording.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals("dev.bulkdata.SlotRetirement")
                            && e.getInt("tag") == tag)
                    .toList();
            assertEquals(1, events.size(), "one retirement event: " + events);
            RecordedEvent e = events.get(0);
            assertEquals(3, e.getInt("retired"));
            assertEquals(3, e.getInt("totalRetired"));
            assertEquals(how.name().toLowerCase(), e.getString("operation"));
            assertEquals(tiny.maxEpoch(), e.getInt("epoch"));
            assertEquals("reset-test", e.getString("table"));
        }
    }

    /** Without epoch bits (the default layout) a per-frame table retires after 2^generationBits - floor frames: the docs' formula with e = 0. */
    @Test
    void withoutEpochBits_theBudgetIsTheGenerationsAlone() {
        HandleLayout noEpoch = HandleLayout.of(8, 3);
        try (Table t = TableKind.PACKED.build(SCHEMA, noEpoch, 255)) {
            long[] h = new long[2];
            t.addAll(h, 0, 2);
            long emptied = 0;
            while (t.stats().retired() == 0) {
                t.reset();
                emptied++;
                t.addAll(h, 0, 2);
            }
            assertEquals((1L << 3) - floor(t), emptied);
            assertEquals(2, t.stats().retired());
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void reset_makesEveryHandleStale_keepsBlocksAndTag_andRefillsFromSlotOne(TableKind kind) {
        try (Table t = kind.build(SCHEMA, HandleLayout.DEFAULT, Integer.MAX_VALUE)) {
            long[] h = new long[1000];
            t.addAll(h, 0, h.length);
            t.remove(h[10]);
            t.set(h[20], X, 7f);
            int version = t.markVersion();
            TableStats before = t.stats();
            t.reset();
            TableStats after = t.stats();
            assertEquals(0, t.size());
            assertEquals(before.blocks(), after.blocks());
            assertEquals(before.capacity(), after.capacity());
            assertEquals(0, after.retired());
            for (long old : h) {
                assertFalse(t.contains(old));
            }
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> t.get(h[20], X));
            assertEquals(InvalidHandleException.Reason.STALE, e.reason());
            assertEquals(InvalidHandleException.Reason.STALE,
                    assertThrows(InvalidHandleException.class, () -> t.get(h[10], X)).reason());
            long again = t.add();
            assertEquals(1, HandleLayout.DEFAULT.slot(again), "the refill starts at slot 1");
            assertEquals(0f, t.get(again, X), "a reused record reads zero");
            assertEquals(HandleLayout.DEFAULT.tag(h[0]), HandleLayout.DEFAULT.tag(again), "the tag is kept");
            assertNotEquals(h[0], again);
            // Change versions: the structure of the block that held the records moved on at the reset.
            int afterReset = t.markVersion();
            int[] visited = {0, 0};
            t.forEachChunk(ChangeFilter.structure(), version, chunk -> visited[0]++);
            t.forEachChunk(ChangeFilter.structure(), afterReset, chunk -> visited[1]++);
            assertEquals(1, visited[0], "the block's structure changed since before the reset");
            assertEquals(0, visited[1], "and not since the mark after it");
        }
    }

    /** The table kinds and reuse orders whose reset {@link #reset_writesNoSlotWord_andSavesThePendingSlotsAsFree} checks. */
    enum Kind {
        FIFO, LIFO, SWEEP, PACKED;

        Table build(int maxCapacity) {
            if (this == PACKED) {
                return PackedTable.builder(SCHEMA).maxCapacity(maxCapacity).handleLayout(HandleLayout.DEFAULT).build();
            }
            return BulkTable.builder(SCHEMA).reuseOrder(ReuseOrder.valueOf(name())).maxCapacity(maxCapacity)
                    .handleLayout(HandleLayout.DEFAULT).build();
        }
    }

    /**
     * O(blocks): a reset of a table of 20,000 records writes no slot's meta word (every word is
     * as it was, the old live ones included), yet every old handle is STALE; the adds after it
     * take slots 1, 2, 3... at one generation, writing only their own words; a snapshot taken
     * then saves the slots not taken as free, and the loaded table takes the same slots next,
     * with the same generations, as the one saved.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void reset_writesNoSlotWord_andSavesThePendingSlotsAsFree(Kind kind) throws Exception {
        long seed = Seeds.seed("ResetTest.reset_writesNoSlotWord " + kind, 0x5E7_0B1CL + kind.ordinal());
        SplittableRandom random = new SplittableRandom(seed);
        int n = 20_000;
        try (Table t = kind.build(100_000)) {
            SlotMap slotMap = ((AbstractTable) t).slots;
            long[] h = new long[n];
            t.addAll(h, 0, n);
            for (int i = 0; i < 500; i++) {
                int at = random.nextInt(n);
                if (t.contains(h[at])) {
                    t.remove(h[at]);
                }
            }
            int limit = slotMap.limit;
            int[] words = new int[limit];
            for (int slot = 1; slot < limit; slot++) {
                words[slot] = slotMap.meta(slot);
            }
            int top = slotMap.top;
            t.reset();
            for (int slot = 1; slot < limit; slot++) {
                assertEquals(words[slot], slotMap.meta(slot), "slot " + slot + "'s word was written by the reset, " + Seeds.replay(seed));
            }
            for (int i = 0; i < 200; i++) {
                long old = h[random.nextInt(n)];
                assertFalse(t.contains(old));
                assertEquals(InvalidHandleException.Reason.STALE,
                        assertThrows(InvalidHandleException.class, () -> t.get(old, X)).reason(), Seeds.replay(seed));
            }
            TableAudit.check(t);
            int k = 1 + random.nextInt(3 * n / 4);
            long[] again = new long[k];
            if (random.nextBoolean()) {
                t.addAll(again, 0, k);
            } else {
                for (int i = 0; i < k; i++) {
                    again[i] = t.add();
                }
            }
            for (int i = 0; i < k; i++) {
                assertEquals(i + 1, HandleLayout.DEFAULT.slot(again[i]), "the refill's slots, " + Seeds.replay(seed));
                assertEquals(top + 1, HandleLayout.DEFAULT.generation(again[i]), "the refill's generation");
            }
            for (int slot = k + 1; slot < limit; slot++) {
                assertEquals(words[slot], slotMap.meta(slot), "slot " + slot + " was not taken, " + Seeds.replay(seed));
            }
            t.remove(again[random.nextInt(k)]);
            TableAudit.check(t);
            int[] free = TableAudit.freeSlots(t);
            Path file = dir.resolve("pending-" + kind + ".snap");
            Snapshots.save(t, file);
            try (Table loaded = Snapshots.load(file, Snapshots.LoadOption.NEW_TAG)) {
                TableAudit.check(loaded);
                assertEquals(t.size(), loaded.size());
                assertEquals(java.util.Arrays.toString(free), java.util.Arrays.toString(TableAudit.freeSlots(loaded)),
                        "the loaded table's free slots in take order, " + Seeds.replay(seed));
                for (int i = 0; i < 50; i++) {
                    long old = h[random.nextInt(n)];
                    assertFalse(loaded.contains(old), "an old handle in the loaded table");
                }
                // Both hand out the same slots at the same generations (the loaded one's shifted
                // by one amount if its new tag's floor differs: it loads beside the table it was saved from).
                int shift = 0;
                for (int i = 0; i < Math.min(free.length, 1000); i++) {
                    long a = t.add();
                    long b = loaded.add();
                    assertEquals(HandleLayout.DEFAULT.slot(a), HandleLayout.DEFAULT.slot(b), "slot of add " + i + ", "
                            + Seeds.replay(seed));
                    int d = HandleLayout.DEFAULT.generation(b) - HandleLayout.DEFAULT.generation(a);
                    if (i == 0) {
                        shift = d;
                    }
                    assertEquals(shift, d, "generation of add " + i + ", " + Seeds.replay(seed));
                }
                TableAudit.check(t);
                TableAudit.check(loaded);
            }
        }
    }

    /**
     * A mapped table reset and partly refilled: the checkpoint (at close) saves the slots not
     * taken since as free, and the reopened table accepts the new handles, rejects the old ones
     * and takes its free slots in the same order.
     */
    @ParameterizedTest
    @EnumSource(value = ReuseOrder.class)
    void mappedTable_resetAndPartlyRefilled_reopensAsSaved(ReuseOrder order) throws Exception {
        Path file = dir.resolve("reset-" + order + ".bulk");
        long[] h = new long[5000];
        long[] again = new long[300];
        int[] free;
        BulkTable.Builder b = BulkTable.builder(SCHEMA).reuseOrder(order).handleLayout(HandleLayout.DEFAULT);
        try (MappedBulkTable m = b.mapped(file)) {
            m.addAll(h, 0, h.length);
            m.checkpoint();
            m.reset();
            m.addAll(again, 0, 200);
            for (int i = 200; i < again.length; i++) {
                again[i] = m.add();
            }
            m.set(again[7], X, 7f);
            TableAudit.check(m);
            free = TableAudit.freeSlots(m);
        }
        try (MappedBulkTable m = BulkTable.builder(SCHEMA).reuseOrder(order).handleLayout(HandleLayout.DEFAULT).mapped(file)) {
            TableAudit.check(m);
            assertEquals(again.length, m.size());
            assertEquals(7f, m.get(again[7], X));
            for (long a : again) {
                assertTrue(m.contains(a));
            }
            for (int i = 0; i < h.length; i += 7) {
                assertFalse(m.contains(h[i]), "an old handle after the reopen");
            }
            assertEquals(java.util.Arrays.toString(free), java.util.Arrays.toString(TableAudit.freeSlots(m)));
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void reset_whileIterating_throwsAndChangesNothing(TableKind kind) {
        try (Table t = kind.build(SCHEMA, HandleLayout.DEFAULT, Integer.MAX_VALUE)) {
            long a = t.add();
            try (ChunkIteration it = t.iterate()) {
                assertThrows(ConcurrentModificationException.class, t::reset);
            }
            assertTrue(t.contains(a));
            assertEquals(1, t.size());
            t.close();
            assertThrows(IllegalStateException.class, t::reset);
        }
    }

    /** After the epoch moved on, a handle from before is STALE, one with a later epoch FORGED, and other tables call it FOREIGN. */
    @Test
    void epochs_rejectionReasons() {
        HandleLayout layout = HandleLayout.of(8, 1, 3);
        try (Table t = TableKind.BULK.build(SCHEMA, layout, 255);
             Table other = TableKind.BULK.build(SCHEMA, layout, 255)) {
            long first = t.add();
            t.reset();          // generation floor + 1, or the next epoch
            t.add();
            t.reset();
            long now = t.add();
            assertTrue(layout.epoch(now) > 0, "two resets of a 1-generation-bit layout move the epoch");
            assertEquals(InvalidHandleException.Reason.STALE,
                    assertThrows(InvalidHandleException.class, () -> t.get(first, X)).reason());
            long ahead = layout.pack(layout.tag(now), layout.epoch(now) + 1, layout.generation(now), layout.slot(now));
            assertFalse(t.contains(ahead));
            assertEquals(InvalidHandleException.Reason.FORGED,
                    assertThrows(InvalidHandleException.class, () -> t.get(ahead, X)).reason());
            assertEquals(InvalidHandleException.Reason.FOREIGN,
                    assertThrows(InvalidHandleException.class, () -> other.get(now, X)).reason());
            assertTrue(t.format(now).endsWith("e" + layout.epoch(now)), t.format(now));
        }
    }

    @Test
    void handleLayout_epochBitsAreValidated() {
        assertEquals(0, HandleLayout.DEFAULT.epochBits());
        assertEquals(11, HandleLayout.of(20, 21, 11).epochBits());
        assertEquals(HandleLayout.of(20, 21, 0), HandleLayout.of(20, 21));
        assertNotEquals(HandleLayout.of(20, 21, 1), HandleLayout.of(20, 21));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(20, 21, 12));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(20, 22, 11));   // 53 bits
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(8, 30, 3));     // 33 bits of owner stamp
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(8, 4, -1));
        HandleLayout l = HandleLayout.of(20, 21, 11);
        long h = l.pack(5, 2047, 3, 9);
        assertEquals(2047, l.epoch(h));
        assertEquals(3, l.generation(h));
        assertEquals(9, l.slot(h));
        assertFalse(l.hasStrayBits(h));
        assertTrue(HandleLayout.of(20, 21).hasStrayBits(h));
    }

    /** Snapshots and mapped tables keep the epoch: handles made after resets stay valid, older ones stale. */
    @ParameterizedTest
    @EnumSource(TableKind.class)
    void snapshotAndMappedTable_keepTheEpoch(TableKind kind) throws Exception {
        HandleLayout layout = HandleLayout.of(10, 1, 4);
        Path file = dir.resolve("t-" + kind + ".snap");
        long old;
        long live;
        try (Table t = kind.build(SCHEMA, layout, 1000)) {
            old = t.add();
            for (int i = 0; i < 5; i++) {
                t.reset();
                t.add();
            }
            live = t.add();
            t.set(live, X, 3f);
            assertTrue(layout.epoch(live) > 0);
            Snapshots.save(t, file);
        }
        try (Table loaded = Snapshots.load(file)) {
            assertEquals(3f, loaded.get(live, loaded.schema().floatField("x")));
            assertFalse(loaded.contains(old));
            loaded.reset();
            assertFalse(loaded.contains(live));
        }
        Path mappedFile = dir.resolve("m-" + kind + ".bulk");
        long mappedLive;
        BulkTable.Builder b = BulkTable.builder(SCHEMA).handleLayout(layout).maxCapacity(1000);
        if (kind == TableKind.PACKED) {
            return;
        }
        try (MappedBulkTable m = b.mapped(mappedFile)) {
            for (int i = 0; i < 5; i++) {
                m.add();
                m.reset();
            }
            mappedLive = m.add();
            m.set(mappedLive, X, 4f);
            assertTrue(layout.epoch(mappedLive) > 0);
        }
        try (MappedBulkTable m = BulkTable.builder(SCHEMA).handleLayout(layout).maxCapacity(1000).mapped(mappedFile)) {
            assertEquals(4f, m.get(mappedLive, X));
        }
    }

    /** A component of an entity from before the entity table's epoch moved on never matches a later entity in its slot. */
    @Test
    void componentTable_staleComponentsStayInvisibleAcrossEpochs() {
        HandleLayout layout = HandleLayout.of(8, 1, 3);
        try (BulkTable entities = BulkTable.builder(SCHEMA).handleLayout(layout).maxCapacity(255).build();
             ComponentTable c = ComponentTable.of(entities, Schema.builder("health").add(FieldType.INT, "hp").build())) {
            long e = entities.add();
            c.add(e);
            for (int i = 0; i < 4; i++) {
                entities.reset();
                long again = entities.add();
                assertEquals(layout.slot(e), layout.slot(again));
                assertFalse(c.contains(again), "the component of an earlier epoch's entity must not attach to " + entities.format(again));
            }
            c.reset();
            assertEquals(0, c.size());
        }
    }

    /**
     * The restore pass ({@link SlotEntries#topGeneration}, which sets the generation a reset
     * stays above) over entries in heap pages (tables without reserved ranges), at stride 1 and
     * 2: the highest generation ignores payloads, the header and slot {@code limit}.
     */
    @Test
    void topGeneration_onHeapPages_bothStrides() {
        for (boolean payloads : new boolean[] {false, true}) {
            SlotMap.Links links = payloads ? null : new SlotMap.Links() {
                @Override
                public int link(int slot) {
                    return 0;
                }

                @Override
                public void setLink(int slot, int next) {
                }
            };
            SlotMap slotMap = new SlotMap("pages", HandleLayout.DEFAULT, 1, 0, 20_000, ReuseOrder.FIFO, links,
                    SlotMap.Retirements.NONE);
            int limit = 9_000;                                  // three pages of 4,096 slots
            slotMap.ensureEntries(limit + 1);
            slotMap.setMeta(0, SlotMeta.free(9999));              // the header: not counted
            for (int slot = 1; slot <= limit; slot++) {
                slotMap.setMeta(slot, SlotMeta.free(slot % 97));
                if (payloads) {
                    slotMap.setPayload(slot, -1);               // all ones: must not count as a generation
                }
            }
            slotMap.setMeta(8_500, SlotMeta.live(1234));
            slotMap.setMeta(limit, SlotMeta.free(5000));          // slot limit: not opened, not counted
            assertEquals(1234, slotMap.topGeneration(limit), "payloads " + payloads);
        }
    }
}
