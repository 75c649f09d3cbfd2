package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.format.FileFormat;

/**
 * A table whose records are always packed: the live records occupy dense rows
 * {@code 0..size()-1} with no holes, so iteration visits exactly the live records, contiguously
 * (every chunk is full except the last). Handles stay valid while their records move: a handle
 * names a slot of a sparse slot map, and the slot knows its record's current row (the {@code handle_map} of the
 * article "Game Engine Containers - handle_map").
 *
 * <pre>{@code
 * try (PackedTable sounds = PackedTable.of(schema)) {
 *     long h = sounds.add();
 *     sounds.set(h, VOLUME, 0.5f);
 *     sounds.remove(h);             // the last row moves into h's row; every other handle still works
 * }
 * }</pre>
 *
 * <h2>Costs</h2>
 * add, remove, contains, get and set by handle: O(1), no allocation (add allocates a block
 * once every {@code slotsPerBlock} records, and a sparse page once every 4096 slots). Remove
 * copies the last record into the removed one's row (swap-and-pop): O(number of fields).
 * Iteration: O(live records), no holes to skip. Memory per record: {@link Schema#slotBytes()}
 * of native memory, plus 4 bytes of back-link (row to slot) and 8 bytes of sparse entry (slot
 * to generation and row) on the heap; a 32-byte record takes 44 bytes.
 *
 * <h2>Handles, generations and errors</h2>
 * Exactly as {@link BulkTable}: same {@link HandleLayout}, tag, per-slot generation, retirement
 * at the last generation, and the same {@link InvalidHandleException} reasons and messages (the
 * "slot" of a handle is its sparse slot; slot 0 is the free-list header). Freed slots are reused
 * first in, first out. {@link TableStats#holes()} is always 0; retired slots are counted in
 * {@link TableStats#retired()}. The row of a record is not stable: keep handles, not
 * (chunk, slot) positions, across adds and removes.
 *
 * <h2>Defragment</h2>
 * {@link #defragment(long, RecordOrder)} sorts the rows toward a caller's order a budget of
 * swaps at a time, for traversals that want neighbours together.
 *
 * <p>Threads and errors: see {@link Table}; {@code defragment} is a structural change.
 */
public sealed interface PackedTable extends Table permits PackedTableImpl, MappedPackedTable {

    /**
     * Moves rows toward {@code order}, making at most {@code maxSwaps} swaps of neighbouring
     * rows, and returns how many it made. Call it again to continue: each call runs an
     * insertion sort from the first row, so the sorted prefix costs one comparison per row
     * and the swaps resume where the last call stopped. A call that gets through every row
     * completes a pass; after that, calls with the same {@code order} instance return 0 at
     * once until the table is fragmented again, by {@code add}, {@code addAll}, {@code remove},
     * {@code removeAll}, {@code clear} or {@link #markFragmented()}. Writes through {@code set}
     * or chunks do not count (the table cannot know which fields {@code order} reads): after
     * changing them, call {@link #markFragmented()}.
     *
     * <p>Cost: insertion sort, chosen for "mostly sorted, few unique keys" inputs (it is
     * stable and adaptive): O(n + I) comparisons and I swaps for n rows with I inversions, so
     * O(n) on a sorted table and O(n^2) in the worst case (reversed order). A swap exchanges
     * two rows' bytes and updates two back-links and two sparse entries; it allocates nothing.
     * No handle is ever invalidated: every handle reads its own record after every call.
     *
     * @param order the wanted order of records; see {@link RecordOrder} for its rules
     * @param maxSwaps the most swaps this call may make, {@code >= 0}; with 0 the call only
     *     completes a pass if the rows are already in order
     * @return the number of swaps made; 0 when the rows already are in order
     * @throws IllegalArgumentException if {@code order} is null or {@code maxSwaps < 0}; the
     *     table is unchanged
     * @throws java.util.ConcurrentModificationException if an iteration is open, or if
     *     {@code order} adds, removes or clears (rows moved so far stay moved)
     * @throws IllegalStateException if the table is closed
     */
    long defragment(long maxSwaps, RecordOrder order);

    /**
     * Tells {@link #defragment(long, RecordOrder)} that the rows may be out of order although
     * no record was added or removed, e.g. after writing the fields the order reads. O(1).
     *
     * @throws IllegalStateException if the table is closed
     */
    void markFragmented();

    /**
     * Starts building a table.
     *
     * @param schema the record schema
     * @return a builder with the default handle layout and no capacity limit
     * @throws IllegalArgumentException if {@code schema} is null
     */
    static Builder builder(Schema schema) {
        return new Builder(schema);
    }

    /**
     * Creates a table with the default options.
     *
     * @param schema the record schema
     * @return the new, empty table; it holds no native memory until the first add
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
