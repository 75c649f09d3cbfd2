package dev.bulkdata.storage;

import dev.bulkdata.storage.InvalidHandleException.Reason;
import dev.bulkdata.storage.SlotIndexFixture.Entries;
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
 * {@link SlotIndex}'s parts on their own, each with the entries in heap pages and in a range
 * reserved in a {@link BlockArena} ({@link SlotIndexFixture}): SWEEP's hole bits and cursor,
 * the FIFO and LIFO ring, the slots a clear frees, {@link SlotIndex#undoTake}, the runs of a
 * batch add ({@link SlotIndex#openRun}, {@link SlotIndex#reopenRun}), {@link SlotIndex#reserve},
 * {@link SlotIndex#find} and {@link SlotIndex#findPayload}, and the reasons a handle is
 * rejected. {@code SlotIndexModelTest} runs random operations against a model.
 */
class SlotIndexTest {
    /** 20 index bits, 8 generation bits: room for stray bits below the tag. */
    private static final HandleLayout LAYOUT = HandleLayout.of(20, 8);

    private static SlotIndexFixture fixture(Entries entries, ReuseOrder order) {
        return new SlotIndexFixture(entries, LAYOUT, 0, 20_000, order, false);
    }

    /** Takes a slot and makes it live, as an add does; {@return the slot} */
    private static int add(SlotIndex index) {
        index.reserve(1, 0);
        int slot = index.take();
        index.activate(slot);
        return slot;
    }

    /** {@return the slots of the next {@code n} adds} */
    private static int[] adds(SlotIndex index, int n) {
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            slots[i] = add(index);
        }
        return slots;
    }

    /** Adds {@code n} records to an index with no holes, in one run; {@return their handles} */
    private static long[] addRun(SlotIndex index, int n) {
        long[] handles = new long[n];
        index.reserve(n, 0);
        index.openRun(n, handles, 0);
        return handles;
    }

    /** Removes the record of a live slot, as a remove does. */
    private static void remove(SlotIndex index, int slot) {
        index.markDead(slot);
        index.release(slot);
    }

    private static int generation(SlotIndex index, int slot) {
        return SlotMeta.generation(index.meta(slot));
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
        try (SlotIndexFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotIndex index = f.index;
            addRun(index, 10_000);
            // Holes under three words of summary bits (4,096 slots each), freed out of order.
            for (int slot : new int[] {9_000, 20, 5_000, 4_096, 64, 63}) {
                remove(index, slot);
            }
            SlotIndexAudit.checkInvariants(index, 10_000 - 6, 10_000 - 6);
            assertArrayEquals(new int[] {20, 63, 64, 4_096, 5_000, 9_000}, SlotIndexAudit.freeSlots(index),
                    "no hole at or after the cursor (10,001): takes wrap to slot 1, then go up");
            assertEquals(9_000, index.tail(), "the last hole a take will reach");
            assertEquals(20, add(index));
            remove(index, 10);
            remove(index, 30);
            assertArrayEquals(new int[] {30, 63, 64, 4_096, 5_000, 9_000, 10}, SlotIndexAudit.freeSlots(index),
                    "from the cursor (21) up, then from slot 1");
            assertEquals(10, index.tail());
            assertEquals(21, index.reuseCursor(), "a snapshot saves the cursor");
            assertArrayEquals(new int[] {30, 63, 64, 4_096, 5_000, 9_000, 10, 10_001}, adds(index, 8),
                    "the holes, then a fresh slot");
            assertEquals(1, generation(index, 4_096), "a reused slot is one generation on");
            SlotIndexAudit.checkInvariants(index, 10_001, 10_001);
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void sweep_holeBitsFollowEveryTakeAndRelease_acrossWordsAndSummaryWords(Entries entries) {
        try (SlotIndexFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotIndex index = f.index;
            addRun(index, 12_000);
            // Every slot of words 0, 63, 64 (a new summary word) and 187, the last of the slots.
            int[] freed = concat(range(1, 63), range(63 * 64, 65 * 64 - 1), range(187 * 64, 12_000));
            for (int slot : freed) {
                remove(index, slot);
            }
            SlotIndexAudit.checkInvariants(index, 12_000 - freed.length, 12_000 - freed.length);
            assertArrayEquals(freed, SlotIndexAudit.freeSlots(index));
            assertArrayEquals(freed, adds(index, freed.length), "slot order, wrapping once");
            assertEquals(0, index.holes());
            SlotIndexAudit.checkInvariants(index, 12_000, 12_000);
            assertEquals(12_001, add(index), "no hole: a fresh slot");
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void sweep_untake_givesBackTheSlotAndTheCursor(Entries entries) {
        try (SlotIndexFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            SlotIndex index = f.index;
            addRun(index, 10);
            // A fresh slot goes back to the never-opened ones, a generation on.
            index.reserve(1, 0);
            assertEquals(11, index.take());
            index.activate(11);
            index.markDead(11);
            index.undoTake(11, 11);
            assertEquals(11, index.limit);
            assertEquals(11, add(index), "the same slot, opened again");
            assertFalse(index.reused, "never handed out: its record was not used");
            assertEquals(1, generation(index, 11), "the cancelled handle stays stale");
            // A hole goes back into the bits; the cursor goes back to where it was.
            remove(index, 3);
            remove(index, 7);
            index.reserve(1, 0);
            assertEquals(3, index.take(), "wraps from the cursor (12)");
            assertTrue(index.reused);
            index.activate(3);
            index.markDead(3);
            index.undoTake(3, index.limit);
            assertEquals(2, generation(index, 3));
            assertArrayEquals(new int[] {3, 7}, SlotIndexAudit.freeSlots(index), "the cursor is back at 12: slot 3 comes first again");
            SlotIndexAudit.checkInvariants(index, 9, 9);
        }
    }

    // ---------------------------------------------------------------------------------------
    // FIFO and LIFO: the ring

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void list_reusesTheSlotFreedLongestAgo_inFifo_andTheSlotFreedLast_inLifo(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 10);
            remove(index, 5);
            remove(index, 2);
            remove(index, 9);
            int[] expected = order == ReuseOrder.FIFO ? new int[] {5, 2, 9} : new int[] {9, 2, 5};
            assertArrayEquals(expected, SlotIndexAudit.freeSlots(index));
            assertArrayEquals(expected, index.listedSlots());
            assertEquals(expected[2], index.tail());
            SlotIndexAudit.checkInvariants(index, 7, 7);
            assertArrayEquals(concat(expected, new int[] {11}), adds(index, 4));
            assertEquals(0, index.tail(), "an empty list has no tail");
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void ring_growsWhileWrapped_andKeepsTheListOrder(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 40);
            for (int slot = 1; slot <= 10; slot++) {
                remove(index, slot);
            }
            // Six pops move the head into the ring (16 entries); the twenty pushes that follow go
            // round its end (FIFO pushes at the tail) or its start (LIFO pushes at the head), and
            // the ring grows twice on the way.
            int[] popped = adds(index, 6);
            assertArrayEquals(order == ReuseOrder.FIFO ? range(1, 6) : new int[] {10, 9, 8, 7, 6, 5}, popped);
            for (int slot = 11; slot <= 30; slot++) {
                remove(index, slot);
            }
            int[] expected = order == ReuseOrder.FIFO
                    ? range(7, 30)
                    : concat(IntStream.rangeClosed(11, 30).map(s -> 41 - s).toArray(), new int[] {4, 3, 2, 1});
            assertArrayEquals(expected, SlotIndexAudit.freeSlots(index));
            SlotIndexAudit.checkInvariants(index, 16, 16);
            assertArrayEquals(concat(expected, new int[] {41}), adds(index, 25));
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndListOrders")
    void list_untake_putsTheSlotBackAtTheHead(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 5);
            remove(index, 2);
            remove(index, 4);
            int head = order == ReuseOrder.FIFO ? 2 : 4;
            index.reserve(1, 0);
            assertEquals(head, index.take());
            index.activate(head);
            index.markDead(head);
            index.undoTake(head, index.limit);
            assertEquals(2, generation(index, head), "the cancelled handle stays stale");
            assertEquals(head, SlotIndexAudit.freeSlots(index)[0], "back at the head, in FIFO too");
            SlotIndexAudit.checkInvariants(index, 3, 3);
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void take_ofAListedSlotThatIsNotFree_throws_andChangesNothing(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 5);
            remove(index, 3);
            index.setMeta(3, SlotMeta.live(1));  // a broken index: the listed slot is live
            index.reserve(1, 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, index::take);
            assertTrue(e.getMessage().contains("free list of table 'slot-index-test' is corrupt: it names slot 3"),
                    e.getMessage());
            assertEquals(1, index.holes());
            assertEquals(6, index.limit);
            index.setMeta(3, SlotMeta.free(1));
            assertEquals(3, add(index), "the list still names slot 3");
        }
    }

    // ---------------------------------------------------------------------------------------
    // A clear: every slot freed at once, in slot order

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void clear_freesEverySlotInSlotOrder_takenBeforeTheListInFifo_afterItInLifo(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 6);
            remove(index, 4);   // in the list (FIFO, LIFO) or the bits (SWEEP) before the clear
            index.releaseAllLive();
            assertEquals(6, index.holes());
            assertEquals(1, index.reuseCursor(), "the sweep (FIFO, LIFO) or the cursor (SWEEP) starts at slot 1");
            assertArrayEquals(range(1, 6), SlotIndexAudit.freeSlots(index));
            for (int slot = 1; slot <= 6; slot++) {
                assertEquals(1, generation(index, slot), "slot " + slot + ": live ones advance, the free one stays");
            }
            SlotIndexAudit.checkInvariants(index, 0, 0);
            assertArrayEquals(range(1, 3), adds(index, 3));
            remove(index, 2);
            int[] expected = switch (order) {
                case FIFO -> new int[] {4, 5, 6, 2};    // the clear's slots first
                case LIFO -> new int[] {2, 4, 5, 6};    // the list first
                case SWEEP -> new int[] {4, 5, 6, 2};   // from the cursor, wrapping
            };
            assertArrayEquals(expected, SlotIndexAudit.freeSlots(index));
            SlotIndexAudit.checkInvariants(index, 2, 2);
            assertArrayEquals(concat(expected, new int[] {7}), adds(index, 5));
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void clear_retiresSlotsAtTheLastGeneration_andTakesSkipThem(Entries entries, ReuseOrder order) {
        HandleLayout oneBit = HandleLayout.of(20, 1);
        try (SlotIndexFixture f = new SlotIndexFixture(entries, oneBit, 0, 100, order, false)) {
            SlotIndex index = f.index;
            addRun(index, 5);
            remove(index, 3);
            assertEquals(3, add(index), "the only hole");
            assertEquals(1, generation(index, 3), "at the last generation");
            index.releaseAllLive();
            assertEquals(1, index.retired);
            assertTrue(SlotMeta.isRetired(index.meta(3)));
            assertEquals(4, index.holes());
            assertArrayEquals(new int[] {1, 2, 4, 5}, SlotIndexAudit.freeSlots(index));
            SlotIndexAudit.checkInvariants(index, 0, 0);
            assertArrayEquals(new int[] {1, 2, 4, 5, 6}, adds(index, 5));
            long retiredHandle = oneBit.pack(f.lease.tag, 1, 3);
            assertEquals(-1, index.find(retiredHandle));
            assertEquals(Reason.STALE, SlotRejections.rejection(index, retiredHandle, null).reason());
            SlotIndexAudit.checkInvariants(index, 5, 5);
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
        try (SlotIndexFixture f = new SlotIndexFixture(entries, twoBits, 0, n, ReuseOrder.FIFO, payloads)) {
            SlotIndex index = f.index;
            addRun(index, n);
            for (int i = 0; i < twoBits.maxGeneration(); i++) {
                remove(index, 4_200);
                assertEquals(4_200, add(index));
            }
            int maxLive = SlotMeta.live(twoBits.maxGeneration());
            assertEquals(maxLive, index.meta(4_200));
            if (payloads) {
                for (int slot = 1; slot <= n; slot++) {
                    index.setPayload(slot, slot * 2 + 1);   // odd, as a live meta word
                }
                index.setPayload(10, maxLive);
            }
            index.releaseAllLive();
            assertEquals(1, index.retired);
            assertEquals(n - 1, index.holes());
            for (int slot = 1; slot <= n; slot++) {
                if (slot == 4_200) {
                    assertEquals(SlotMeta.retired(twoBits.maxGeneration()), index.meta(slot));
                } else {
                    assertEquals(SlotMeta.free(1), index.meta(slot), "slot " + slot);
                }
                if (payloads) {
                    int expected = slot == 10 ? maxLive : slot * 2 + 1;
                    assertEquals(expected, index.payload(slot), "payload of slot " + slot);
                }
            }
            SlotIndexAudit.checkInvariants(index, 0, 0);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Batch adds: openRun and reopenRun

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void openRun_opensFreshSlotsLive_atTheFloor_orAtTheGenerationACancelledAddLeft(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = new SlotIndexFixture(entries, LAYOUT, 3, 20_000, order, false)) {
            SlotIndex index = f.index;
            index.reserve(1, 0);
            assertEquals(1, index.take());
            index.activate(1);
            index.markDead(1);
            index.undoTake(1, 0);
            assertEquals(0, index.limit, "the cancelled add opened the first slot");
            long[] out = new long[7];
            index.reserve(5, 0);
            assertEquals(1, index.openRun(5, out, 1));
            int tag = f.lease.tag;
            assertArrayEquals(new long[] {0, LAYOUT.pack(tag, 4, 1), LAYOUT.pack(tag, 3, 2), LAYOUT.pack(tag, 3, 3),
                    LAYOUT.pack(tag, 3, 4), LAYOUT.pack(tag, 3, 5), 0}, out);
            assertFalse(index.reused);
            assertEquals(6, index.limit);
            for (int k = 1; k <= 5; k++) {
                assertEquals(k, index.find(out[k]));
            }
            SlotIndexAudit.checkInvariants(index, 5, 5);
            assertEquals(6, add(index), "takes go on after the run");
            index.reserve(2, 6);
            assertEquals(7, index.openRun(2, new long[2], 0), "a second run goes on from the limit");
            SlotIndexAudit.checkInvariants(index, 8, 8);
        }
    }

    @ParameterizedTest
    @MethodSource("entriesAndOrders")
    void openRun_intoAnIndexWithHoles_throws_andChangesNothing(Entries entries, ReuseOrder order) {
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 5);
            remove(index, 2);
            long[] out = new long[3];
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.openRun(3, out, 0));
            assertTrue(e.getMessage().contains("has holes to reuse first"), e.getMessage());
            assertArrayEquals(new long[3], out);
            assertEquals(6, index.limit);
            assertArrayEquals(new int[] {2}, SlotIndexAudit.freeSlots(index));
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
        try (SlotIndexFixture f = fixture(entries, order)) {
            SlotIndex index = f.index;
            addRun(index, 5_000);
            index.releaseAllLive();
            long[] out = new long[count + 2];
            int taken = index.reopenRun(count, out, 1);
            assertEquals(Math.min(count, 5_000), taken);
            assertEquals(0, out[0]);
            assertEquals(0, out[taken + 1]);
            for (int k = 0; k < taken; k++) {
                assertEquals(LAYOUT.pack(f.lease.tag, 1, 1 + k), out[1 + k], "handle " + k);
            }
            assertTrue(index.reused, "the records were used before the clear");
            assertEquals(5_000 - taken, index.holes());
            assertArrayEquals(range(taken + 1, 5_000), SlotIndexAudit.freeSlots(index));
            SlotIndexAudit.checkInvariants(index, taken, taken);
            assertEquals(taken + 1, add(index), "takes go on after the run");
            SlotIndexAudit.checkInvariants(index, taken + 1, taken + 1);
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
        try (SlotIndexFixture f = new SlotIndexFixture(entries, HandleLayout.of(20, 1), 0, 100, order, false)) {
            SlotIndex index = f.index;
            long[] out = new long[4];
            assertEquals(0, index.reopenRun(4, out, 0), "nothing opened");
            addRun(index, 3);
            assertEquals(0, index.reopenRun(4, out, 0), "live slots");
            for (int slot = 1; slot <= 3; slot++) {
                remove(index, slot);
            }
            int[] free = SlotIndexAudit.freeSlots(index);
            assertEquals(0, index.reopenRun(4, out, 0), "every slot freed by a removal");
            assertArrayEquals(free, SlotIndexAudit.freeSlots(index));
            int slot = add(index);
            assertEquals(1, generation(index, slot));
            index.releaseAllLive();
            assertEquals(1, index.retired);
            assertEquals(0, index.reopenRun(4, out, 0), "a retired slot");
            assertArrayEquals(new long[4], out);
            assertEquals(2, index.holes());
        }
    }

    // ---------------------------------------------------------------------------------------
    // Room: reserve

    @ParameterizedTest
    @EnumSource(Entries.class)
    void reserve_countsHolesThenFreshSlots_andRefusesWhatDoesNotFit(Entries entries) {
        try (SlotIndexFixture f = new SlotIndexFixture(entries, LAYOUT, 0, 10, ReuseOrder.FIFO, false)) {
            SlotIndex index = f.index;
            assertEquals(10, index.freshSlots());
            assertEquals(3, index.reserve(3, 0), "the highest slot three adds may open");
            assertEquals(0, index.limit, "reserving opens nothing");
            adds(index, 8);
            remove(index, 2);
            remove(index, 5);
            assertEquals(-1, index.reserve(2, 6), "the holes cover two adds");
            assertEquals(9, index.reserve(3, 6));
            assertEquals(10, index.reserve(4, 6));
            CapacityExceededException e = assertThrows(CapacityExceededException.class, () -> index.reserve(5, 6));
            assertTrue(e.getMessage().startsWith("table 'slot-index-test' is full: 5 record(s) requested, room for 4;"),
                    e.getMessage());
            assertEquals(9, index.limit);
            assertArrayEquals(new int[] {2, 5}, SlotIndexAudit.freeSlots(index));
        }
        try (SlotIndexFixture f = new SlotIndexFixture(entries, HandleLayout.of(3, 8), 0, 100, ReuseOrder.FIFO, false)) {
            assertEquals(7, f.index.freshSlots(), "three index bits: slots 1 to 7, whatever the capacity");
            assertThrows(CapacityExceededException.class, () -> f.index.reserve(8, 0));
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void reserveRange_onAnIndexThatHasEntries_throws(Entries entries) {
        try (SlotIndexFixture f = fixture(entries, ReuseOrder.SWEEP)) {
            TagLease lease = TagRegistry.register("slot-index-arena", LAYOUT);
            BlockArena arena = new BlockArena(f, lease);
            try {
                if (entries == Entries.HEAP) {
                    add(f.index);
                }
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.index.reserveRange(arena));
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
        try (SlotIndexFixture f = new SlotIndexFixture(entries, LAYOUT, 0, 20_000, ReuseOrder.FIFO, payloads)) {
            SlotIndex index = f.index;
            long[] handles = addRun(index, 5_000);
            if (payloads) {
                for (int slot = 1; slot <= 5_000; slot++) {
                    index.setPayload(slot, 7 * slot);
                }
            }
            for (int slot : new int[] {1, 2, 4_095, 4_096, 4_097, 5_000}) {
                long h = handles[slot - 1];
                assertEquals(slot, index.find(h));
                if (payloads) {
                    assertEquals(7 * slot, index.findPayload(h), "the payload beside the meta word");
                }
            }
            remove(index, 4_096);
            assertEquals(-1, index.find(handles[4_095]), "a removed record's handle");
            assertEquals(4_096, add(index));
            long again = index.handleOf(4_096);
            assertEquals(LAYOUT.pack(f.lease.tag, 1, 4_096), again);
            assertEquals(4_096, index.find(again));
            assertEquals(-1, index.find(handles[4_095]), "the slot's earlier handle");
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
                assertEquals(-1, index.find(h), Handles.format(h));
                if (payloads) {
                    assertEquals(-1, index.findPayload(h), Handles.format(h));
                }
            }
            index.close();
            assertEquals(-1, index.find(handles[0]), "a closed index finds nothing");
            if (payloads) {
                assertEquals(-1, index.findPayload(handles[0]));
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Rejections: why a handle is not live here

    private static void rejected(SlotIndex index, long handle, String previousName, Reason reason, String... says) {
        assertEquals(-1, index.find(handle));
        InvalidHandleException e = SlotRejections.rejection(index, handle, previousName);
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(handle, e.handle());
        assertEquals("slot-index-test", e.table());
        for (String s : says) {
            assertTrue(e.getMessage().contains(s), "'" + e.getMessage() + "' should say '" + s + "'");
        }
    }

    @ParameterizedTest
    @EnumSource(Entries.class)
    void rejection_namesTheReason(Entries entries) {
        try (SlotIndexFixture f = new SlotIndexFixture(entries, LAYOUT, 2, 100, ReuseOrder.FIFO, false)) {
            SlotIndex index = f.index;
            int tag = f.lease.tag;
            rejected(index, LAYOUT.pack(tag, 2, 1), null, Reason.OUT_OF_RANGE, "has not handed out any slot yet");
            addRun(index, 3);
            rejected(index, Handles.NULL, null, Reason.NULL, "null handle passed to table 'slot-index-test'");

            TagLease other = TagRegistry.register("slot-index-other", LAYOUT);
            long foreign = LAYOUT.pack(other.tag, other.floor, 1);
            try {
                rejected(index, foreign, null, Reason.FOREIGN, "belongs to table 'slot-index-other' (tag " + other.tag + ")");
            } finally {
                TagRegistry.release(other);
            }
            rejected(index, foreign, null, Reason.CLOSED, "no open table has tag " + other.tag,
                    "whose last table, 'slot-index-other', is closed", "a handle made up with that tag reads the same");
            int unheld = HandleLayout.MAX_TAG;
            while (TagRegistry.nameOf(unheld) != null || TagRegistry.closedNameOf(unheld) != null) {
                unheld--;
            }
            rejected(index, LAYOUT.pack(unheld, 0, 1), null, Reason.FORGED,
                    "no table in this process has held tag " + unheld);

            // A fixed tag held by a second table, and a handle of the first: older than the holder.
            int fixed = HandleLayout.MAX_TAG;
            while (TagRegistry.nameOf(fixed) != null) {
                fixed--;
            }
            TagLease earlier = TagRegistry.registerFixed("slot-index-earlier", HandleLayout.DEFAULT, fixed);
            int made = earlier.floor + 5;
            earlier.issued(made, 3);
            TagRegistry.release(earlier);
            TagLease holder = TagRegistry.registerFixed("slot-index-holder", HandleLayout.DEFAULT, fixed);
            try {
                assertTrue(holder.floor > made);
                rejected(index, HandleLayout.DEFAULT.pack(fixed, made, 3), null, Reason.CLOSED,
                        "was made by an earlier table with tag " + fixed, "(the last was 'slot-index-earlier')",
                        "table 'slot-index-holder' holds the tag now");
            } finally {
                TagRegistry.release(holder);
            }

            rejected(index, LAYOUT.pack(tag, 2, 1) | 1L << 40, null, Reason.FORGED, "has bits set outside");
            rejected(index, LAYOUT.pack(tag, 2, 0), null, Reason.FORGED, "names slot 0, the free-list header");
            rejected(index, LAYOUT.pack(tag, 1, 1), "slot-index-before", Reason.CLOSED,
                    "(the last was 'slot-index-before')", "starts every slot at generation 2");
            rejected(index, LAYOUT.pack(tag, 2, 4), null, Reason.OUT_OF_RANGE, "has opened only slots 1..3");
            remove(index, 2);
            rejected(index, LAYOUT.pack(tag, 2, 2), null, Reason.STALE, "stale handle", "handle generation 2, slot generation 3",
                    "slot is free", "its record was removed");
            rejected(index, LAYOUT.pack(tag, 3, 2), null, Reason.FORGED, "slot is free", "never handed it out");
            rejected(index, LAYOUT.pack(tag, 9, 1), null, Reason.FORGED, "slot generation 2, slot is live",
                    "never handed it out");
        }
    }
}
