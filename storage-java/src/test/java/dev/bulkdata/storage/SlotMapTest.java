package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotEntries;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.internal.core.SlotRejections;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.InvalidHandleException.Reason;
import dev.bulkdata.storage.SlotMapFixture.Entries;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlotMap}'s parts on their own, each with the entries in heap pages and in a range
 * reserved in a {@link BlockArena} ({@link SlotMapFixture}): SWEEP's hole bits and cursor,
 * the FIFO and LIFO ring, the slots a clear frees, {@link SlotMap#undoTake}, the runs of a
 * batch add ({@link SlotMap#openRun}, {@link SlotMap#reopenRun}), {@link SlotMap#reserve},
 * {@link SlotMap#find} and {@link SlotMap#findPayload}, and the reasons a handle is
 * rejected. {@code SlotMapModelTest} runs random operations against a model.
 */
class SlotMapTest {
    /** 20 slot bits, 8 generation bits: room for stray bits below the tag. */
    private static final HandleLayout LAYOUT = HandleLayout.of(20, 8);

    private static SlotMapFixture fixture(Entries entries, ReuseOrder order) {
        return new SlotMapFixture(entries, LAYOUT, 0, 20_000, order, false);
    }

    /** Takes a slot and makes it live, as an add does; {@return the slot} */
    private static int add(SlotMap slotMap) {
        slotMap.reserve(1, 0);
        int slot = slotMap.take();
        slotMap.activate(slot);
        return slot;
    }

    /** {@return the slots of the next {@code n} adds} */
    private static int[] adds(SlotMap slotMap, int n) {
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            slots[i] = add(slotMap);
        }
        return slots;
    }

    /** Adds {@code n} records to an index with no holes, in one run; {@return their handles} */
    private static long[] addRun(SlotMap slotMap, int n) {
        long[] handles = new long[n];
        slotMap.reserve(n, 0);
        slotMap.openRun(n, handles, 0);
        return handles;
    }

    /** Removes the record of a live slot, as a remove does. */
    private static void remove(SlotMap slotMap, int slot) {
        slotMap.markDead(slot);
        slotMap.release(slot);
    }

    private static int generation(SlotMap slotMap, int slot) {
        return SlotMeta.generation(slotMap.meta(slot));
    }

    private static int[] range(int from, int to) {
        return IntStream.rangeClosed(from, to).toArray();
    }

    private static int[] concat(int[]... parts) {
        return Stream.of(parts).flatMapToInt(IntStream::of).toArray();
    }

    static Stream<Arguments> entriesAndOrders() {
        List<Arguments> all = new ArrayList<>();
        for (Entries entries : Entries.values()) {
            for (ReuseOrder order : ReuseOrder.values()) {
                all.add(Arguments.of(entries, order));
            }
        }
        return all.stream();
    }

    static Stream<Arguments> entriesAndListOrders() {
        return entriesAndOrders().filter(a -> a.get()[1] != ReuseOrder.SWEEP);
    }

    static Stream<Arguments> entriesAndStrides() {
        return Stream.of(Entries.values()).flatMap(e -> Stream.of(Arguments.of(e, false), Arguments.of(e, true)));
    }

    // ---------------------------------------------------------------------------------------
    // SWEEP: hole bits, their summary, the cursor

    @ParameterizedTest
    @EnumSource(Entries.class)
    void sweep_takesTheFirstHoleAtOrAfterTheCursor_wrappingToSlot1(Entries entries) {
        try (SlotMapFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 10_000);
            // Holes under three words of summary bits (4,096 slots each), freed out of order.
            for (int slot : new int[] {9_000, 20, 5_000, 4_096, 64, 63}) {
                remove(slotMap, slot);
            }
            SlotMapAudit.checkInvariants(slotMap, 10_000 - 6, 10_000 - 6);
            assertArrayEquals(new int[] {20, 63, 64, 4_096, 5_000, 9_000}, SlotMapAudit.freeSlots(slotMap),
                    "no hole at or after the cursor (10,001): takes wrap to slot 1, then go up");
            assertEquals(9_000, slotMap.tail(), "the last hole a take will reach");
            assertEquals(20, add(slotMap));
            remove(slotMap, 10);
            remove(slotMap, 30);
            assertArrayEquals(new int[] {30, 63, 64, 4_096, 5_000, 9_000, 10}, SlotMapAudit.freeSlots(slotMap),
                    "from the cursor (21) up, then from slot 1");
            assertEquals(10, slotMap.tail());
            assertEquals(21, slotMap.reuseCursor(), "a snapshot saves the cursor");
            assertArrayEquals(new int[] {30, 63, 64, 4_096, 5_000, 9_000, 10, 10_001}, adds(slotMap, 8),
                    "the holes, then a fresh slot");
            assertEquals(1, generation(slotMap, 4_096), "a reused slot is one generation on");
            SlotMapAudit.checkInvariants(slotMap, 10_001, 10_001);
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void sweep_holeBitsFollowEveryTakeAndRelease_acrossWordsAndSummaryWords(Entries entries) {
        try (SlotMapFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 12_000);
            // Every slot of words 0, 63, 64 (a new summary word) and 187, the last of the slots.
            int[] freed = concat(range(1, 63), range(63 * 64, 65 * 64 - 1), range(187 * 64, 12_000));
            for (int slot : freed) {
                remove(slotMap, slot);
            }
            SlotMapAudit.checkInvariants(slotMap, 12_000 - freed.length, 12_000 - freed.length);
            assertArrayEquals(freed, SlotMapAudit.freeSlots(slotMap));
            assertArrayEquals(freed, adds(slotMap, freed.length), "slot order, wrapping once");
            assertEquals(0, slotMap.holes());
            SlotMapAudit.checkInvariants(slotMap, 12_000, 12_000);
            assertEquals(12_001, add(slotMap), "no hole: a fresh slot");
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void sweep_untake_givesBackTheSlotAndTheCursor(Entries entries) {
        try (SlotMapFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 10);
            // A fresh slot goes back to the never-opened ones, a generation on.
            slotMap.reserve(1, 0);
            assertEquals(11, slotMap.take());
            slotMap.activate(11);
            slotMap.markDead(11);
            slotMap.undoTake(11, 11);
            assertEquals(11, slotMap.limit);
            assertEquals(11, add(slotMap), "the same slot, opened again");
            assertFalse(slotMap.reused, "never handed out: its record was not used");
            assertEquals(1, generation(slotMap, 11), "the cancelled handle stays stale");
            // A hole goes back into the bits; the cursor goes back to where it was.
            remove(slotMap, 3);
            remove(slotMap, 7);
            slotMap.reserve(1, 0);
            assertEquals(3, slotMap.take(), "wraps from the cursor (12)");
            assertTrue(slotMap.reused);
            slotMap.activate(3);
            slotMap.markDead(3);
            slotMap.undoTake(3, slotMap.limit);
            assertEquals(2, generation(slotMap, 3));
            assertArrayEquals(new int[] {3, 7}, SlotMapAudit.freeSlots(slotMap), "the cursor is back at 12: slot 3 comes first again");
            SlotMapAudit.checkInvariants(slotMap, 9, 9);
        }
    }

    // ---------------------------------------------------------------------------------------
    // FIFO and LIFO: the ring

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void list_reusesTheSlotFreedLongestAgo_inFifo_andTheSlotFreedLast_inLifo(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 10);
            remove(slotMap, 5);
            remove(slotMap, 2);
            remove(slotMap, 9);
            int[] expected = order == ReuseOrder.FIFO ? new int[] {5, 2, 9} : new int[] {9, 2, 5};
            assertArrayEquals(expected, SlotMapAudit.freeSlots(slotMap));
            assertArrayEquals(expected, slotMap.listedSlots());
            assertEquals(expected[2], slotMap.tail());
            SlotMapAudit.checkInvariants(slotMap, 7, 7);
            assertArrayEquals(concat(expected, new int[] {11}), adds(slotMap, 4));
            assertEquals(0, slotMap.tail(), "an empty list has no tail");
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void ring_growsWhileWrapped_andKeepsTheListOrder(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 40);
            for (int slot = 1; slot <= 10; slot++) {
                remove(slotMap, slot);
            }
            // Six pops move the head into the ring (16 entries); the twenty pushes that follow go
            // round its end (FIFO pushes at the tail) or its start (LIFO pushes at the head), and
            // the ring grows twice on the way.
            int[] popped = adds(slotMap, 6);
            assertArrayEquals(order == ReuseOrder.FIFO ? range(1, 6) : new int[] {10, 9, 8, 7, 6, 5}, popped);
            for (int slot = 11; slot <= 30; slot++) {
                remove(slotMap, slot);
            }
            int[] expected = order == ReuseOrder.FIFO
                    ? range(7, 30)
                    : concat(IntStream.rangeClosed(11, 30).map(s -> 41 - s).toArray(), new int[] {4, 3, 2, 1});
            assertArrayEquals(expected, SlotMapAudit.freeSlots(slotMap));
            SlotMapAudit.checkInvariants(slotMap, 16, 16);
            assertArrayEquals(concat(expected, new int[] {41}), adds(slotMap, 25));
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void list_untake_putsTheSlotBackAtTheHead(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 5);
            remove(slotMap, 2);
            remove(slotMap, 4);
            int head = order == ReuseOrder.FIFO ? 2 : 4;
            slotMap.reserve(1, 0);
            assertEquals(head, slotMap.take());
            slotMap.activate(head);
            slotMap.markDead(head);
            slotMap.undoTake(head, slotMap.limit);
            assertEquals(2, generation(slotMap, head), "the cancelled handle stays stale");
            assertEquals(head, SlotMapAudit.freeSlots(slotMap)[0], "back at the head, in FIFO too");
            SlotMapAudit.checkInvariants(slotMap, 3, 3);
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void take_ofAListedSlotThatIsNotFree_throws_andChangesNothing(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 5);
            remove(slotMap, 3);
            slotMap.setMeta(3, SlotMeta.live(1));  // a broken slotMap: the listed slot is live
            slotMap.reserve(1, 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, slotMap::take);
            assertTrue(e.getMessage().contains("free list of table 'slot-map-test' is corrupt: it names slot 3"),
                    e.getMessage());
            assertEquals(1, slotMap.holes());
            assertEquals(6, slotMap.limit);
            slotMap.setMeta(3, SlotMeta.free(1));
            assertEquals(3, add(slotMap), "the list still names slot 3");
        }
    }

    // ---------------------------------------------------------------------------------------
    // A clear: every slot freed at once, in slot order

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void clear_freesEverySlotInSlotOrder_takenBeforeTheListInFifo_afterItInLifo(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 6);
            remove(slotMap, 4);   // in the list (FIFO, LIFO) or the bits (SWEEP) before the clear
            slotMap.releaseAllLive();
            assertEquals(6, slotMap.holes());
            assertEquals(1, slotMap.reuseCursor(), "the sweep (FIFO, LIFO) or the cursor (SWEEP) starts at slot 1");
            assertArrayEquals(range(1, 6), SlotMapAudit.freeSlots(slotMap));
            for (int slot = 1; slot <= 6; slot++) {
                assertEquals(1, generation(slotMap, slot), "slot " + slot + ": live ones advance, the free one stays");
            }
            SlotMapAudit.checkInvariants(slotMap, 0, 0);
            assertArrayEquals(range(1, 3), adds(slotMap, 3));
            remove(slotMap, 2);
            int[] expected = switch (order) {
                case FIFO -> new int[] {4, 5, 6, 2};    // the clear's slots first
                case LIFO -> new int[] {2, 4, 5, 6};    // the list first
                case SWEEP -> new int[] {4, 5, 6, 2};   // from the cursor, wrapping
            };
            assertArrayEquals(expected, SlotMapAudit.freeSlots(slotMap));
            SlotMapAudit.checkInvariants(slotMap, 2, 2);
            assertArrayEquals(concat(expected, new int[] {7}), adds(slotMap, 5));
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void clear_retiresSlotsAtTheLastGeneration_andTakesSkipThem(Entries entries, ReuseOrder order) {
        HandleLayout oneBit = HandleLayout.of(20, 1);
        try (SlotMapFixture f = new SlotMapFixture(entries, oneBit, 0, 100, order, false)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 5);
            remove(slotMap, 3);
            assertEquals(3, add(slotMap), "the only hole");
            assertEquals(1, generation(slotMap, 3), "at the last generation");
            slotMap.releaseAllLive();
            assertEquals(1, slotMap.retired);
            assertTrue(SlotMeta.isRetired(slotMap.meta(3)));
            assertEquals(4, slotMap.holes());
            assertArrayEquals(new int[] {1, 2, 4, 5}, SlotMapAudit.freeSlots(slotMap));
            SlotMapAudit.checkInvariants(slotMap, 0, 0);
            assertArrayEquals(new int[] {1, 2, 4, 5, 6}, adds(slotMap, 5));
            long retiredHandle = oneBit.pack(f.lease.tag, 1, 3);
            assertEquals(-1, slotMap.find(retiredHandle));
            assertEquals(Reason.STALE,
                    SlotRejections.rejection(slotMap, retiredHandle, null, TagRegistry.OWNERS).reason());
            SlotMapAudit.checkInvariants(slotMap, 5, 5);
        }
    }

    /**
     * A clear on three pages of entries (4,096 slots each; in a range, the last one cut short):
     * page 0 has a payload that equals a live meta word at the last generation, page 1 a slot
     * that retires, page 2 neither. Every live slot advances or retires, and no payload changes.
     */
    @ParameterizedTest
    @MethodSource("entriesAndStrides")
    void clear_advancesEveryLiveSlotOnEveryPage_andLeavesPayloadsAsTheyWere(Entries entries, boolean payloads) {
        HandleLayout twoBits = HandleLayout.of(20, 2);
        int n = 9_000;
        try (SlotMapFixture f = new SlotMapFixture(entries, twoBits, 0, n, ReuseOrder.FIFO, payloads)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, n);
            for (int i = 0; i < twoBits.maxGeneration(); i++) {
                remove(slotMap, 4_200);
                assertEquals(4_200, add(slotMap));
            }
            int maxLive = SlotMeta.live(twoBits.maxGeneration());
            assertEquals(maxLive, slotMap.meta(4_200));
            if (payloads) {
                for (int slot = 1; slot <= n; slot++) {
                    slotMap.setPayload(slot, slot * 2 + 1);   // odd, as a live meta word
                }
                slotMap.setPayload(10, maxLive);
            }
            slotMap.releaseAllLive();
            assertEquals(1, slotMap.retired);
            assertEquals(n - 1, slotMap.holes());
            for (int slot = 1; slot <= n; slot++) {
                if (slot == 4_200) {
                    assertEquals(SlotMeta.retired(twoBits.maxGeneration()), slotMap.meta(slot));
                } else {
                    assertEquals(SlotMeta.free(1), slotMap.meta(slot), "slot " + slot);
                }
                if (payloads) {
                    int expected = slot == 10 ? maxLive : slot * 2 + 1;
                    assertEquals(expected, slotMap.payload(slot), "payload of slot " + slot);
                }
            }
            SlotMapAudit.checkInvariants(slotMap, 0, 0);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Batch adds: openRun and reopenRun

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void openRun_opensFreshSlotsLive_atTheFloor_orAtTheGenerationACancelledAddLeft(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = new SlotMapFixture(entries, LAYOUT, 3, 20_000, order, false)) {
            SlotMap slotMap = f.slots;
            slotMap.reserve(1, 0);
            assertEquals(1, slotMap.take());
            slotMap.activate(1);
            slotMap.markDead(1);
            slotMap.undoTake(1, 0);
            assertEquals(0, slotMap.limit, "the cancelled add opened the first slot");
            long[] out = new long[7];
            slotMap.reserve(5, 0);
            assertEquals(1, slotMap.openRun(5, out, 1));
            int tag = f.lease.tag;
            assertArrayEquals(new long[] {0, LAYOUT.pack(tag, 4, 1), LAYOUT.pack(tag, 3, 2), LAYOUT.pack(tag, 3, 3),
                    LAYOUT.pack(tag, 3, 4), LAYOUT.pack(tag, 3, 5), 0}, out);
            assertFalse(slotMap.reused);
            assertEquals(6, slotMap.limit);
            for (int k = 1; k <= 5; k++) {
                assertEquals(k, slotMap.find(out[k]));
            }
            SlotMapAudit.checkInvariants(slotMap, 5, 5);
            assertEquals(6, add(slotMap), "takes go on after the run");
            slotMap.reserve(2, 6);
            assertEquals(7, slotMap.openRun(2, new long[2], 0), "a second run goes on from the limit");
            SlotMapAudit.checkInvariants(slotMap, 8, 8);
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void openRun_intoAnIndexWithHoles_throws_andChangesNothing(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 5);
            remove(slotMap, 2);
            long[] out = new long[3];
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> slotMap.openRun(3, out, 0));
            assertTrue(e.getMessage().contains("has holes to reuse first"), e.getMessage());
            assertArrayEquals(new long[3], out);
            assertEquals(6, slotMap.limit);
            assertArrayEquals(new int[] {2}, SlotMapAudit.freeSlots(slotMap));
        }
    }

    static Stream<Arguments> reopenCounts() {
        return entriesAndOrders().flatMap(a -> IntStream.of(1, 63, 64, 65, 4_095, 4_096, 4_097, 5_000, 6_000)
                .mapToObj(count -> Arguments.of(a.get()[0], a.get()[1], count)));
    }

    /** Counts that end a run in the middle of a word of hole bits, at its last bit, past a summary word, past the slots. */
    @ParameterizedTest(name = "{0} {1} count {2}")
    @MethodSource("reopenCounts")
    void reopenRun_afterAClear_takesTheSlotsFrom1Up(Entries entries, ReuseOrder order, int count) {
        try (SlotMapFixture f = fixture(entries, order)) {
            SlotMap slotMap = f.slots;
            addRun(slotMap, 5_000);
            slotMap.releaseAllLive();
            long[] out = new long[count + 2];
            int taken = slotMap.reopenRun(count, out, 1);
            assertEquals(Math.min(count, 5_000), taken);
            assertEquals(0, out[0]);
            assertEquals(0, out[taken + 1]);
            for (int k = 0; k < taken; k++) {
                assertEquals(LAYOUT.pack(f.lease.tag, 1, 1 + k), out[1 + k], "handle " + k);
            }
            assertTrue(slotMap.reused, "the records were used before the clear");
            assertEquals(5_000 - taken, slotMap.holes());
            assertArrayEquals(range(taken + 1, 5_000), SlotMapAudit.freeSlots(slotMap));
            SlotMapAudit.checkInvariants(slotMap, taken, taken);
            assertEquals(taken + 1, add(slotMap), "takes go on after the run");
            SlotMapAudit.checkInvariants(slotMap, taken + 1, taken + 1);
        }
    }

    /**
     * reopenRun takes slots only after a clear left every opened slot free and none retired; in
     * any other state it takes none and changes nothing (the batch add takes the slots one by
     * one). That includes every slot freed by removals in slot order: the slots are in the list
     * (FIFO, LIFO), or the cursor is past them (SWEEP).
     */
    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void reopenRun_takesNothing_unlessAClearFreedEveryOpenedSlot(Entries entries, ReuseOrder order) {
        try (SlotMapFixture f = new SlotMapFixture(entries, HandleLayout.of(20, 1), 0, 100, order, false)) {
            SlotMap slotMap = f.slots;
            long[] out = new long[4];
            assertEquals(0, slotMap.reopenRun(4, out, 0), "nothing opened");
            addRun(slotMap, 3);
            assertEquals(0, slotMap.reopenRun(4, out, 0), "live slots");
            for (int slot = 1; slot <= 3; slot++) {
                remove(slotMap, slot);
            }
            int[] free = SlotMapAudit.freeSlots(slotMap);
            assertEquals(0, slotMap.reopenRun(4, out, 0), "every slot freed by a removal");
            assertArrayEquals(free, SlotMapAudit.freeSlots(slotMap));
            int slot = add(slotMap);
            assertEquals(1, generation(slotMap, slot));
            slotMap.releaseAllLive();
            assertEquals(1, slotMap.retired);
            assertEquals(0, slotMap.reopenRun(4, out, 0), "a retired slot");
            assertArrayEquals(new long[4], out);
            assertEquals(2, slotMap.holes());
        }
    }

    // ---------------------------------------------------------------------------------------
    // Room: reserve

    @ParameterizedTest
    @EnumSource(Entries.class)
    void reserve_countsHolesThenFreshSlots_andRefusesWhatDoesNotFit(Entries entries) {
        try (SlotMapFixture f = new SlotMapFixture(entries, LAYOUT, 0, 10, ReuseOrder.FIFO, false)) {
            SlotMap slotMap = f.slots;
            assertEquals(10, slotMap.freshSlots());
            assertEquals(3, slotMap.reserve(3, 0), "the highest slot three adds may open");
            assertEquals(0, slotMap.limit, "reserving opens nothing");
            adds(slotMap, 8);
            remove(slotMap, 2);
            remove(slotMap, 5);
            assertEquals(-1, slotMap.reserve(2, 6), "the holes cover two adds");
            assertEquals(9, slotMap.reserve(3, 6));
            assertEquals(10, slotMap.reserve(4, 6));
            CapacityExceededException e = assertThrows(CapacityExceededException.class, () -> slotMap.reserve(5, 6));
            assertTrue(e.getMessage().startsWith("table 'slot-map-test' is full: 5 record(s) requested, room for 4;"),
                    e.getMessage());
            assertEquals(9, slotMap.limit);
            assertArrayEquals(new int[] {2, 5}, SlotMapAudit.freeSlots(slotMap));
        }
        try (SlotMapFixture f = new SlotMapFixture(entries, HandleLayout.of(3, 8), 0, 100, ReuseOrder.FIFO, false)) {
            assertEquals(7, f.slots.freshSlots(), "three slotMap bits: slots 1 to 7, whatever the capacity");
            assertThrows(CapacityExceededException.class, () -> f.slots.reserve(8, 0));
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void reserveRange_onAnIndexThatHasEntries_throws(Entries entries) {
        try (SlotMapFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            TagLease lease = TagRegistry.register("slot-map-arena", LAYOUT);
            BlockArena arena = new BlockArena(f, lease);
            try {
                if (entries == Entries.HEAP) {
                    add(f.slots);
                }
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.slots.reserveRange(arena));
                assertTrue(e.getMessage().contains("already has entries"), e.getMessage());
            } finally {
                arena.close();
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Lookups: find and findPayload

    @ParameterizedTest
    @MethodSource("entriesAndStrides")
    void find_acceptsOnlyTheCurrentHandleOfALiveSlot(Entries entries, boolean payloads) {
        try (SlotMapFixture f = new SlotMapFixture(entries, LAYOUT, 0, 20_000, ReuseOrder.FIFO, payloads)) {
            SlotMap slotMap = f.slots;
            long[] handles = addRun(slotMap, 5_000);
            if (payloads) {
                for (int slot = 1; slot <= 5_000; slot++) {
                    slotMap.setPayload(slot, 7 * slot);
                }
            }
            for (int slot : new int[] {1, 2, 4_095, 4_096, 4_097, 5_000}) {
                long h = handles[slot - 1];
                assertEquals(slot, slotMap.find(h));
                if (payloads) {
                    assertEquals(7 * slot, slotMap.findPayload(h), "the payload beside the meta word");
                }
            }
            remove(slotMap, 4_096);
            assertEquals(-1, slotMap.find(handles[4_095]), "a removed record's handle");
            assertEquals(4_096, add(slotMap));
            long again = slotMap.handleOf(4_096);
            assertEquals(LAYOUT.pack(f.lease.tag, 1, 4_096), again);
            assertEquals(4_096, slotMap.find(again));
            assertEquals(-1, slotMap.find(handles[4_095]), "the slot's earlier handle");
            int tag = f.lease.tag;
            long[] never = {
                    Handles.NULL,
                    LAYOUT.pack(tag % HandleLayout.MAX_TAG + 1, 0, 1),       // another tag
                    handles[0] | 1L << 40,                                  // a stray bit
                    LAYOUT.pack(tag, 0, 0),                                 // the header
                    LAYOUT.pack(tag, 0, 5_001),                             // not opened
                    LAYOUT.pack(tag, 1, 1),                                 // a generation to come
                    LAYOUT.pack(tag, 0, 5_001 + (1 << 19)),                 // far past the limit
            };
            for (long h : never) {
                assertEquals(-1, slotMap.find(h), Handles.format(h));
                if (payloads) {
                    assertEquals(-1, slotMap.findPayload(h), Handles.format(h));
                }
            }
            slotMap.close();
            assertEquals(-1, slotMap.find(handles[0]), "a closed slotMap finds nothing");
            if (payloads) {
                assertEquals(-1, slotMap.findPayload(handles[0]));
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Seams: what the slot map tells and asks the layers above it (events, tags, memory)

    @org.junit.jupiter.api.Test
    void retirements_areToldThroughTheSeam() {
        HandleLayout oneBit = HandleLayout.of(20, 1);
        List<String> told = new ArrayList<>();
        SlotMap slotMap = new SlotMap("seams", oneBit, 7, 0, 100, ReuseOrder.FIFO, null,
                (tag, retired, total, operation, epoch) -> told.add(tag + " " + retired + " " + total + " "
                        + operation + " " + epoch));
        addRun(slotMap, 3);
        remove(slotMap, 2);
        assertEquals(2, add(slotMap));
        remove(slotMap, 2);
        assertEquals(List.of("7 1 1 remove 0"), told, "a removal at the last generation");
        remove(slotMap, 3);
        assertEquals(3, add(slotMap));
        slotMap.releaseAllLive();
        assertEquals(List.of("7 1 1 remove 0", "7 1 2 clear 0"), told, "a clear retiring slot 3");
    }

    @org.junit.jupiter.api.Test
    void rejection_namesOtherTagsThroughTheSeam() {
        SlotMap slotMap = new SlotMap("seams", LAYOUT, 7, 0, 100, ReuseOrder.FIFO, null, SlotMap.Retirements.NONE);
        SlotRejections.Owners owners = new SlotRejections.Owners() {
            @Override
            public String nameOf(int tag) {
                return tag == 9 ? "other" : null;
            }

            @Override
            public String closedNameOf(int tag) {
                return null;
            }

            @Override
            public boolean predatesHolder(int tag, long handle) {
                return false;
            }

            @Override
            public String format(long handle) {
                return "other#1";
            }
        };
        InvalidHandleException e = SlotRejections.rejection(slotMap, LAYOUT.pack(9, 0, 1), null, owners);
        assertEquals(Reason.FOREIGN, e.reason());
        assertEquals("handle other#1 belongs to table 'other' (tag 9), not to table 'seams' (tag 7)", e.getMessage());
    }

    @org.junit.jupiter.api.Test
    void reserveRange_takesTheSpacesRange_andAdvisesHugePagesOnce() {
        List<Long> asked = new ArrayList<>();
        List<java.lang.foreign.MemorySegment> advised = new ArrayList<>();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            SlotMap slotMap = new SlotMap("seams", LAYOUT, 7, 0, 600_000, ReuseOrder.FIFO, null,
                    SlotMap.Retirements.NONE);
            slotMap.reserveRange(new SlotEntries.Space() {
                @Override
                public java.lang.foreign.MemorySegment reserve(long bytes) {
                    asked.add(bytes);
                    return arena.allocate(bytes);
                }

                @Override
                public void adviseHugePages(java.lang.foreign.MemorySegment range) {
                    advised.add(range);
                }
            });
            assertEquals(List.of(600_002L << 3), asked, "slots 0 to maxSlot + 1, 8 bytes each");
            slotMap.reserve(1_000, 0);
            assertEquals(List.of(), advised, "8,000 bytes in use");
            slotMap.reserve(300_000, 0);
            slotMap.reserve(400_000, 0);
            assertEquals(1, advised.size(), "once past 2 MiB");
            assertTrue(advised.get(0) == slotMap.range);
            long[] handles = addRun(slotMap, 3);
            assertEquals(2, slotMap.find(handles[1]));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Rejections: why a handle is not live here

    private static void rejected(SlotMap slotMap, long handle, String previousName, Reason reason, String... says) {
        assertEquals(-1, slotMap.find(handle));
        InvalidHandleException e = SlotRejections.rejection(slotMap, handle, previousName, TagRegistry.OWNERS);
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(handle, e.handle());
        assertEquals("slot-map-test", e.table());
        for (String s : says) {
            assertTrue(e.getMessage().contains(s), "'" + e.getMessage() + "' should say '" + s + "'");
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void rejection_namesTheReason(Entries entries) {
        try (SlotMapFixture f = new SlotMapFixture(entries, LAYOUT, 2, 100, ReuseOrder.FIFO, false)) {
            SlotMap slotMap = f.slots;
            int tag = f.lease.tag;
            rejected(slotMap, LAYOUT.pack(tag, 2, 1), null, Reason.OUT_OF_RANGE, "has not handed out any slot yet");
            addRun(slotMap, 3);
            rejected(slotMap, Handles.NULL, null, Reason.NULL, "null handle passed to table 'slot-map-test'");

            TagLease other = TagRegistry.register("slot-map-other", LAYOUT);
            long foreign = LAYOUT.pack(other.tag, other.floor, 1);
            try {
                rejected(slotMap, foreign, null, Reason.FOREIGN, "belongs to table 'slot-map-other' (tag " + other.tag + ")");
            } finally {
                TagRegistry.release(other);
            }
            rejected(slotMap, foreign, null, Reason.CLOSED, "no open table has tag " + other.tag,
                    "whose last table, 'slot-map-other', is closed", "a handle made up with that tag reads the same");
            int unheld = HandleLayout.MAX_TAG;
            while (TagRegistry.nameOf(unheld) != null || TagRegistry.closedNameOf(unheld) != null) {
                unheld--;
            }
            rejected(slotMap, LAYOUT.pack(unheld, 0, 1), null, Reason.FORGED,
                    "no table in this process has held tag " + unheld);

            // A fixed tag held by a second table, and a handle of the first: older than the holder.
            int fixed = HandleLayout.MAX_TAG;
            while (TagRegistry.nameOf(fixed) != null) {
                fixed--;
            }
            TagLease earlier = TagRegistry.registerFixed("slot-map-earlier", HandleLayout.DEFAULT, fixed);
            int made = earlier.floor + 5;
            earlier.issued(made, 3);
            TagRegistry.release(earlier);
            TagLease holder = TagRegistry.registerFixed("slot-map-holder", HandleLayout.DEFAULT, fixed);
            try {
                assertTrue(holder.floor > made);
                rejected(slotMap, HandleLayout.DEFAULT.pack(fixed, made, 3), null, Reason.CLOSED,
                        "was made by an earlier table with tag " + fixed, "(the last was 'slot-map-earlier')",
                        "table 'slot-map-holder' holds the tag now");
            } finally {
                TagRegistry.release(holder);
            }

            rejected(slotMap, LAYOUT.pack(tag, 2, 1) | 1L << 40, null, Reason.FORGED, "has bits set outside");
            rejected(slotMap, LAYOUT.pack(tag, 2, 0), null, Reason.FORGED, "names slot 0, the free-list header");
            rejected(slotMap, LAYOUT.pack(tag, 1, 1), "slot-map-before", Reason.CLOSED,
                    "(the last was 'slot-map-before')", "starts every slot at generation 2");
            rejected(slotMap, LAYOUT.pack(tag, 2, 4), null, Reason.OUT_OF_RANGE, "has opened only slots 1..3");
            remove(slotMap, 2);
            rejected(slotMap, LAYOUT.pack(tag, 2, 2), null, Reason.STALE, "stale handle", "handle generation 2, slot generation 3",
                    "slot is free", "its record was removed");
            rejected(slotMap, LAYOUT.pack(tag, 3, 2), null, Reason.FORGED, "slot is free", "never handed it out");
            rejected(slotMap, LAYOUT.pack(tag, 9, 1), null, Reason.FORGED, "slot generation 2, slot is live",
                    "never handed it out");
        }
    }
}
