package dev.bulkdata.storage;

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
        assertEquals(32, d.indexBits());
        assertEquals(20, d.generationBits());
        assertEquals((1 << 20) - 1, d.maxGeneration());
        long h = d.pack(4095, (1 << 20) - 1, 0xFFFF_FFFFL);
        assertEquals(-1L, h, "all three fields full cover all 64 bits");
        assertEquals(0x0030_0005_0000_0007L, Handles.pack(3, 5, 7));
        assertEquals(3, Handles.tag(0x0030_0005_0000_0007L));
        assertEquals(5, Handles.generation(0x0030_0005_0000_0007L));
        assertEquals(7, Handles.index(0x0030_0005_0000_0007L));
        assertEquals(HandleLayout.MAX_SLOT_INDEX, d.maxIndex(), "slot indices are Java ints");
    }

    @Test
    void packThenUnpack_roundTrips_forRandomLayoutsAndValues() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            int indexBits = random.nextInt(1, 33);
            int generationBits = random.nextInt(1, Math.min(30, 52 - indexBits) + 1);
            HandleLayout layout = HandleLayout.of(indexBits, generationBits);
            int tag = random.nextInt(HandleLayout.MAX_TAG + 1);
            int generation = random.nextInt(layout.maxGeneration() + 1);
            long index = random.nextLong(1L << indexBits);
            long h = layout.pack(tag, generation, index);
            assertEquals(tag, layout.tag(h));
            assertEquals(generation, layout.generation(h));
            assertEquals(index, layout.index(h));
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
}
