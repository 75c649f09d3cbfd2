package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.bulkdata.storage.schema.InvalidHandleException.Reason;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a bad call throws (the error table of docs/errors-and-threads.md), for both table kinds
 * ({@link BulkTable}, {@link PackedTable}) and both layouts: the documented exception with a
 * useful message, and the table exactly as it was before the call ({@link TableSnapshot}
 * before equals after, which includes the row order of a PackedTable). Tests about holes and
 * the free list written through views are BulkTable's alone (a PackedTable has no holes); the
 * PackedTable's own errors (defragment's arguments) are in {@link PackedTableTest}.
 */
class ErrorContractTest {

    // ---------------------------------------------------------------------------------------
    // Fixture: a table with live records holding distinct values, and holes.

    /** A populated table: {@link #RECORDS} added, every field set, every fifth one removed. */
    static final class Fixture implements AutoCloseable {
        static final int RECORDS = 24;

        final Table table;
        final Schema schema;
        final HandleLayout layout;
        final int tag;
        /** Live handles, in the order they were added. */
        final List<Long> live = new ArrayList<>();
        /** Handles of removed records (their slots are holes), in removal order. */
        final List<Long> removed = new ArrayList<>();

        private Fixture(TableKind kind, Schema schema, HandleLayout handles, int records) {
            this.schema = schema;
            this.table = kind.build(schema, handles, Integer.MAX_VALUE);
            this.layout = table.handleLayout();
            List<Long> all = new ArrayList<>();
            for (int k = 0; k < records; k++) {
                long h = table.add();
                all.add(h);
                int j = 0;
                for (Field f : schema.fields()) {
                    Values.set(table, h, f, (k + 1) * 1_000_003L + j++ * 7_919L);
                }
            }
            for (int k = 0; k < records; k++) {
                if (k % 5 == 2) {
                    table.remove(all.get(k));
                    removed.add(all.get(k));
                } else {
                    live.add(all.get(k));
                }
            }
            this.tag = layout.tag(live.get(0));
        }

        /** The mixed schema (every field type, 8 slots per block, so several blocks). */
        static Fixture mixed(TableKind kind, RecordLayout layout) {
            return new Fixture(kind, TestSchemas.mixed(layout), HandleLayout.DEFAULT, RECORDS);
        }

        static Fixture particles(TableKind kind, RecordLayout layout) {
            return new Fixture(kind, TestSchemas.particles(layout), HandleLayout.DEFAULT, RECORDS);
        }

        static Fixture of(TableKind kind, Schema schema, HandleLayout handles, int records) {
            return new Fixture(kind, schema, handles, records);
        }

        int slot(long handle) {
            return (int) layout.slot(handle);
        }

        long handle(int generation, long slot) {
            return layout.pack(tag, generation, slot);
        }

        /**
         * The fixture's own iteration, opened by the chunk helpers and kept open (a chunk is
         * valid only while an iteration is open) until {@link #endChunks()} or close.
         */
        private ChunkIteration held;

        private ChunkIteration chunks() {
            if (held == null) {
                held = table.iterate();
            }
            return held;
        }

        /** Closes the iteration the chunk helpers opened, so that structural changes work again. */
        void endChunks() {
            if (held != null) {
                held.close();
                held = null;
            }
        }

        /** The chunk holding a live record, any table kind; valid until {@link #endChunks()}. */
        Chunk chunkHolding(long handle) {
            for (Chunk chunk : chunks()) {
                for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                    if (chunk.handle(s) == handle) {
                        return chunk;
                    }
                }
            }
            throw new AssertionError("no chunk holds " + table.format(handle));
        }

        /** The slot, in {@link #chunkHolding}, of a live record. */
        int slotHolding(long handle) {
            Chunk chunk = chunkHolding(handle);
            for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                if (chunk.handle(s) == handle) {
                    return s;
                }
            }
            throw new AssertionError("no slot holds " + table.format(handle));
        }

        /** BulkTable only: the chunk holding {@code slot}; valid until {@link #endChunks()}. */
        Chunk chunkOf(int slot) {
            return chunks().chunk(slot / schema.slotsPerBlock());
        }

        /** BulkTable only: {@code slot}'s position in its chunk. */
        int slotInChunk(int slot) {
            return slot % schema.slotsPerBlock();
        }

        /** The first field of each type (the mixed schema declares one of every type first). */
        List<Field> someFields() {
            return schema.fields().subList(0, Math.min(8, schema.fields().size()));
        }

        @Override
        public void close() {
            table.close();
            endChunks();
        }
    }

    /** Every table kind with every layout. */
    static Stream<Arguments> kindsAndLayouts() {
        return Stream.of(TableKind.values())
                .flatMap(kind -> Stream.of(RecordLayout.values()).map(layout -> Arguments.of(kind, layout)));
    }

    // ---------------------------------------------------------------------------------------
    // Assertion helpers

    private static InvalidHandleException assertInvalid(Reason reason, Executable call) {
        InvalidHandleException e = assertThrows(InvalidHandleException.class, call);
        assertEquals(reason, e.reason(), e::getMessage);
        return e;
    }

    private static void assertUnchanged(TableSnapshot before, Table table) {
        assertEquals(before, TableSnapshot.of(table), "a failed call must leave the table exactly as it was");
    }

    private static void assertNamesTable(String message, Table table) {
        assertTrue(message.contains("'" + table.name() + "'"), () -> "message should name table '"
                + table.name() + "': " + message);
    }

    private static void assertNamesSlot(String message, long slot) {
        assertTrue(message.contains("slot " + slot) || message.contains("#" + slot + "@"),
                () -> "message should name slot " + slot + ": " + message);
    }

    private static void assertNamesGenerations(String message, int handleGeneration, int slotGeneration) {
        assertTrue(message.contains("handle generation " + handleGeneration),
                () -> "message should name the handle's generation " + handleGeneration + ": " + message);
        assertTrue(message.contains("slot generation " + slotGeneration),
                () -> "message should name the slot's generation " + slotGeneration + ": " + message);
    }

    /**
     * Every by-handle call (get and set of one field of each type, remove, removeAll) rejects
     * {@code handle} with {@code reason}, {@code contains} says false, and the table is unchanged.
     */
    private static void assertRejectedEverywhere(Fixture fx, long handle, Reason reason, Consumer<String> message) {
        TableSnapshot before = TableSnapshot.of(fx.table);
        List<Executable> calls = new ArrayList<>();
        for (Field f : fx.someFields()) {
            calls.add(() -> Values.get(fx.table, handle, f));
            calls.add(() -> Values.set(fx.table, handle, f, 0x5A5A_5A5AL));
        }
        calls.add(() -> fx.table.remove(handle));
        calls.add(() -> fx.table.removeAll(new long[] {handle}));
        for (Executable call : calls) {
            InvalidHandleException e = assertInvalid(reason, call);
            assertEquals(handle, e.handle());
            assertEquals(fx.table.name(), e.table());
            assertNamesTable(e.getMessage(), fx.table);
            message.accept(e.getMessage());
        }
        assertFalse(fx.table.contains(handle), "contains must say false for a rejected handle");
        assertUnchanged(before, fx.table);
    }

    /** Live records (handle to every field's bits) read through chunks; needs no free list walk. */
    private static Map<Long, List<Long>> liveRecords(Table table) {
        Map<Long, List<Long>> records = new TreeMap<>();
        table.forEach((chunk, slot) -> {
            List<Long> values = new ArrayList<>();
            for (Field f : table.schema().fields()) {
                values.add(Values.get(chunk, slot, f));
            }
            records.put(chunk.handle(slot), values);
        });
        return records;
    }

    // ---------------------------------------------------------------------------------------
    // Null handles

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void nullHandle_getSetRemove_throwNullAndLeaveTableUnchanged(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            assertRejectedEverywhere(fx, Handles.NULL, Reason.NULL, message -> { });
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void contains_nullHandle_isFalseOnEmptyPopulatedAndClosedTables(TableKind kind, RecordLayout layout) {
        try (Table empty = kind.of(TestSchemas.mixed(layout))) {
            assertFalse(empty.contains(Handles.NULL));
            assertInvalid(Reason.NULL, () -> empty.remove(Handles.NULL));
        }
        Fixture fx = Fixture.mixed(kind, layout);
        assertFalse(fx.table.contains(Handles.NULL));
        fx.close();
        assertFalse(fx.table.contains(Handles.NULL));
    }

    // ---------------------------------------------------------------------------------------
    // Stale handles

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void staleHandle_ofRemovedRecord_throwsStaleNamingSlotAndBothGenerations(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            for (long stale : fx.removed) {
                int slot = fx.slot(stale);
                assertRejectedEverywhere(fx, stale, Reason.STALE, message -> {
                    assertNamesSlot(message, slot);
                    assertNamesGenerations(message, 0, 1);
                });
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void staleHandle_afterItsSlotWasReusedByAdd_throwsStaleAndNeverReachesTheNewRecord(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long stale = fx.removed.get(0);
            long reused = Handles.NULL;
            for (int i = 0; i < fx.removed.size() && reused == Handles.NULL; i++) {
                long h = fx.table.add();
                if (fx.slot(h) == fx.slot(stale)) {
                    reused = h;
                }
            }
            assertNotEquals(Handles.NULL, reused, "adding as many records as there were holes must reuse the hole");
            assertNotEquals(stale, reused);
            assertEquals(1, fx.layout.generation(reused));
            LongField l = fx.schema.longField("l");
            fx.table.set(reused, l, 777L);
            int slot = fx.slot(stale);
            assertRejectedEverywhere(fx, stale, Reason.STALE, message -> {
                assertNamesSlot(message, slot);
                assertNamesGenerations(message, 0, 1);
            });
            assertTrue(fx.table.contains(reused));
            assertEquals(777L, fx.table.get(reused, l), "the new record must be untouched by the stale handle");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void staleHandle_afterClear_throwsStaleForEveryFormerlyLiveHandle(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            fx.table.clear();
            for (long stale : fx.live) {
                int slot = fx.slot(stale);
                assertRejectedEverywhere(fx, stale, Reason.STALE, message -> {
                    assertNamesSlot(message, slot);
                    assertNamesGenerations(message, 0, 1);
                });
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Forged handles

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void forgedHandle_withBitsBetweenGenerationAndTag_throwsForged(TableKind kind, RecordLayout layout) {
        HandleLayout narrow = HandleLayout.of(16, 8);
        try (Fixture fx = Fixture.of(kind, TestSchemas.mixed(layout), narrow, Fixture.RECORDS)) {
            long valid = fx.live.get(3);
            for (int bit = 24; bit < HandleLayout.TAG_SHIFT; bit++) {
                long forged = valid | (1L << bit);
                assertTrue(narrow.hasStrayBits(forged));
                assertRejectedEverywhere(fx, forged, Reason.FORGED, message -> { });
            }
            assertTrue(fx.table.contains(valid), "the genuine handle must still be live");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void forgedHandle_withBitsBetweenGenerationAndTag_messageNamesSlotAndGeneration(TableKind kind, RecordLayout layout) {
        HandleLayout narrow = HandleLayout.of(16, 8);
        try (Fixture fx = Fixture.of(kind, TestSchemas.mixed(layout), narrow, Fixture.RECORDS)) {
            long valid = fx.live.get(3);
            long forged = valid | (1L << 40);
            InvalidHandleException e = assertInvalid(Reason.FORGED, () -> fx.table.remove(forged));
            // The contract: the exception names the table, the slot and both generations.
            assertNamesTable(e.getMessage(), fx.table);
            assertNamesSlot(e.getMessage(), fx.slot(valid));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void forgedHandle_ofSlotZero_throwsForgedNamingSlotZero(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            for (int generation : new int[] {0, 1, fx.layout.maxGeneration()}) {
                long slotZero = fx.handle(generation, 0);
                assertRejectedEverywhere(fx, slotZero, Reason.FORGED, message -> assertNamesSlot(message, 0));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void forgedHandle_withGenerationTheSlotNeverReached_throwsForgedNamingBothGenerations(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long live = fx.live.get(0);
            int liveSlot = fx.slot(live);
            for (int generation : new int[] {1, 2, fx.layout.maxGeneration()}) {
                long forged = fx.handle(generation, liveSlot);
                assertRejectedEverywhere(fx, forged, Reason.FORGED, message -> {
                    assertNamesSlot(message, liveSlot);
                    assertNamesGenerations(message, generation, 0);
                });
            }
            // A hole's slot is at generation 1 and free: no handle of generation 1 was handed out yet.
            int holeSlot = fx.slot(fx.removed.get(0));
            for (int generation : new int[] {1, 2}) {
                long forged = fx.handle(generation, holeSlot);
                assertRejectedEverywhere(fx, forged, Reason.FORGED, message -> {
                    assertNamesSlot(message, holeSlot);
                    assertNamesGenerations(message, generation, 1);
                });
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Out-of-range handles

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void outOfRangeHandle_beyondEveryOpenedSlot_throwsOutOfRangeNamingTheSlot(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long lastOpened = fx.live.stream().mapToLong(fx::slot).max().orElseThrow();
            // The slot right after the last opened one lies in an allocated block but was never opened.
            for (long slot : new long[] {lastOpened + 1, lastOpened + 100, 1_000_000, 0xFFFF_FFFFL}) {
                long outside = fx.handle(0, slot);
                assertRejectedEverywhere(fx, outside, Reason.OUT_OF_RANGE, message -> assertNamesSlot(message, slot));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void outOfRangeHandle_onTableThatNeverAddedARecord_throwsOutOfRange(TableKind kind, RecordLayout layout) {
        String name = "never_added_" + layout;
        Schema schema = Schema.builder(name).layout(layout).add(FieldType.LONG, "x").build();
        try (Table empty = kind.of(schema)) {
            int tag = tagNamed(name);
            long outside = empty.handleLayout().pack(tag, 0, 1);
            TableSnapshot before = TableSnapshot.of(empty);
            assertFalse(empty.contains(outside));
            InvalidHandleException e = assertInvalid(Reason.OUT_OF_RANGE, () -> empty.remove(outside));
            assertNamesTable(e.getMessage(), empty);
            assertNamesSlot(e.getMessage(), 1);
            assertInvalid(Reason.OUT_OF_RANGE, () -> empty.get(outside, schema.longField("x")));
            assertInvalid(Reason.FORGED, () -> empty.remove(empty.handleLayout().pack(tag, 0, 0)));
            assertUnchanged(before, empty);
            assertEquals(0, empty.stats().blocks(), "a rejected handle must not allocate");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void outOfRangeHandle_onTableThatNeverAddedARecord_messageDoesNotClaimANegativeSlotRange(TableKind kind, RecordLayout layout) {
        String name = "never_added_msg_" + layout;
        try (Table empty = kind.of(Schema.builder(name).layout(layout).add(FieldType.LONG, "x").build())) {
            long outside = empty.handleLayout().pack(tagNamed(name), 0, 1);
            InvalidHandleException e = assertInvalid(Reason.OUT_OF_RANGE, () -> empty.remove(outside));
            assertFalse(e.getMessage().contains("1..-1"), () -> "misleading slot range: " + e.getMessage());
        }
    }

    /** The tag of the only open table with this name. */
    private static int tagNamed(String name) {
        int found = -1;
        for (int t = 1; t <= HandleLayout.MAX_TAG; t++) {
            if (name.equals(TagRegistry.nameOf(t))) {
                assertEquals(-1, found, "two open tables named " + name);
                found = t;
            }
        }
        assertTrue(found > 0, "no open table named " + name);
        return found;
    }

    // ---------------------------------------------------------------------------------------
    // Handles of another table, open or closed

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void foreignHandle_fromAnotherOpenTable_throwsForeignNamingTheOwner(TableKind kind, RecordLayout layout) {
        Schema otherSchema = Schema.builder("other_table").layout(layout).add(FieldType.LONG, "x").build();
        try (Fixture fx = Fixture.mixed(kind, layout); Table other = TableKind.BULK.of(otherSchema)) {
            long foreign = other.add();
            // Same slot and generation as a live record of fx: only the tag tells them apart.
            assertEquals(fx.slot(fx.live.get(0)), (int) other.handleLayout().slot(foreign));
            assertEquals(0, other.handleLayout().generation(foreign));
            assertRejectedEverywhere(fx, foreign, Reason.FOREIGN, message ->
                    assertTrue(message.contains("'other_table'"), () -> "message should name the owner: " + message));
            assertTrue(other.contains(foreign), "the other table must be untouched");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void foreignHandle_withTagOfNoOpenTable_throwsForged(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            int unknown = -1;
            for (int t = HandleLayout.MAX_TAG; t > 0; t--) {
                if (t != fx.tag && TagRegistry.nameOf(t) == null && TagRegistry.closedNameOf(t) == null) {
                    unknown = t;
                    break;
                }
            }
            assertTrue(unknown > 0);
            int tag = unknown;
            long forged = fx.layout.pack(tag, 0, fx.slot(fx.live.get(0)));
            assertRejectedEverywhere(fx, forged, Reason.FORGED,
                    message -> assertTrue(message.contains("tag " + tag), () -> "message should name tag " + tag
                            + ": " + message));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void foreignHandle_ofAClosedTable_throwsClosed(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long orphan;
            String goneName;
            try (Table gone = kind.of(TestSchemas.particles(layout))) {
                orphan = gone.add();
                goneName = gone.name();
            }
            assertRejectedEverywhere(fx, orphan, Reason.CLOSED, message -> assertTrue(
                    message.contains("whose last table, '" + goneName + "', is closed"), message));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Fields of another schema or of the wrong type

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void fieldOfAnotherSchema_onTableGetAndSet_throwsIllegalArgumentAndLeavesTableUnchanged(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            Schema twin = TestSchemas.mixed(layout); // same names and types, another instance
            TableSnapshot before = TableSnapshot.of(fx.table);
            long h = fx.live.get(0);
            for (Field alien : twin.fields().subList(0, 8)) {
                IllegalArgumentException get = assertThrows(IllegalArgumentException.class,
                        () -> Values.get(fx.table, h, alien));
                assertFalse(get instanceof InvalidHandleException);
                assertTrue(get.getMessage().contains("schema"), get::getMessage);
                assertThrows(IllegalArgumentException.class, () -> Values.set(fx.table, h, alien, 1L));
            }
            assertUnchanged(before, fx.table);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void fieldOfAnotherSchema_onChunkGetSetAndColumn_throwsIllegalArgument(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            Schema twin = TestSchemas.mixed(layout);
            TableSnapshot before = TableSnapshot.of(fx.table);
            Chunk chunk = fx.chunkHolding(fx.live.get(0));
            int s = fx.slotHolding(fx.live.get(0));
            for (Field alien : twin.fields().subList(0, 8)) {
                assertThrows(IllegalArgumentException.class, () -> Values.get(chunk, s, alien));
                assertThrows(IllegalArgumentException.class, () -> Values.set(chunk, s, alien, 1L));
                assertThrows(IllegalArgumentException.class, () -> chunk.column(alien));
            }
            assertUnchanged(before, fx.table);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void nullField_onTableAndChunkAccess_throwsIllegalArgument(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long h = fx.live.get(0);
            Chunk chunk = fx.chunkHolding(h);
            int s = fx.slotHolding(h);
            // SchemaAccess.foreignField(schema, null) builds "field is null (table ...)": null is meant to be an IAE.
            assertThrows(IllegalArgumentException.class, () -> fx.table.get(h, (LongField) null));
            assertThrows(IllegalArgumentException.class, () -> fx.table.set(h, (LongField) null, 1L));
            assertThrows(IllegalArgumentException.class, () -> chunk.get(s, (LongField) null));
            assertThrows(IllegalArgumentException.class, () -> chunk.column(null));
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void typedLookup_ofFieldWithAnotherType_throwsIllegalArgumentSayingWhichLookupToUse(RecordLayout layout) {
        Schema particles = TestSchemas.particles(layout);
        List<Executable> wrong = List.of(
                () -> particles.intField("t"),
                () -> particles.longField("t"),
                () -> particles.doubleField("t"),
                () -> particles.byteField("t"),
                () -> particles.shortField("t"),
                () -> particles.charField("t"),
                () -> particles.booleanField("t"));
        for (Executable lookup : wrong) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, lookup);
            assertTrue(e.getMessage().contains("floatField(\"t\")"), e::getMessage);
        }
        assertSame(particles.field("t"), particles.floatField("t"));
        Schema mixed = TestSchemas.mixed(layout);
        assertThrows(IllegalArgumentException.class, () -> mixed.floatField("d"));
        assertThrows(IllegalArgumentException.class, () -> mixed.intField("f"));
        assertThrows(IllegalArgumentException.class, () -> mixed.byteField("z"));
        assertThrows(IllegalArgumentException.class, () -> mixed.charField("s"));
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void lookup_ofUnknownFieldName_throwsIllegalArgumentListingTheFields(RecordLayout layout) {
        Schema particles = TestSchemas.particles(layout);
        for (Executable lookup : List.<Executable>of(
                () -> particles.field("nope"),
                () -> particles.floatField("nope"),
                () -> particles.intField("T"),
                () -> particles.field("$freeLink"),
                () -> particles.field(null))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, lookup);
            assertTrue(e.getMessage().contains("px"), () -> "message should list the fields: " + e.getMessage());
        }
        assertFalse(particles.hasField("nope"));
    }

    // ---------------------------------------------------------------------------------------
    // Schemas and options refused when they are built

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaBuild_withNoFields_throwsIllegalArgumentSayingToAddOne(RecordLayout layout) {
        Schema.Builder b = Schema.builder("empty").layout(layout);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
        assertTrue(e.getMessage().contains("'empty'") && e.getMessage().contains("add"), e::getMessage);
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaAdd_withDuplicateNameInOneCall_throwsAndLeavesBuilderUnchanged(RecordLayout layout) {
        Schema.Builder b = Schema.builder("dup").layout(layout).add(FieldType.INT, "a");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.add(FieldType.FLOAT, "x", "y", "x"));
        assertTrue(e.getMessage().contains("'x'") && e.getMessage().contains("unique"), e::getMessage);
        // The failed call added nothing: x and y are still free names.
        Schema s = b.add(FieldType.FLOAT, "x", "y").build();
        assertEquals(List.of("a", "x", "y"), s.fields().stream().map(Field::name).toList());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaAdd_withNameAlreadyAddedInEarlierCall_throwsAndLeavesBuilderUnchanged(RecordLayout layout) {
        Schema.Builder b = Schema.builder("dup").layout(layout).add(FieldType.INT, "a", "b");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.add(FieldType.LONG, "c", "b"));
        assertTrue(e.getMessage().contains("'b'") && e.getMessage().contains("unique"), e::getMessage);
        Schema s = b.add(FieldType.LONG, "c").build();
        assertEquals(List.of("a", "b", "c"), s.fields().stream().map(Field::name).toList());
        assertEquals(FieldType.LONG, s.field("c").type());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaBuild_withRecordLargerThanABlock_throwsSayingToSplitTheRecord(RecordLayout layout) {
        String[] names2049 = java.util.stream.IntStream.range(0, 2049).mapToObj(i -> "f" + i).toArray(String[]::new);
        // Refused as soon as the fields are added, not only at build().
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Schema.builder("huge").layout(layout).add(FieldType.LONG, names2049));
        assertTrue(e.getMessage().contains("16392") && e.getMessage().contains("split"), e::getMessage);
        // The boundary: exactly one block's worth of bytes is accepted.
        Schema fits = Schema.builder("huge").layout(layout)
                .add(FieldType.LONG, java.util.Arrays.copyOf(names2049, 2048)).build();
        assertEquals(Schema.BLOCK_BYTES, fits.slotBytes());
        assertEquals(1, fits.slotsPerBlock());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaBuild_withAosPaddingPushingTheRecordPastABlock_throws(RecordLayout layout) {
        String[] longs = java.util.stream.IntStream.range(0, 2047).mapToObj(i -> "f" + i).toArray(String[]::new);
        Schema.Builder b = Schema.builder("padded").layout(layout).add(FieldType.BYTE, "b").add(FieldType.LONG, longs)
                .add(FieldType.BYTE, "c");
        // SOA: 16378 bytes fit. AOS: 8 + 2047*8 + 1 = 16385, aligned to 16392: too big.
        if (layout == RecordLayout.SOA) {
            assertEquals(16378, b.build().slotBytes());
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
            assertTrue(e.getMessage().contains("split"), e::getMessage);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaBuilder_withInvalidTableName_throwsSayingWhatANameMayContain(RecordLayout layout) {
        for (String bad : new String[] {null, "", "1abc", "a b", "-x", "x/y", "\u00e9t\u00e9", "x".repeat(65)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Schema.builder(bad).layout(layout), () -> "table name " + bad);
            assertTrue(e.getMessage().contains("use a letter"), e::getMessage);
        }
        assertEquals("a.b-c_1", Schema.builder("a.b-c_1").layout(layout).add(FieldType.INT, "x").build().name());
        assertEquals(64, Schema.builder("x".repeat(64)).add(FieldType.INT, "x").build().name().length());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaAdd_withInvalidFieldName_throwsSayingWhatANameMayContain(RecordLayout layout) {
        for (String bad : new String[] {null, "", "1x", "a-b", "a.b", "a b", "$freeLink", "x".repeat(65)}) {
            Schema.Builder b = Schema.builder("names").layout(layout);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> b.add(FieldType.INT, "ok", bad), () -> "field name " + bad);
            assertTrue(e.getMessage().contains("use a letter"), e::getMessage);
            // Nothing of the failed call was added, not even the valid name before the bad one.
            assertEquals(List.of("ok"), b.add(FieldType.INT, "ok").build().fields().stream().map(Field::name).toList());
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaBuilder_withNullLayoutOrNoNames_throwsIllegalArgument(RecordLayout layout) {
        IllegalArgumentException nullLayout = assertThrows(IllegalArgumentException.class,
                () -> Schema.builder("s").layout(null));
        assertTrue(nullLayout.getMessage().contains("SOA or AOS"), nullLayout::getMessage);
        assertThrows(IllegalArgumentException.class, () -> Schema.builder("s").layout(layout).add(FieldType.INT));
        assertThrows(IllegalArgumentException.class,
                () -> Schema.builder("s").layout(layout).add(FieldType.INT, (String[]) null));
        IllegalArgumentException nullType = assertThrows(IllegalArgumentException.class,
                () -> Schema.builder("s").layout(layout).add(null, "x"));
        assertTrue(nullType.getMessage().contains("'s'"), nullType::getMessage);
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void schemaAdd_withNullType_messageSaysWhatToDo(RecordLayout layout) {
        IllegalArgumentException nullType = assertThrows(IllegalArgumentException.class,
                () -> Schema.builder("s").layout(layout).add(null, "x"));
        // Like the null-layout message ("use SOA or AOS"), it should point at the remedy.
        assertTrue(nullType.getMessage().contains("FieldType") || nullType.getMessage().contains("use "),
                () -> "message does not say what to do: " + nullType.getMessage());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void handleLayoutOf_withBadWidths_throwsSayingTheAllowedRange(RecordLayout unused) {
        int[][] bad = {{0, 20}, {-1, 20}, {33, 10}, {20, 0}, {20, 31}, {32, 21}, {30, 30}};
        for (int[] widths : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HandleLayout.of(widths[0], widths[1]), () -> java.util.Arrays.toString(widths));
            assertTrue(e.getMessage().contains("must"), e::getMessage);
        }
        assertSame(HandleLayout.DEFAULT, HandleLayout.of(32, 20));
        assertEquals(52, HandleLayout.of(22, 30).slotBits() + HandleLayout.of(22, 30).generationBits());
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void tableBuilder_withNullOrNonPositiveOptions_throwsIllegalArgument(RecordLayout layout) {
        Schema schema = TestSchemas.particles(layout);
        assertThrows(IllegalArgumentException.class, () -> BulkTable.builder(null));
        assertThrows(IllegalArgumentException.class, () -> BulkTable.of(null));
        BulkTable.Builder b = BulkTable.builder(schema);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.reuseOrder(null)).getMessage().contains("FIFO"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.handleLayout(null)).getMessage()
                .contains("DEFAULT"));
        assertThrows(IllegalArgumentException.class, () -> b.maxCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxCapacity(-5));
    }

    // ---------------------------------------------------------------------------------------
    // Capacity exhausted

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void add_beyondMaxCapacity_throwsCapacityExceededAndLeavesTableUnchanged(TableKind kind, RecordLayout layout) {
        try (Table t = kind.build(TestSchemas.mixed(layout), HandleLayout.DEFAULT, 10)) {
            List<Long> handles = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                long h = t.add();
                t.set(h, t.schema().longField("l"), 100L + i);
                handles.add(h);
            }
            TableSnapshot before = TableSnapshot.of(t);
            CapacityExceededException e = assertThrows(CapacityExceededException.class, t::add);
            assertTrue(e.getMessage().contains("'mixed'"), e::getMessage);
            assertUnchanged(before, t);
            assertThrows(CapacityExceededException.class, () -> t.addAll(new long[1]));
            assertUnchanged(before, t);

            // Removing one record makes room for exactly one, in the same slot.
            long gone = handles.get(4);
            t.remove(gone);
            long again = t.add();
            assertEquals(t.handleLayout().slot(gone), t.handleLayout().slot(again));
            assertTrue(t.contains(again));
            assertEquals(10, t.size());
            TableSnapshot full = TableSnapshot.of(t);
            assertThrows(CapacityExceededException.class, t::add);
            assertUnchanged(full, t);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void addAll_ofMoreThanTheRemainingRoom_throwsAndAddsNothing(TableKind kind, RecordLayout layout) {
        try (Table t = kind.build(TestSchemas.mixed(layout), HandleLayout.DEFAULT, 10)) {
            long[] first = new long[8];
            t.addAll(first);
            t.set(first[0], t.schema().intField("i"), 42);
            t.removeAll(new long[] {first[2], first[5]}); // 6 live, 2 holes, 2 fresh slots: room for 4
            TableSnapshot before = TableSnapshot.of(t);

            long[] tooMany = new long[5];
            assertThrows(CapacityExceededException.class, () -> t.addAll(tooMany));
            assertArrayEquals(new long[5], tooMany, "no handle may be written when nothing is added");
            assertUnchanged(before, t);
            long[] ranged = new long[9];
            assertThrows(CapacityExceededException.class, () -> t.addAll(ranged, 2, 7));
            assertArrayEquals(new long[9], ranged);
            assertUnchanged(before, t);

            long[] exactly = new long[4];
            t.addAll(exactly);
            for (long h : exactly) {
                assertTrue(t.contains(h));
            }
            assertEquals(10, t.size());
            assertEquals(42, t.get(first[0], t.schema().intField("i")));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void add_beyondTheSlotSpaceOfANarrowHandleLayout_throwsAndLeavesTableUnchanged(TableKind kind, RecordLayout layout) {
        // 4 slot bits: slots 1..15 (slot 0 is the free-list header).
        try (Table t = kind.build(TestSchemas.mixed(layout), HandleLayout.of(4, 20), Integer.MAX_VALUE)) {
            TableSnapshot empty = TableSnapshot.of(t);
            assertThrows(CapacityExceededException.class, () -> t.addAll(new long[16]));
            assertUnchanged(empty, t);

            long[] all = new long[15];
            t.addAll(all);
            assertEquals(15, t.size());
            TableSnapshot full = TableSnapshot.of(t);
            assertThrows(CapacityExceededException.class, t::add);
            assertThrows(CapacityExceededException.class, () -> t.addAll(new long[1]));
            assertUnchanged(full, t);

            t.remove(all[7]);
            long again = t.add();
            assertEquals(7 + 1, t.handleLayout().slot(again));
            assertEquals(1, t.handleLayout().generation(again));
            assertThrows(CapacityExceededException.class, t::add);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Use after close

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void everyMethod_afterClose_throwsIllegalState(TableKind kind, RecordLayout layout) {
        Fixture fx = Fixture.mixed(kind, layout);
        Table t = fx.table;
        long h = fx.live.get(0);
        LongField l = fx.schema.longField("l");
        t.close();
        assertTrue(t.isClosed());
        List<Executable> calls = List.of(
                t::add,
                () -> t.addAll(new long[2]),
                () -> t.remove(h),
                () -> t.removeAll(new long[] {h}),
                () -> t.get(h, l),
                () -> t.set(h, l, 1L),
                () -> Values.get(t, h, fx.schema.field("f")),
                () -> Values.set(t, h, fx.schema.field("b"), 1L),
                t::size,
                t::isEmpty,
                t::capacity,
                t::clear,
                t::iterate,
                () -> t.forEach((chunk, slot) -> { }),
                () -> t.forEachChunk(chunk -> { }),
                () -> t.cancelAdd(h));
        if (t instanceof PackedTable packed) {
            calls = new ArrayList<>(calls);
            calls.add(() -> packed.defragment(10, (a, b) -> 0));
            calls.add(packed::markFragmented);
        }
        for (Executable call : calls) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertFalse(e instanceof CapacityExceededException);
            assertTrue(e.getMessage().contains("closed"), e::getMessage);
        }
        assertDoesNotThrow(t::close);
        assertDoesNotThrow(t::close);
        // stats() answers after close, so that users can confirm the memory is gone.
        assertEquals(new TableStats("mixed", 0, 0, 0, 0, 0, 0), t.stats());
        if (t instanceof BulkTable bulk) {
            assertNotNull(bulk.reuseOrder());
        }
        assertFalse(t.contains(h));
        assertFalse(t.contains(Handles.NULL));
        assertEquals("mixed", t.name());
        assertSame(fx.schema, t.schema());
        assertNotNull(t.handleLayout());
        assertTrue(t.format(h).startsWith("mixed#"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkObtainedBeforeClose_afterClose_throwsIllegalStateOnEveryAccess(TableKind kind, RecordLayout layout) {
        Fixture fx = Fixture.mixed(kind, layout);
        Chunk chunk = fx.chunkHolding(fx.live.get(0));
        int s = fx.slotHolding(fx.live.get(0));
        Field f = fx.schema.field("f");
        Field b = fx.schema.field("b");
        MemorySegment records = chunk.records();
        MemorySegment writableRecords = chunk.writableRecords();
        MemorySegment column = layout == RecordLayout.SOA ? chunk.column(f) : null;
        MemorySegment writableColumn = layout == RecordLayout.SOA ? chunk.writableColumn(f) : null;
        fx.close();

        List<Executable> calls = new ArrayList<>(List.of(
                () -> Values.get(chunk, s, f),
                () -> Values.set(chunk, s, f, 1L),
                () -> Values.get(chunk, s, b),
                () -> chunk.nextLive(0),
                () -> chunk.column(f),
                () -> chunk.writableColumn(f),
                chunk::records,
                chunk::writableRecords,
                () -> chunk.changedSince(f, 0),
                () -> chunk.structureChangedSince(0),
                () -> chunk.handle(s),
                () -> chunk.isLive(s),
                () -> chunk.liveBits(0),
                chunk::liveCount,
                () -> records.get(ValueLayout.JAVA_BYTE, 0),
                () -> writableRecords.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)));
        if (column != null) {
            calls.add(() -> column.get(ValueLayout.JAVA_FLOAT, 0));
            calls.add(() -> writableColumn.set(ValueLayout.JAVA_FLOAT, 4L * s, 1f));
        }
        for (Executable call : calls) {
            assertThrows(IllegalStateException.class, call);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Structural changes while an iteration is open

    private static List<Executable> structuralChanges(Fixture fx) {
        List<Executable> changes = new ArrayList<>(List.of(
                fx.table::add,
                () -> fx.table.addAll(new long[3]),
                () -> fx.table.remove(fx.live.get(0)),
                () -> fx.table.remove(fx.removed.get(0)), // even an invalid handle: the guard comes first
                () -> fx.table.removeAll(new long[] {fx.live.get(1), fx.live.get(2)}),
                fx.table::clear,
                () -> fx.table.cancelAdd(fx.live.get(0))));
        if (fx.table instanceof PackedTable packed) {
            changes.add(() -> packed.defragment(Long.MAX_VALUE, (a, b) -> Long.compare(b, a)));
        }
        return changes;
    }

    private static void assertEveryStructuralChangeFailsFast(Fixture fx) {
        for (Executable change : structuralChanges(fx)) {
            ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, change);
            assertTrue(e.getMessage().contains("'" + fx.table.name() + "'"), e::getMessage);
        }
        assertFalse(fx.table.isClosed());
    }

    private static void assertStructureWorksAgain(Fixture fx) {
        long h = fx.table.add();
        assertTrue(fx.table.contains(h));
        fx.table.remove(h);
        assertFalse(fx.table.contains(h));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void structuralChange_insideForEach_throwsConcurrentModificationAndLeavesTableUnchanged(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            int[] visits = {0};
            fx.table.forEach((chunk, slot) -> {
                if (visits[0]++ == 0) {
                    assertEveryStructuralChangeFailsFast(fx);
                }
            });
            assertEquals(fx.live.size(), visits[0]);
            assertUnchanged(before, fx.table);
            assertStructureWorksAgain(fx);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void structuralChange_insideForEachChunk_throwsConcurrentModificationAndLeavesTableUnchanged(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            int[] visits = {0};
            fx.table.forEachChunk(chunk -> {
                visits[0]++;
                assertEveryStructuralChangeFailsFast(fx);
            });
            assertEquals(fx.table.stats().blocks(), visits[0]);
            assertUnchanged(before, fx.table);
            assertStructureWorksAgain(fx);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void structuralChange_whileChunkIterationIsOpen_throwsUntilEveryIterationIsClosed(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            ChunkIteration outer = fx.table.iterate();
            assertEveryStructuralChangeFailsFast(fx);
            try (ChunkIteration inner = fx.table.iterate()) {
                assertEquals(outer.count(), inner.count());
                assertEveryStructuralChangeFailsFast(fx);
            }
            // One iteration is still open.
            assertEveryStructuralChangeFailsFast(fx);
            outer.close();
            outer.close(); // twice does nothing (must not release someone else's iteration)
            assertThrows(IllegalStateException.class, () -> outer.chunk(0));
            assertUnchanged(before, fx.table);
            assertStructureWorksAgain(fx);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void closingAnIterationTwice_doesNotEndAnotherOpenIteration(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            ChunkIteration first = fx.table.iterate();
            first.close();
            try (ChunkIteration second = fx.table.iterate()) {
                first.close();
                assertThrows(ConcurrentModificationException.class, fx.table::add);
                assertNotNull(second.chunk(0));
            }
            assertStructureWorksAgain(fx);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void visitorThrowing_insideForEach_endsTheIteration(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            assertThrows(IllegalStateException.class, () -> fx.table.forEach((chunk, slot) -> {
                throw new IllegalStateException("visitor failed");
            }));
            assertThrows(IllegalStateException.class, () -> fx.table.forEachChunk(chunk -> {
                throw new IllegalStateException("visitor failed");
            }));
            assertStructureWorksAgain(fx);
        }
    }

    // ---------------------------------------------------------------------------------------
    // removeAll: all or nothing

    private static void assertRemoveAllRejects(Fixture fx, long[] batch, int from, int to, int badPosition,
                                               Reason reason) {
        TableSnapshot before = TableSnapshot.of(fx.table);
        InvalidHandleException e = assertInvalid(reason, () -> fx.table.removeAll(batch, from, to));
        assertTrue(e.getMessage().contains("handles[" + badPosition + "]"),
                () -> "message should name position " + badPosition + ": " + e.getMessage());
        assertEquals(batch[badPosition], e.handle());
        assertUnchanged(before, fx.table);
        for (long h : fx.live) {
            assertTrue(fx.table.contains(h), "nothing may be removed");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void removeAll_withStaleHandleInTheMiddle_throwsNamingItsPositionAndRemovesNothing(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long[] batch = {fx.live.get(0), fx.live.get(1), fx.live.get(2), fx.removed.get(1), fx.live.get(3),
                    fx.live.get(4)};
            assertRemoveAllRejects(fx, batch, 0, batch.length, 3, Reason.STALE);
            assertRemoveAllRejects(fx, batch, 1, 5, 3, Reason.STALE);
            // The same batch without the bad position removes exactly its records.
            fx.table.removeAll(batch, 4, 6);
            assertFalse(fx.table.contains(fx.live.get(3)));
            assertFalse(fx.table.contains(fx.live.get(4)));
            assertTrue(fx.table.contains(fx.live.get(2)));
            assertEquals(fx.live.size() - 2, fx.table.size());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void removeAll_withForeignOrNullHandleInTheMiddle_throwsNamingItsPositionAndRemovesNothing(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout);
             Table other = TableKind.BULK.of(Schema.builder("other_table").add(FieldType.INT, "x").build())) {
            long foreign = other.add();
            long[] batch = {fx.live.get(0), fx.live.get(1), foreign, fx.live.get(2)};
            assertRemoveAllRejects(fx, batch, 0, batch.length, 2, Reason.FOREIGN);
            long[] withNull = {fx.live.get(0), fx.live.get(1), fx.live.get(2), Handles.NULL};
            assertRemoveAllRejects(fx, withNull, 0, withNull.length, 3, Reason.NULL);
            long[] forged = {fx.live.get(5), fx.handle(0, 0)};
            assertRemoveAllRejects(fx, forged, 0, forged.length, 1, Reason.FORGED);
            assertTrue(other.contains(foreign));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void removeAll_withDuplicateOfAnEarlierHandle_throwsNamingTheSecondPositionAndRemovesNothing(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long[] batch = {fx.live.get(0), fx.live.get(1), fx.live.get(2), fx.live.get(1), fx.live.get(3)};
            TableSnapshot before = TableSnapshot.of(fx.table);
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> fx.table.removeAll(batch));
            assertTrue(e.getMessage().contains("handles[3]"), e::getMessage);
            assertUnchanged(before, fx.table);
            for (long h : fx.live) {
                assertTrue(fx.table.contains(h));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void removeAll_withDuplicateHandle_reportsItAsStaleAsDocumented(TableKind kind, RecordLayout layout) {
        // Table.removeAll: "a handle given twice counts as stale the second time".
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long[] batch = {fx.live.get(0), fx.live.get(1), fx.live.get(1)};
            assertRemoveAllRejects(fx, batch, 0, batch.length, 2, Reason.STALE);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void removeAll_withRangeOutsideTheArray_throwsIndexOutOfBoundsAndRemovesNothing(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            long[] batch = {fx.live.get(0), fx.live.get(1)};
            assertThrows(IndexOutOfBoundsException.class, () -> fx.table.removeAll(batch, 0, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> fx.table.removeAll(batch, 2, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> fx.table.addAll(new long[2], -1, 2));
            assertUnchanged(before, fx.table);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Chunk slot errors

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void chunkAccess_toAHole_throwsIllegalArgumentAndLeavesTableUnchanged(RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(TableKind.BULK, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            int hole = fx.slot(fx.removed.get(0));
            Chunk chunk = fx.chunkOf(hole);
            int s = fx.slotInChunk(hole);
            assertFalse(chunk.isLive(s));
            for (Field f : fx.someFields()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Values.get(chunk, s, f));
                assertTrue(e.getMessage().contains("hole"), e::getMessage);
                assertThrows(IllegalArgumentException.class, () -> Values.set(chunk, s, f, 0x7777L));
            }
            assertThrows(IllegalArgumentException.class, () -> chunk.handle(s));
            // Slots of an allocated block that were never opened are holes too.
            int lastOpened = fx.live.stream().mapToInt(fx::slot).max().orElseThrow();
            if (fx.slotInChunk(lastOpened) + 1 < chunk.slotCount()) {
                Chunk last = fx.chunkOf(lastOpened);
                int unopened = fx.slotInChunk(lastOpened) + 1;
                assertThrows(IllegalArgumentException.class, () -> last.handle(unopened));
                assertThrows(IllegalArgumentException.class, () -> Values.set(last, unopened, fx.schema.field("l"), 1));
            }
            assertUnchanged(before, fx.table);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkAccess_toSlotOutsideTheChunk_throwsIndexOutOfBounds(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            TableSnapshot before = TableSnapshot.of(fx.table);
            Chunk chunk = fx.chunkHolding(fx.live.get(0));
            Field l = fx.schema.field("l");
            for (int bad : new int[] {-1, chunk.slotCount(), chunk.slotCount() + 64, Integer.MIN_VALUE}) {
                assertThrows(IndexOutOfBoundsException.class, () -> Values.get(chunk, bad, l), "slot " + bad);
                assertThrows(IndexOutOfBoundsException.class, () -> Values.set(chunk, bad, l, 1L), "slot " + bad);
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.isLive(bad), "slot " + bad);
                assertThrows(IndexOutOfBoundsException.class, () -> chunk.handle(bad), "slot " + bad);
            }
            assertThrows(IndexOutOfBoundsException.class, () -> chunk.liveBits(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> chunk.liveBits(chunk.liveWordCount()));
            assertEquals(-1, chunk.nextLive(chunk.slotCount()));
            try (ChunkIteration chunks = fx.table.iterate()) {
                assertThrows(IndexOutOfBoundsException.class, () -> chunks.chunk(chunks.count()));
                assertThrows(IndexOutOfBoundsException.class, () -> chunks.chunk(-1));
            }
            assertUnchanged(before, fx.table);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndLayouts")
    void chunkColumn_onAosTable_throwsIllegalStateAndOnSoaTableIsTheFieldsColumn(TableKind kind, RecordLayout layout) {
        try (Fixture fx = Fixture.mixed(kind, layout)) {
            long h = fx.live.get(0);
            Chunk chunk = fx.chunkHolding(h);
            LongField l = fx.schema.longField("l");
            if (layout == RecordLayout.AOS) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> chunk.column(l));
                assertTrue(e.getMessage().contains("records()"), e::getMessage);
                assertThrows(IllegalStateException.class, () -> chunk.writableColumn(l));
            } else {
                MemorySegment column = chunk.column(l);
                assertEquals((long) chunk.slotCount() * Long.BYTES, column.byteSize());
                assertEquals(fx.table.get(h, l), column.getAtIndex(ValueLayout.JAVA_LONG, fx.slotHolding(h)));
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Writing a hole through a view changes nothing but the hole's bytes: the free list is not
    // in the records, every hole is handed out once, and a snapshot after it loads exactly.

    /** Writes {@code value} into the first float column "t" (the link word of the list's saved form) of the free-list head. */
    private static int writeFreeListHead(Fixture fx, float value) {
        BulkTableImpl stable = (BulkTableImpl) fx.table;
        int head = TableAudit.freeSlots(stable)[0];
        Chunk chunk = fx.chunkOf(head);
        int s = fx.slotInChunk(head);
        FloatField t = fx.schema.floatField("t");
        if (fx.schema.layout() == RecordLayout.SOA) {
            chunk.writableColumn(t).setAtIndex(ValueLayout.JAVA_FLOAT, s, value);
        } else {
            chunk.writableRecords().set(ValueLayout.JAVA_FLOAT, t.blockOffset() + (long) s * t.slotStride(), value);
        }
        fx.endChunks();
        return head;
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void add_afterHolesWereWrittenThroughView_handsOutEveryHoleOnceZeroedAndLeavesLiveRecordsUnchanged(RecordLayout layout) {
        try (Fixture fx = Fixture.particles(TableKind.BULK, layout)) {
            assertTrue(fx.removed.size() >= 2, "the fixture must have several holes");
            Map<Long, List<Long>> before = liveRecords(fx.table);
            int[] holes = TableAudit.freeSlots(fx.table);
            int head = writeFreeListHead(fx, 1.0f);
            assertEquals(holes[0], head);
            List<Long> added = new ArrayList<>();
            java.util.Set<Long> slots = new java.util.HashSet<>();
            for (int i = 0; i < holes.length; i++) {
                long h = fx.table.add();
                added.add(h);
                assertEquals(holes[i], fx.table.handleLayout().slot(h), "holes are reused in list order");
                assertTrue(slots.add(fx.table.handleLayout().slot(h)), "a hole handed out twice");
            }
            Map<Long, List<Long>> after = liveRecords(fx.table);
            for (long h : added) {
                assertEquals(List.of(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L), after.remove(h), "an added record is all zero");
            }
            assertEquals(before, after);
            TableAudit.check(fx.table);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void snapshot_afterAHoleWasWrittenThroughView_loadsWithTheSameFreeList(RecordLayout layout) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("holes", ".bulk");
        try {
            int[] holes;
            Map<Long, List<Long>> before;
            long next;
            try (Fixture fx = Fixture.particles(TableKind.BULK, layout)) {
                holes = TableAudit.freeSlots(fx.table);
                writeFreeListHead(fx, 1.0f);
                Snapshots.save(fx.table, file);
                before = liveRecords(fx.table);
                next = fx.table.add();
            }
            try (BulkTable loaded = Snapshots.load(file, BulkTable.class, null)) {
                assertEquals(before, liveRecords(loaded));
                assertArrayEquals(holes, TableAudit.freeSlots(loaded), "the loaded free list");
                assertEquals(next, loaded.add(), "the next add returns the handle it returned before the save");
                TableAudit.check(loaded);
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @ParameterizedTest
    @EnumSource(RecordLayout.class)
    void snapshotHelpers_seeTheFixtureAsDistinctValuesAndHoles(RecordLayout layout) {
        // Guards the other tests: an empty or all-equal fixture would make "unchanged" trivially true.
        try (Fixture fx = Fixture.mixed(TableKind.BULK, layout)) {
            TableSnapshot s = TableSnapshot.of(fx.table);
            assertEquals(fx.live.size(), s.records().size());
            assertEquals(fx.removed.size(), s.freeList().size());
            assertEquals(s.records().size(), s.records().values().stream().distinct().count());
            assertTrue(s.stats().blocks() > 1);
            long h = fx.live.get(0);
            fx.table.set(h, fx.schema.longField("l"), -1L);
            assertNotEquals(s, TableSnapshot.of(fx.table), "a snapshot must see a changed value");
        }
    }
}
