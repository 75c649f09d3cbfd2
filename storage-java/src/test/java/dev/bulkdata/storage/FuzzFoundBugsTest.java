package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Minimal reproductions of bugs the fuzz tests found ({@code StorageFuzzTest}), kept as
 * regression tests; their crashing inputs are among the committed fuzz inputs.
 */
class FuzzFoundBugsTest {

    @Test
    /** Found by {@code StorageFuzzTest#packedTable}. */
    void defragment_whoseOrderThrowsAfterSwapping_leavesTheTableFragmented() {
        Schema schema = TestSchemas.particles(Layout.SOA);
        FloatField t = schema.floatField("t");
        try (PackedTable table = PackedTable.of(schema)) {
            long a = table.add();
            long b = table.add();
            long c = table.add();
            table.set(a, t, 1f);
            table.set(b, t, 2f);
            table.set(c, t, 3f);
            RecordOrder ascending = (x, y) -> Float.compare(table.get(x, t), table.get(y, t));
            assertEquals(0, table.defragment(ascending, Long.MAX_VALUE), "already in order: a complete pass");
            int[] comparisons = {0};
            RecordOrder failing = (x, y) -> {
                if (comparisons[0]++ == 1) {
                    throw new IllegalStateException("the order fails");
                }
                return Float.compare(table.get(y, t), table.get(x, t)); // descending
            };
            // comparison 0 swaps rows 0 and 1 (b, a, c); comparison 1 throws
            assertThrows(IllegalStateException.class, () -> table.defragment(failing, Long.MAX_VALUE));
            assertEquals(List.of(b, a, c), rows(table));
            assertTrue(((PackedTableImpl) table).isFragmented(), "an unfinished call that moved rows fragments the table");
            assertEquals(1, table.defragment(ascending, Long.MAX_VALUE), "the rows are out of order again");
            assertEquals(List.of(a, b, c), rows(table));
        }
    }

    private static List<Long> rows(Table table) {
        List<Long> rows = new ArrayList<>();
        table.forEach((chunk, slot) -> rows.add(chunk.handle(slot)));
        return rows;
    }
}
