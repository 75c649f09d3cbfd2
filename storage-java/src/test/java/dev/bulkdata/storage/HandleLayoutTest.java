package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Packing, unpacking and formatting handles. */
class HandleLayoutTest {

    @Test
    void defaultLayout_isTag12Generation20Index32() {
        HandleLayout d = HandleLayout.DEFAULT;
        assertEquals(32, d.slotBits());
        assertEquals(20, d.generationBits());
        assertEquals((1 << 20) - 1, d.maxGeneration());
        long h = d.pack(4095, (1 << 20) - 1, 0xFFFF_FFFFL);
        assertEquals(-1L, h, "all three fields full cover all 64 bits");
        assertEquals(0x0030_0005_0000_0007L, HandleLayout.DEFAULT.pack(3, 5, 7));
        assertEquals(3, Handles.tag(0x0030_0005_0000_0007L));
        assertEquals(5, HandleLayout.DEFAULT.generation(0x0030_0005_0000_0007L));
        assertEquals(7, HandleLayout.DEFAULT.slot(0x0030_0005_0000_0007L));
        assertEquals(HandleLayout.MAX_SLOT, d.maxSlot(), "slots are Java ints");
    }

    @Test
    void packThenUnpack_roundTrips_forRandomLayoutsAndValues() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            int slotBits = random.nextInt(1, 33);
            int generationBits = random.nextInt(1, Math.min(30, 52 - slotBits) + 1);
            HandleLayout layout = HandleLayout.of(slotBits, generationBits);
            int tag = random.nextInt(HandleLayout.MAX_TAG + 1);
            int generation = random.nextInt(layout.maxGeneration() + 1);
            long slot = random.nextLong(1L << slotBits);
            long h = layout.pack(tag, generation, slot);
            assertEquals(tag, layout.tag(h));
            assertEquals(generation, layout.generation(h));
            assertEquals(slot, layout.slot(h));
            assertFalse(layout.hasStrayBits(h));
        }
    }

    @Test
    void strayBits_betweenGenerationAndTag_areDetected() {
        HandleLayout layout = HandleLayout.of(16, 8);
        long h = layout.pack(1, 3, 5);
        assertFalse(layout.hasStrayBits(h));
        assertTrue(layout.hasStrayBits(h | (1L << 24)));
        assertTrue(layout.hasStrayBits(h | (1L << 51)));
        assertFalse(HandleLayout.DEFAULT.hasStrayBits(-1L), "the default layout uses every bit");
    }

    @Test
    void pack_rejectsPartsThatDoNotFit() {
        HandleLayout layout = HandleLayout.of(8, 4);
        assertThrows(IllegalArgumentException.class, () -> layout.pack(4096, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> layout.pack(1, 16, 0));
        assertThrows(IllegalArgumentException.class, () -> layout.pack(1, 0, 256));
        assertThrows(IllegalArgumentException.class, () -> layout.pack(1, -1, 0));
    }

    @Test
    void of_rejectsWidthsOutsideTheHandle() {
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(0, 20));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(33, 10));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(20, 0));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(20, 31));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HandleLayout.of(32, 21));
        assertTrue(e.getMessage().contains("52"), e.getMessage());
        assertSame(HandleLayout.DEFAULT, HandleLayout.of(32, 20));
        assertEquals(HandleLayout.of(10, 10), HandleLayout.of(10, 10));
    }

    @Test
    void format_namesTheOpenTableOwningTheTag_orTheTagNumber() {
        Schema schema = Schema.builder("sounds").add(FieldType.FLOAT, "volume").build();
        long h;
        int tag;
        try (BulkTable sounds = BulkTable.of(schema)) {
            sounds.add();
            h = sounds.add();
            tag = sounds.handleLayout().tag(h);
            assertEquals("sounds#2@0", Handles.format(h));
            assertEquals("sounds#2@0", sounds.format(h));
        }
        assertEquals("tag" + tag + "#2@0", Handles.format(h), "a closed table's tag is free again");
        assertEquals("null", Handles.format(Handles.NULL));
        assertTrue(Handles.isNull(0L));
    }

    @Test
    void customLayout_formatsWithItsOwnSplit() {
        Schema schema = Schema.builder("small").add(FieldType.INT, "x").build();
        try (BulkTable table = BulkTable.builder(schema).handleLayout(HandleLayout.of(10, 6)).build()) {
            long h = table.add();
            table.remove(h);
            long g = table.add();
            assertEquals("small#1@1", table.format(g));
            assertEquals("small#1@1", Handles.format(g), "Handles.format uses the owning table's layout");
            assertEquals(1, table.handleLayout().generation(g));
        }
    }
    /**
     * {@link HandleLayout#forCapacity}: the fewest slot bits that hold the cap, the rest of the
     * 52 bits generations (up to 30) then epochs (up to 11, generations and epochs at most 32),
     * checked against the rule for every width and a seeded sample of caps; no cap is
     * {@code DEFAULT}, a cap below 1 refused.
     */
    @Test
    void forCapacity_givesTheIndexBitsATableCannotUseToGenerationsThenEpochs() {
        long seed = Seeds.seed("HandleLayoutTest.forCapacity", 0xCA9L);
        SplittableRandom random = new SplittableRandom(seed);
        assertSame(HandleLayout.DEFAULT, HandleLayout.forCapacity(Integer.MAX_VALUE));
        assertEquals(HandleLayout.of(20, 30, 2), HandleLayout.forCapacity(1_000_000));
        assertEquals(HandleLayout.of(20, 30, 2), HandleLayout.forCapacity((1 << 20) - 1));
        assertEquals(HandleLayout.of(21, 30, 1), HandleLayout.forCapacity(1 << 20));
        assertEquals(HandleLayout.of(22, 30, 0), HandleLayout.forCapacity(4_194_303));
        assertEquals(HandleLayout.of(23, 29, 0), HandleLayout.forCapacity(4_194_304));
        assertEquals(HandleLayout.of(31, 21, 0), HandleLayout.forCapacity(Integer.MAX_VALUE - 1));
        assertEquals(HandleLayout.of(1, 30, 2), HandleLayout.forCapacity(1));
        for (int i = 0; i < 10_000; i++) {
            int bits = random.nextInt(1, 32);
            int n = i < 30 ? (int) ((1L << (i + 1)) - 1) : (int) random.nextLong(1L << (bits - 1), Math.min(1L << bits,
                    Integer.MAX_VALUE));
            HandleLayout l = HandleLayout.forCapacity(n);
            String where = "maxCapacity " + n + ": " + l + ", " + Seeds.replay(seed);
            assertTrue(n <= l.maxSlot(), "slot maxCapacity fits the index, " + where);
            assertTrue(l.slotBits() == 1 || n >= 1 << (l.slotBits() - 1), "no slot bit to spare, " + where);
            assertEquals(Math.min(30, 52 - l.slotBits()), l.generationBits(), where);
            assertEquals(Math.min(11, Math.min(52 - l.slotBits() - l.generationBits(), 32 - l.generationBits())),
                    l.epochBits(), where);
            assertTrue(l.slotBits() + l.generationBits() + l.epochBits() <= 52, where);
            assertTrue(l.generationBits() + l.epochBits() <= 32, where);
        }
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.forCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> HandleLayout.forCapacity(-3));
    }

    /**
     * A builder's layout: the one set, whatever the cap; else {@code forCapacity(maxCapacity)}
     * with a cap and {@code DEFAULT} without; in both kinds, and the table's handles follow it.
     */
    @Test
    void builder_layoutFollowsMaxCapacity_unlessOneIsSet() {
        Schema schema = Schema.builder("capped").add(FieldType.INT, "x").build();
        try (BulkTable capped = BulkTable.builder(schema).maxCapacity(1000).build();
             PackedTable packed = PackedTable.builder(schema).maxCapacity(1000).build();
             BulkTable pinned = BulkTable.builder(schema).maxCapacity(1000).handleLayout(HandleLayout.DEFAULT).build();
             BulkTable uncapped = BulkTable.of(schema);
             PackedTable chosen = PackedTable.builder(schema).handleLayout(HandleLayout.of(12, 8)).maxCapacity(1000)
                     .build()) {
            assertEquals(HandleLayout.of(10, 30, 2), capped.handleLayout());
            assertEquals(HandleLayout.of(10, 30, 2), packed.handleLayout());
            assertSame(HandleLayout.DEFAULT, pinned.handleLayout());
            assertSame(HandleLayout.DEFAULT, uncapped.handleLayout());
            assertEquals(HandleLayout.of(12, 8), chosen.handleLayout());
            long h = capped.add();
            assertEquals(1, capped.handleLayout().slot(h));
            capped.set(h, schema.intField("x"), 5);
            assertEquals(5, capped.get(h, schema.intField("x")));
            assertThrows(CapacityExceededException.class, () -> capped.addAll(new long[1000]), "the cap still holds");
        }
    }
}
