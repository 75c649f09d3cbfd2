package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.Seeds;
import org.junit.jupiter.api.Test;

import java.nio.IntBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@link PagedInts}: pages that never move while the directory grows, new pages filled with
 * the fill value, contiguous use ({@link PagedInts#ensure}) and sparse use
 * ({@link PagedInts#ensurePage}, absent pages reading as the fill value), {@link PagedInts#putTo}
 * with steps 1 and 2, {@link PagedInts#adopt}; and a seeded model test of each use against a
 * map.
 */
class PagedIntsTest {
    /** 16 ints per page, so that a test crosses many pages and the directory grows often. */
    private static final int SHIFT = 4;
    private static final int PAGE = 1 << SHIFT;

    @Test
    void ensure_makesEveryPageUpToTheElement_filled_andGrowthNeverMovesAPage() {
        PagedInts ints = new PagedInts(SHIFT, -1);
        assertEquals(0, ints.capacity());
        ints.ensure(-1);
        assertEquals(0, ints.capacity(), "ensure(-1) makes nothing");
        ints.ensure(0);
        assertEquals(PAGE, ints.capacity());
        assertEquals(-1, ints.get(0), "a new page holds the fill value");
        assertEquals(-1, ints.get(PAGE - 1));
        ints.set(3, 42);
        int[] first = ints.pages()[0];
        assertEquals(8, ints.pages().length, "the first directory holds 8 pages");
        ints.ensure(100L * PAGE);
        assertEquals(101L * PAGE, ints.capacity());
        assertEquals(128, ints.pages().length, "the directory doubles");
        assertSame(first, ints.pages()[0], "a page never moves");
        assertEquals(42, ints.get(3));
        assertEquals(-1, ints.get(100 * PAGE + 5));
        assertNull(ints.pages()[101], "entries past the pages made are null");
        assertEquals(101L * PAGE * Integer.BYTES, ints.pageBytes());
        ints.ensure(5);
        assertEquals(101L * PAGE, ints.capacity(), "nothing to make");
    }

    @Test
    void ensurePage_makesOnlyThatPage_andAbsentPagesReadAsTheFillValue() {
        PagedInts ints = new PagedInts(SHIFT, 7);
        assertEquals(7, ints.getOrFill(0), "no page yet");
        assertEquals(7, ints.getOrFill(Long.MAX_VALUE >>> 1), "far past every page");
        ints.ensurePage(40L * PAGE + 3);
        assertEquals(41L * PAGE, ints.capacity());
        assertNull(ints.pages()[0]);
        assertNotNull(ints.pages()[40]);
        assertEquals(PAGE * Integer.BYTES, ints.pageBytes(), "one page made");
        ints.set(40 * PAGE + 3, 9);
        assertEquals(9, ints.getOrFill(40L * PAGE + 3));
        assertEquals(7, ints.getOrFill(40L * PAGE + 4), "the rest of a new page holds the fill value");
        assertEquals(7, ints.getOrFill(5), "a page never made");
        int[] page = ints.pages()[40];
        ints.ensurePage(3);
        ints.ensurePage(40L * PAGE);
        assertSame(page, ints.pages()[40], "a page made is kept");
        assertEquals(2L * PAGE * Integer.BYTES, ints.pageBytes());
        assertEquals(41L * PAGE, ints.capacity(), "capacity counts up to the last page made");
        ints.fillAll();
        assertEquals(7, ints.get(40 * PAGE + 3), "fillAll sets every element of every page made");
    }

    @Test
    void putTo_writesElementsAtAStep_zeroForPagesNeverMade() {
        PagedInts ints = new PagedInts(SHIFT, 0);
        for (int p : new int[] {0, 2, 3}) {
            ints.ensurePage((long) p * PAGE);
        }
        for (int p : new int[] {0, 2, 3}) {
            for (int k = 0; k < PAGE; k++) {
                ints.set(p * PAGE + k, 1000 * p + k + 1);
            }
        }
        int[] expected = new int[4 * PAGE + 8];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (long) i >> SHIFT == 1 || i >= 4 * PAGE ? 0 : 1000 * (i >> SHIFT) + (i & (PAGE - 1)) + 1;
        }
        for (int step = 1; step <= 2; step++) {
            for (int first = 0; first < 2 * PAGE; first += 3) {
                int count = (expected.length - first) / step;
                IntBuffer out = IntBuffer.allocate(count + 2);
                out.position(2);
                ints.putTo(out, first, step, count);
                assertEquals(count + 2, out.position(), "step " + step + " from " + first);
                int[] want = new int[count + 2];
                for (int k = 0; k < count; k++) {
                    want[2 + k] = expected[first + k * step];
                }
                assertArrayEquals(want, out.array(), "step " + step + " from " + first);
            }
        }
    }

    @Test
    void adopt_takesThePagesAsTheyAre() {
        PagedInts ints = new PagedInts(SHIFT, 0);
        int[][] made = new int[3][PAGE];
        made[2][PAGE - 1] = 5;
        ints.adopt(made);
        assertEquals(3L * PAGE, ints.capacity());
        assertSame(made[1], ints.pages()[1]);
        assertEquals(5, ints.get(3 * PAGE - 1));
        ints.ensure(3L * PAGE);
        assertEquals(4L * PAGE, ints.capacity(), "contiguous use goes on after the adopted pages");
        assertSame(made[2], ints.pages()[2]);
    }

    // ---- model tests

    @Test
    void contiguousUse_matchesAMap() {
        long seed = Seeds.seed("PagedIntsTest contiguous", 0x9A6E_D175L);
        SplittableRandom random = new SplittableRandom(seed);
        PagedInts ints = new PagedInts(SHIFT, -3);
        Map<Integer, Integer> model = new HashMap<>();
        long made = 0;
        int step = 0;
        try {
            for (step = 0; step < 20_000; step++) {
                int op = random.nextInt(10);
                if (op == 0) {
                    long upTo = random.nextInt(2_000) - 1;
                    ints.ensure(upTo);
                    made = Math.max(made, upTo < 0 ? 0 : ((upTo >> SHIFT) + 1) << SHIFT);
                } else if (made > 0 && op < 6) {
                    int i = random.nextInt((int) made);
                    int value = random.nextInt();
                    ints.set(i, value);
                    model.put(i, value);
                } else if (made > 0) {
                    int i = random.nextInt((int) made);
                    assertEquals(model.getOrDefault(i, -3).intValue(), ints.get(i), "element " + i);
                    assertEquals(model.getOrDefault(i, -3).intValue(), ints.getOrFill(i), "element " + i);
                }
                assertEquals(made, ints.capacity());
            }
            for (int i = 0; i < made; i++) {
                assertEquals(model.getOrDefault(i, -3).intValue(), ints.get(i), "element " + i);
            }
        } catch (AssertionError e) {
            throw new AssertionError("step " + step + ", " + Seeds.replay(seed) + ": " + e.getMessage(), e);
        }
    }

    @Test
    void sparseUse_matchesAMap() {
        long seed = Seeds.seed("PagedIntsTest sparse", 0x5FA2_5E00L);
        SplittableRandom random = new SplittableRandom(seed);
        PagedInts ints = new PagedInts(SHIFT, 11);
        Map<Long, Integer> model = new HashMap<>();
        Set<Long> pages = new HashSet<>();
        int step = 0;
        try {
            for (step = 0; step < 20_000; step++) {
                // a few dense pages near 0, and pages far apart
                long i = random.nextInt(4) == 0 ? random.nextInt(1 << 16) : random.nextInt(8 * PAGE);
                int op = random.nextInt(10);
                if (op < 4) {
                    ints.ensurePage(i);
                    pages.add(i >> SHIFT);
                    int value = random.nextInt();
                    ints.set((int) i, value);
                    model.put(i, value);
                } else if (op == 4) {
                    ints.fillAll();
                    model.clear();
                } else {
                    assertEquals(model.getOrDefault(i, 11).intValue(), ints.getOrFill(i), "element " + i);
                }
                if (step % 100 == 0) {
                    assertEquals((long) pages.size() * PAGE * Integer.BYTES, ints.pageBytes(), "pages made");
                }
            }
            assertEquals((long) pages.size() * PAGE * Integer.BYTES, ints.pageBytes(), "pages made");
            int count = 12 * PAGE;
            IntBuffer out = IntBuffer.allocate(count);
            ints.putTo(out, 0, 1, count);
            for (int k = 0; k < count; k++) {
                int expected = pages.contains((long) k >> SHIFT) ? model.getOrDefault((long) k, 11) : 0;
                assertEquals(expected, out.get(k), "putTo element " + k);
            }
        } catch (AssertionError e) {
            throw new AssertionError("step " + step + ", " + Seeds.replay(seed) + ": " + e.getMessage(), e);
        }
    }
}
