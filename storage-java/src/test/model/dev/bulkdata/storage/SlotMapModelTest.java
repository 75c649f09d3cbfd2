package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.internal.core.SlotRejections;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.SlotMapFixture.Entries;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded model test of {@link SlotMap} on its own: random adds (one by one, and batches the
 * way a table's {@code addAll} takes them: {@link SlotMap#reopenRun}, {@link SlotMap#openRun},
 * then {@link SlotMap#take()}), removes, cancelled adds ({@link SlotMap#undoTake}), clears
 * ({@link SlotMap#releaseAllLive()}), saved links ({@link SlotMap#writeLinks()}) and lookups
 * of live, stale and forged handles, against a model that keeps each slot's generation and
 * state and each reuse order's free slots in the simplest form: FIFO and LIFO a deque and the
 * clear's slots in slot order, SWEEP a sorted set and a cursor. After every step the counts
 * must match; after every step (every eighth once past 512 slots), so must every slot's meta
 * word and the free slots in take order, and {@link SlotMapAudit#checkInvariants(SlotMap, int, int)} must pass. Every
 * reuse order, with the entries in heap pages and in a reserved range, at stride 1 and 2, with
 * 2 generation bits (slots retire within a few reuses; a capacity of 200 fills) and with 12 (a
 * capacity past one page of 4,096 slots).
 */
class SlotMapModelTest {
    private static final int STEPS = 1_500;

    static Stream<Arguments> configs() {
        List<Arguments> configs = new ArrayList<>();
        for (ReuseOrder order : ReuseOrder.values()) {
            for (Entries entries : Entries.values()) {
                for (boolean payloads : new boolean[] {false, true}) {
                    for (int generationBits : new int[] {2, 12}) {
                        configs.add(Arguments.of(order, entries, payloads ? 2 : 1, generationBits));
                    }
                }
            }
        }
        return configs.stream();
    }

    @ParameterizedTest(name = "{0} {1} stride {2}, {3} generation bits")
    @MethodSource("configs")
    void randomOperations_matchTheModel(ReuseOrder order, Entries entries, int stride, int generationBits) {
        String name = order + "-" + entries + "-stride" + stride + "-gen" + generationBits;
        long seed = Seeds.seed("SlotMapModelTest " + name, 0x51D7_1DE8L + name.hashCode());
        SplittableRandom random = new SplittableRandom(seed);
        HandleLayout layout = HandleLayout.of(16, generationBits);
        int maxCapacity = generationBits == 2 ? 200 : 6_000;
        int floor = Math.min(layout.maxGeneration(), random.nextInt(3));
        try (SlotMapFixture fixture = new SlotMapFixture(entries, layout, floor, maxCapacity, order, stride == 2)) {
            Model model = new Model(fixture, order, floor, maxCapacity, random);
            int step = 0;
            try {
                for (step = 0; step < STEPS; step++) {
                    model.step();
                }
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(name + ", step " + step + " (" + model.lastOp + "), " + Seeds.replay(seed)
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** What the index should hold, and the random operations checked against it. */
    private static final class Model {
        private static final byte NEVER = 0;
        private static final byte FREE = 1;
        private static final byte LIVE = 2;
        private static final byte RETIRED = 3;

        final SlotMapFixture fixture;
        final SlotMap slotMap;
        final HandleLayout layout;
        final ReuseOrder order;
        final int floor;
        final int maxSlot;
        final int maxGeneration;
        final SplittableRandom random;
        final boolean payloads;
        String lastOp = "none";
        int steps;

        /** The index's limit: slots {@code [1, limit)} are opened; 0 before the first. */
        int limit;
        /** Per slot (index 0 the header): generation, state and, at stride 2, payload. */
        final int[] generation;
        final byte[] state;
        final int[] payload;
        final List<Integer> live = new ArrayList<>();
        int retired;
        /** FIFO and LIFO: the list, head first, and the slots a clear freed, in slot order. */
        final ArrayDeque<Integer> list = new ArrayDeque<>();
        final ArrayDeque<Integer> swept = new ArrayDeque<>();
        /** SWEEP: the free slots and the slot the next take looks at first. */
        final TreeSet<Integer> holes = new TreeSet<>();
        int cursor = 1;
        /** What the last single add took, for a cancel right after it; slot 0 if the last step was not one. */
        int lastSlot;
        int lastLimitBefore;
        int lastCursorBefore;
        boolean lastFromSweep;

        Model(SlotMapFixture fixture, ReuseOrder order, int floor, int maxCapacity, SplittableRandom random) {
            this.fixture = fixture;
            this.slotMap = fixture.slots;
            this.layout = fixture.layout;
            this.order = order;
            this.floor = floor;
            this.maxSlot = Math.min(layout.maxSlot(), maxCapacity);
            this.maxGeneration = layout.maxGeneration();
            this.random = random;
            this.payloads = fixture.payloads;
            this.generation = new int[maxSlot + 2];
            this.state = new byte[maxSlot + 2];
            this.payload = new int[maxSlot + 2];
        }

        int holeCount() {
            return order == ReuseOrder.SWEEP ? holes.size() : list.size() + swept.size();
        }

        int opened() {
            return Math.max(0, limit - 1);
        }

        long fresh() {
            return (long) maxSlot - opened();
        }

        /** The free slots in the order takes will use them. */
        int[] takeOrder() {
            List<Integer> slots = new ArrayList<>();
            switch (order) {
                case FIFO -> {
                    slots.addAll(swept);
                    slots.addAll(list);
                }
                case LIFO -> {
                    slots.addAll(list);
                    slots.addAll(swept);
                }
                case SWEEP -> {
                    slots.addAll(holes.tailSet(cursor));
                    slots.addAll(holes.headSet(cursor));
                }
            }
            return slots.stream().mapToInt(Integer::intValue).toArray();
        }

        /** The list that {@link SlotMap#writeLinks()} saves: without a clear's slots. */
        int[] listOrder() {
            if (order == ReuseOrder.SWEEP) {
                return takeOrder();
            }
            return list.stream().mapToInt(Integer::intValue).toArray();
        }

        long handle(int slot, int gen) {
            return layout.pack(fixture.lease.tag, gen, slot);
        }

        // ---- the steps

        void step() {
            int added = lastSlot;
            lastSlot = 0;
            int op = random.nextInt(100);
            if (op < 30) {
                lastOp = "add";
                add();
            } else if (op < 55) {
                lastOp = "remove";
                remove();
            } else if (op < 63) {
                lastOp = "cancel";
                if (added != 0) {
                    cancel(added);
                }
            } else if (op < 70) {
                lastOp = "batch add";
                batchAdd();
            } else if (op < 72) {
                lastOp = "clear";
                clear();
            } else if (op < 74) {
                lastOp = "reset";
                reset();
            } else if (op < 75) {
                lastOp = "reopenRun";
                reopenAnywhere();
            } else if (op < 78) {
                lastOp = "openRun with holes";
                openRunWithHoles();
            } else if (op < 81) {
                lastOp = "writeLinks";
                writeLinks();
            } else {
                lastOp = "lookups";
                lookups();
            }
            check(++steps % 8 == 0 || limit < 512);
        }

        void add() {
            if (holeCount() + fresh() < 1) {
                assertThrows(CapacityExceededException.class, () -> slotMap.reserve(1, live.size()));
                return;
            }
            long highest = slotMap.reserve(1, live.size());
            assertEquals(holeCount() > 0 ? -1 : (limit == 0 ? 1 : limit), highest, "reserve's highest slot");
            int limitBefore = limit;
            int cursorBefore = cursor;
            boolean fromSweep = order != ReuseOrder.SWEEP && !swept.isEmpty()
                    && (order == ReuseOrder.FIFO || list.isEmpty());
            int expected = modelTake();
            int slot = slotMap.take();
            assertEquals(expected, slot, "the slot taken");
            assertEquals(limit == limitBefore, slotMap.reused, "reused: the slot was opened before");
            long handle = slotMap.activate(slot);
            assertEquals(handle(slot, generation[slot]), handle, "the handle");
            madeLive(slot);
            lastSlot = slot;
            lastLimitBefore = limitBefore;
            lastCursorBefore = cursorBefore;
            lastFromSweep = fromSweep;
        }

        /** The model's take: the next free slot in reuse order, or a fresh one; not yet live. */
        int modelTake() {
            Integer slot = switch (order) {
                case FIFO -> !swept.isEmpty() ? swept.pollFirst() : list.pollFirst();
                case LIFO -> !list.isEmpty() ? list.pollFirst() : swept.pollFirst();
                case SWEEP -> {
                    Integer s = holes.ceiling(cursor);
                    if (s == null && !holes.isEmpty()) {
                        s = holes.first();
                    }
                    if (s != null) {
                        holes.remove(s);
                        cursor = s + 1;
                    }
                    yield s;
                }
            };
            if (slot != null) {
                assertEquals(FREE, state[slot], "the model takes a free slot");
                return slot;
            }
            if (limit == 0) {
                limit = 1;
            }
            int fresh = limit++;
            generation[fresh] = Math.max(floor, generation[fresh]);
            state[fresh] = FREE;
            cursor = limit;
            return fresh;
        }

        void madeLive(int slot) {
            state[slot] = LIVE;
            live.add(slot);
            if (payloads) {
                // a row number, or now and then the word of a live slot at the last generation,
                // which a clear must leave as it is
                int value = random.nextInt(8) == 0 ? SlotMeta.live(maxGeneration) : random.nextInt(1 << 20);
                slotMap.setPayload(slot, value);
                payload[slot] = value;
            }
        }

        void remove() {
            if (live.isEmpty()) {
                return;
            }
            int slot = live.remove(random.nextInt(live.size()));
            slotMap.markDead(slot);
            slotMap.release(slot);
            freed(slot);
        }

        /** A live slot removed: its generation advances and it is pushed, or it retires. */
        void freed(int slot) {
            if (generation[slot] == maxGeneration) {
                state[slot] = RETIRED;
                retired++;
                return;
            }
            generation[slot]++;
            state[slot] = FREE;
            switch (order) {
                case FIFO -> list.addLast(slot);
                case LIFO -> list.addFirst(slot);
                case SWEEP -> holes.add(slot);
            }
        }

        /** A table's cancelAdd right after the add: the slot goes back where it came from, or is released at the last generation. */
        void cancel(int added) {
            int slot = live.remove(live.size() - 1);
            assertEquals(added, slot, "the last add's slot");
            slotMap.markDead(slot);
            if (generation[slot] == maxGeneration) {
                slotMap.release(slot);
                freed(slot);
                return;
            }
            slotMap.undoTake(slot, lastLimitBefore);
            generation[slot]++;
            state[slot] = FREE;
            if (limit > lastLimitBefore) {
                limit = lastLimitBefore;
                state[slot] = NEVER;
            } else if (order == ReuseOrder.SWEEP) {
                holes.add(slot);
            } else if (lastFromSweep) {
                swept.addFirst(slot);
            } else {
                list.addFirst(slot);
            }
            cursor = lastCursorBefore;
        }

        /** What a table's addAll does: reserve all, then the runs where they apply, then takes one by one. */
        void batchAdd() {
            int count = 1 + (random.nextInt(4) == 0 ? random.nextInt(2_000) : random.nextInt(40));
            if (holeCount() + fresh() < count) {
                int[] before = SlotMapAudit.freeSlots(slotMap);
                assertThrows(CapacityExceededException.class, () -> slotMap.reserve(count, live.size()));
                assertArrayEquals(before, SlotMapAudit.freeSlots(slotMap), "a refused reserve changes nothing");
                return;
            }
            slotMap.reserve(count, live.size());
            long[] out = new long[count + 3];
            int at = 2;
            int end = at + count;
            if (count >= 2) {
                if (live.isEmpty() && slotMap.holes() != 0) {
                    at += reopen(count, out, at);
                }
                if (at < end && slotMap.holes() == 0) {
                    int n = end - at;
                    int first = slotMap.openRun(n, out, at);
                    assertEquals(limit == 0 ? 1 : limit, first, "openRun's first slot");
                    for (int k = 0; k < n; k++) {
                        int slot = modelTake();
                        assertEquals(handle(slot, generation[slot]), out[at + k], "openRun's handle " + k);
                        assertEquals(false, slotMap.reused, "openRun opens fresh slots");
                        madeLive(slot);
                    }
                    at = end;
                }
            }
            for (; at < end; at++) {
                int slot = modelTake();
                assertEquals(slot, slotMap.take(), "the slot taken");
                out[at] = slotMap.activate(slot);
                assertEquals(handle(slot, generation[slot]), out[at], "the handle");
                madeLive(slot);
            }
            assertEquals(0, out[0] | out[1] | out[end], "nothing written outside the batch");
        }

        /** {@link SlotMap#reopenRun}, checked against the model: slots 1 up when every opened slot is free and the takes would go from slot 1 up. */
        int reopen(int count, long[] out, int at) {
            boolean applies = live.isEmpty() && retired == 0 && opened() > 0
                    && (order == ReuseOrder.SWEEP ? cursor <= 1 : list.isEmpty() && swept.size() == opened());
            int[] before = SlotMapAudit.freeSlots(slotMap);
            int taken = slotMap.reopenRun(count, out, at);
            if (!applies) {
                assertEquals(0, taken, "reopenRun in a state it does not apply to");
                assertArrayEquals(before, SlotMapAudit.freeSlots(slotMap), "reopenRun changed nothing");
                return 0;
            }
            assertEquals(Math.min(count, opened()), taken, "the slots reopenRun takes");
            for (int k = 0; k < taken; k++) {
                int slot = modelTake();
                assertEquals(1 + k, slot, "the model takes slot 1 up");
                assertEquals(handle(slot, generation[slot]), out[at + k], "reopenRun's handle " + k);
                madeLive(slot);
            }
            assertEquals(true, slotMap.reused, "reopenRun takes slots opened before");
            return taken;
        }

        void reopenAnywhere() {
            int count = 1 + random.nextInt(300);
            long[] out = new long[count];
            reopen(count, out, 0);
        }

        void openRunWithHoles() {
            if (holeCount() == 0) {
                return;
            }
            int[] before = SlotMapAudit.freeSlots(slotMap);
            assertThrows(IllegalStateException.class, () -> slotMap.openRun(1, new long[1], 0));
            assertArrayEquals(before, SlotMapAudit.freeSlots(slotMap), "a refused openRun changes nothing");
        }

        void clear() {
            slotMap.releaseAllLive();
            for (int slot : live) {
                if (generation[slot] == maxGeneration) {
                    state[slot] = RETIRED;
                    retired++;
                } else {
                    generation[slot]++;
                    state[slot] = FREE;
                }
            }
            live.clear();
            list.clear();
            swept.clear();
            holes.clear();
            for (int slot = 1; slot < limit; slot++) {
                if (state[slot] == FREE) {
                    (order == ReuseOrder.SWEEP ? holes : swept).add(slot);
                }
            }
            cursor = 1;
            if (payloads) {
                for (int slot = 1; slot < limit; slot++) {
                    assertEquals(payload[slot], slotMap.payload(slot), "a clear leaves slot " + slot + "'s payload as it was");
                }
            }
        }

        /**
         * A table's reset: every opened slot free one generation above the index's highest
         * ({@code top}, which must be at least every slot's), no word written and payloads left
         * as they were; with no generation left (this layout has no epoch bits) it frees the
         * slots as a clear does. The free slots are then every opened one in slot order.
         */
        void reset() {
            int top = slotMap.top;
            for (int slot = 1; slot <= Math.max(1, limit) && slot < generation.length; slot++) {
                if (state[slot] != NEVER || slot == limit) {
                    assertTrue(generation[slot] <= top, "top " + top + " below slot " + slot + "'s generation "
                            + generation[slot]);
                }
            }
            if (top < maxGeneration && retired == 0) {
                slotMap.resetAll();
                for (int slot = 1; slot < limit; slot++) {
                    generation[slot] = top + 1;
                    state[slot] = FREE;
                }
                live.clear();
                list.clear();
                swept.clear();
                holes.clear();
                for (int slot = 1; slot < limit; slot++) {
                    (order == ReuseOrder.SWEEP ? holes : swept).add(slot);
                }
                cursor = 1;
            } else {
                slotMap.resetAll();
                for (int slot : live) {
                    if (generation[slot] == maxGeneration) {
                        state[slot] = RETIRED;
                        retired++;
                    } else {
                        generation[slot]++;
                        state[slot] = FREE;
                    }
                }
                live.clear();
                list.clear();
                swept.clear();
                holes.clear();
                for (int slot = 1; slot < limit; slot++) {
                    if (state[slot] == FREE) {
                        (order == ReuseOrder.SWEEP ? holes : swept).add(slot);
                    }
                }
                cursor = 1;
            }
            if (payloads) {
                for (int slot = 1; slot < limit; slot++) {
                    assertEquals(payload[slot], slotMap.payload(slot), "a reset leaves slot " + slot + "'s payload as it was");
                }
            }
        }

        /** The saved form: the header's link names the head, each slot's the next, the last's the header. */
        void writeLinks() {
            slotMap.writeLinks();
            int[] listed = listOrder();
            assertArrayEquals(listed, slotMap.listedSlots(), "the listed slots");
            if (listed.length == 0) {
                return;
            }
            int previous = 0;
            for (int slot : listed) {
                assertEquals(slot, fixture.link(previous), "the link of slot " + previous);
                payload[previous] = slot;
                previous = slot;
            }
            assertEquals(0, fixture.link(previous), "the last slot's link names the header");
            payload[previous] = 0;
        }

        void lookups() {
            for (int i = 0; i < 20; i++) {
                long handle;
                int pick = random.nextInt(6);
                int slot = pick == 0 || limit <= 1 ? random.nextInt(maxSlot + 2) : 1 + random.nextInt(limit - 1);
                int gen = pick == 1 ? random.nextInt(maxGeneration + 1)
                        : pick == 2 ? Math.max(0, generation[slot] - 1) : generation[slot];
                handle = handle(slot, gen);
                if (pick == 3 && layout.slotBits() + layout.generationBits() < HandleLayout.TAG_SHIFT) {
                    handle |= 1L << (layout.slotBits() + layout.generationBits()
                            + random.nextInt(HandleLayout.TAG_SHIFT - layout.slotBits() - layout.generationBits()));
                }
                if (pick == 4) {
                    handle = Handles.NULL;
                }
                lookup(handle);
            }
            for (int slot : live) {
                lookup(handle(slot, generation[slot]));
            }
        }

        void lookup(long handle) {
            int slot = (int) layout.slot(handle);
            int gen = layout.generation(handle);
            boolean ours = handle != Handles.NULL && !layout.hasStrayBits(handle)
                    && layout.tag(handle) == fixture.lease.tag;
            boolean isLive = ours && slot > 0 && slot < limit && state[slot] == LIVE && generation[slot] == gen;
            String text = layout.format("model", handle);
            assertEquals(isLive ? slot : -1, slotMap.find(handle), "find(" + text + ")");
            if (payloads) {
                assertEquals(isLive ? payload[slot] : -1, slotMap.findPayload(handle), "findPayload(" + text + ")");
            }
            if (isLive) {
                return;
            }
            InvalidHandleException.Reason expected;
            if (handle == Handles.NULL) {
                expected = InvalidHandleException.Reason.NULL;
            } else if (!ours || slot == 0) {
                expected = InvalidHandleException.Reason.FORGED;
            } else if (gen < floor) {
                expected = InvalidHandleException.Reason.CLOSED;
            } else if (slot >= limit) {
                expected = InvalidHandleException.Reason.OUT_OF_RANGE;
            } else if (gen < generation[slot] || (gen == generation[slot] && state[slot] == RETIRED)) {
                expected = InvalidHandleException.Reason.STALE;
            } else {
                expected = InvalidHandleException.Reason.FORGED;
            }
            assertEquals(expected, SlotRejections.rejection(slotMap, handle, null, TagRegistry.OWNERS).reason(),
                    "rejection of " + text);
        }

        /** Compares the counts; with {@code everything}, also every slot, the free slots in order and the audit. */
        void check(boolean everything) {
            assertEquals(limit, slotMap.limit, "limit");
            assertEquals(retired, slotMap.retired, "retired");
            assertEquals(holeCount(), slotMap.holes(), "holes");
            assertEquals(fresh(), slotMap.freshSlots(), "fresh slots");
            if (!everything) {
                return;
            }
            assertArrayEquals(takeOrder(), SlotMapAudit.freeSlots(slotMap), "the free slots in take order");
            int[] listed = listOrder();
            assertEquals(listed.length == 0 ? 0 : listed[listed.length - 1], slotMap.tail(), "the list's tail");
            for (int slot = 1; slot < limit; slot++) {
                int meta = slotMap.logicalMeta(slot);
                assertEquals(generation[slot], SlotMeta.generation(meta), "generation of slot " + slot);
                assertEquals(state[slot] == LIVE, SlotMeta.isLive(meta), "live bit of slot " + slot);
                assertEquals(state[slot] == RETIRED, SlotMeta.isRetired(meta), "retired bit of slot " + slot);
            }
            SlotMapAudit.checkInvariants(slotMap, live.size(), live.size());
        }
    }
}
