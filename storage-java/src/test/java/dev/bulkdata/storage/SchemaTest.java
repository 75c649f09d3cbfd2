package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where fields live in a block, and how many records a block holds. */
class SchemaTest {

    private static Schema floats(RecordLayout layout, int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "f" + i;
        }
        return Schema.builder("floats").layout(layout).add(FieldType.FLOAT, names).build();
    }

    @ParameterizedTest(name = "{0} floats, {1}: {2} slots per block, {3} bytes per block")
    @CsvSource({
            "3, SOA, 1024, 12288", "3, AOS, 1024, 12288",     // 12-byte records: 25% of 16 KiB unused
            "6, SOA, 512, 12288", "6, AOS, 512, 12288",       // 24-byte records
            "8, SOA, 512, 16384", "8, AOS, 512, 16384",       // 32-byte records: exactly 16 KiB
            "10, SOA, 256, 10240", "10, AOS, 256, 10240",     // 40-byte records
            "4096, SOA, 1, 16384",                            // one record per block
    })
    void slotsPerBlock_isTheLargestPowerOfTwoThatFits(int floats, RecordLayout layout, int slots, int blockBytes) {
        Schema schema = floats(layout, floats);
        assertEquals(slots, schema.slotsPerBlock());
        assertEquals(blockBytes, schema.blockBytes());
        assertEquals(floats * 4, schema.recordBytes());
        assertTrue(schema.blockBytes() <= Schema.BLOCK_BYTES);
    }

    @Test
    void soa_putsOneColumnPerField_widestFirst_soEveryColumnIsAligned() {
        Schema schema = Schema.builder("cols").add(FieldType.BYTE, "b").add(FieldType.INT, "i")
                .add(FieldType.DOUBLE, "d").build();
        // 13 bytes per slot -> 1024 slots; columns d (8 KiB), i (4 KiB), b (1 KiB)
        assertEquals(1024, schema.slotsPerBlock());
        assertEquals(0, schema.doubleField("d").blockOffset());
        assertEquals(8192, schema.intField("i").blockOffset());
        assertEquals(12288, schema.byteField("b").blockOffset());
        assertEquals(8, schema.doubleField("d").slotStride());
        assertEquals(1, schema.byteField("b").slotStride());
        for (Field f : schema.fields()) {
            assertEquals(0, f.blockOffset() % f.type().byteSize(), f + " is aligned");
        }
        assertEquals(List.of("b", "i", "d"), schema.fields().stream().map(Field::name).toList());
    }

    @Test
    void aos_layoutFollowsCAlignmentRules_inDeclarationOrder() {
        Schema schema = Schema.builder("rec").layout(RecordLayout.AOS)
                .add(FieldType.BYTE, "b").add(FieldType.LONG, "l").add(FieldType.SHORT, "s").build();
        assertEquals(0, schema.byteField("b").blockOffset());
        assertEquals(8, schema.longField("l").blockOffset());
        assertEquals(16, schema.shortField("s").blockOffset());
        assertEquals(24, schema.slotBytes(), "stride rounds up to the widest field");
        assertEquals(11, schema.recordBytes());
        for (Field f : schema.fields()) {
            assertEquals(24, f.slotStride());
        }
    }

    @Test
    void narrowRecords_getAHiddenFreeListColumn() {
        Schema soa = TestSchemas.narrow(RecordLayout.SOA);   // byte + char + boolean = 4 bytes
        assertEquals(4, soa.recordBytes());
        assertEquals(8, soa.slotBytes(), "plus a hidden 4-byte link column");
        assertEquals(3, soa.fields().size(), "the hidden column is not a field");
        Schema aos = TestSchemas.narrow(RecordLayout.AOS);   // b@0 c@2 z@4 link@8 -> stride 12
        assertEquals(12, aos.slotBytes());
        Schema wide = TestSchemas.particles(RecordLayout.SOA);
        assertEquals(wide.recordBytes(), wide.slotBytes(), "a 4-byte field holds the link: no extra column");
    }

    @Test
    void typedLookups_returnTheFieldsInDeclarationOrder() {
        Schema schema = TestSchemas.mixed(RecordLayout.SOA);
        assertSame(schema.field("f"), schema.floatField("f"));
        assertEquals(FieldType.CHAR, schema.charField("c").type());
        assertEquals(3, schema.charField("c").index());
        assertSame(schema, schema.booleanField("z").schema());
        assertEquals("mixed.f:FLOAT", schema.floatField("f").toString());
        assertTrue(schema.hasField("d"));
        assertTrue(!schema.hasField("nope"));
    }

    @Test
    void wrongTypedLookup_saysWhichLookupToUse() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> schema.intField("t"));
        assertTrue(e.getMessage().contains("FLOAT") && e.getMessage().contains("floatField(\"t\")"), e.getMessage());
    }

    @Test
    void oneSchema_canBackManyTables() {
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        FloatField t = schema.floatField("t");
        try (BulkTable a = BulkTable.of(schema); BulkTable b = BulkTable.of(schema)) {
            long ha = a.add();
            long hb = b.add();
            a.set(ha, t, 1f);
            b.set(hb, t, 2f);
            assertEquals(1f, a.get(ha, t));
            assertEquals(2f, b.get(hb, t));
        }
    }

    @Test
    void builder_rejectsARecordThatNoLongerFits_assoonAsItsFieldsAreAdded() {
        Schema.Builder builder = Schema.builder("huge");
        int added = 0;
        IllegalArgumentException e = null;
        for (int i = 0; i < 300_000 && e == null; i++) {
            try {
                builder.add(FieldType.INT, "f" + i);
                added++;
            } catch (IllegalArgumentException thrown) {
                e = thrown;
            }
        }
        assertTrue(e != null && e.getMessage().contains("block holds " + Schema.BLOCK_BYTES), String.valueOf(e));
        assertEquals(Schema.BLOCK_BYTES / Integer.BYTES, added, "the first field that does not fit is refused");
        // The refused field left the builder as it was: the schema builds, with the fields that fit.
        Schema schema = builder.build();
        assertEquals(added, schema.fields().size());
        // Duplicates are still found, in the same call too.
        assertThrows(IllegalArgumentException.class, () -> Schema.builder("d").add(FieldType.INT, "a", "a"));
        Schema.Builder many = Schema.builder("many");
        for (int i = 0; i < 10_000; i++) {
            many.add(FieldType.BYTE, "b" + i);
        }
        IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class,
                () -> many.add(FieldType.BYTE, "b9999"));
        assertTrue(duplicate.getMessage().contains("'b9999'"), duplicate.getMessage());
        assertEquals(10_000, many.build().fields().size());
    }
}
