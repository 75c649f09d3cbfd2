package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.format.FileFormat;

/**
 * A table whose live records always occupy dense rows {@code 0..size()-1}: iteration visits exactly the live records,
 * contiguously (every chunk is full except the last). Handles stay valid while their records move: a handle names a
 * slot, and the slot knows its record's current row. Guide: docs/tables-and-handles.md, "PackedTable: dense rows".
 *
 * <p><b>Costs.</b> add, remove, contains, get and set by handle: O(1), no allocation (but a block every
 * {@code slotsPerBlock} records and a slot page every 4096 slots). Remove copies the last record into the removed
 * one's row (swap-and-pop): O(fields). Iteration: O(live records). Memory per record: {@link Schema#slotBytes()}
 * natively plus 12 bytes of slot entry and back-link.
 *
 * <p><b>Handles</b> as in {@link BulkTable} (the "slot" of a handle is its slot in the slot map); freed slots are
 * reused first in, first out; {@link TableStats#holes()} is always 0. A record's row is not stable: keep handles, not
 * (chunk, slot) positions, across adds and removes. Threads and errors (where {@code defragment} is a structural
 * change): see {@link Table}.
 */
public sealed interface PackedTable extends Table permits PackedTableImpl, MappedPackedTable {

    /**
     * Moves rows toward {@code order}, making at most {@code maxSwaps} swaps of neighbouring rows; call it again to
     * continue (the sorted prefix costs one comparison per row). After a call that gets through every row, calls with
     * the same {@code order} instance return 0 at once until a structural change or {@link #markFragmented()} fragments
     * the table again; field writes do not count. A stable, adaptive insertion sort: O(n + I) comparisons and I swaps
     * for n rows with I inversions (O(n^2) at worst); allocation-free.
     *
     * @param order the wanted order of records; see {@link RecordOrder} for its rules
     * @param maxSwaps the most swaps to make, {@code >= 0}; with 0 it completes a pass only if the rows are in order
     * @return the number of swaps made; 0 when the rows already are in order
     * @throws IllegalArgumentException if {@code order} is null or {@code maxSwaps < 0}
     * @throws java.util.ConcurrentModificationException also if {@code order} adds, removes or clears (rows moved so
     *     far stay moved)
     */
    long defragment(long maxSwaps, RecordOrder order);

    /**
     * Tells {@link #defragment(long, RecordOrder)} that the rows may be out of order although no record was added or
     * removed, e.g. after writing the fields the order reads. O(1).
     */
    void markFragmented();

    /**
     * {@return a builder for {@code schema} with the default handle layout and no capacity limit}
     *
     * @param schema the record schema
     * @throws IllegalArgumentException if {@code schema} is null
     */
    static Builder builder(Schema schema) {
        return new Builder(schema);
    }

    /**
     * {@return a new, empty table of {@code schema}, default options, no native memory until the first add}
     *
     * @param schema the record schema
     * @throws IllegalArgumentException if {@code schema} is null
     * @throws IllegalStateException if all 3,839 automatic table tags are in use by open tables
     */
    static PackedTable of(Schema schema) {
        return builder(schema).build();
    }

    /** Options of a {@link PackedTable}: those of every {@link TableBuilder}. Not thread-safe. */
    final class Builder extends TableBuilder<Builder, PackedTable, MappedPackedTable> {
        private Builder(Schema schema) {
            super(schema);
        }

        @Override
        byte kind() {
            return FileFormat.KIND_PACKED;
        }

        @Override
        ReuseOrder reuseOrder() {
            return ReuseOrder.FIFO;
        }

        @Override
        public PackedTable build() {
            return configured(new PackedTableImpl(schema, layout(), maxCapacity, lease()));
        }

        @Override
        AbstractTable buildMapped() {
            return configured(new MappedPackedTableImpl(schema, layout(), maxCapacity, lease()));
        }
    }
}
