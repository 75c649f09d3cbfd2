package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.format.FileFormat;

/**
 * A table with stable slots (an "array with holes"): a record's slot never changes while it
 * lives, removing leaves a hole, and adding reuses holes before growing. Lookup by handle is
 * one shift, one mask and a generation compare.
 *
 * <pre>{@code
 * try (BulkTable particles = BulkTable.builder(schema).build()) {
 *     long h = particles.add();
 *     particles.set(h, T, 1.5f);
 *     float t = particles.get(h, T);
 *     particles.remove(h);          // h is now stale: particles.contains(h) == false
 * }
 * }</pre>
 *
 * <h2>Costs</h2>
 * add, remove, contains, get and set by handle: O(1), no allocation (add allocates a block
 * once every {@code slotsPerBlock} records when there are no holes). Iteration: O(blocks +
 * live records); holes are skipped 64 at a time. Memory: {@link Schema#slotBytes()} of native
 * memory per slot plus 4 bytes of generation and 1 bit of live bitmap on the heap.
 *
 * <h2>Generations and retirement</h2>
 * Each slot has a generation, advanced by every removal. A slot removed at the layout's
 * {@link HandleLayout#maxGeneration()} is retired, not reused: an old handle can never refer
 * to a later record, however many times slots are reused. Only in a layout with epoch bits
 * does an emptied table ({@link #clear()}, {@link #reset()}) move to its next epoch and start
 * every slot's generations over, retired ones too (see {@link HandleLayout}).
 *
 * <p>Threads and errors: see {@link Table}.
 */
public sealed interface BulkTable extends Table permits BulkTableImpl, MappedBulkTable {

    /** {@return the order in which holes are reused; answers after close too} */
    ReuseOrder reuseOrder();

    /**
     * Starts building a table.
     *
     * @param schema the record schema
     * @return a builder with SWEEP reuse, the default handle layout and no capacity limit
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
    static BulkTable of(Schema schema) {
        return builder(schema).build();
    }

    /** Options of a {@link BulkTable}: the reuse order and those of every {@link TableBuilder}. Not thread-safe. */
    final class Builder extends TableBuilder<Builder, BulkTable, MappedBulkTable> {
        private ReuseOrder reuseOrder = ReuseOrder.SWEEP;

        private Builder(Schema schema) {
            super(schema);
        }

        /**
         * Sets the order in which holes are reused.
         *
         * @param order {@link ReuseOrder#SWEEP} (default), {@link ReuseOrder#FIFO} or {@link ReuseOrder#LIFO}
         * @return this builder
         * @throws IllegalArgumentException if {@code order} is null
         */
        public Builder reuseOrder(ReuseOrder order) {
            if (order == null) {
                throw new IllegalArgumentException("reuse order is null; use SWEEP, FIFO or LIFO");
            }
            this.reuseOrder = order;
            return this;
        }

        @Override
        byte kind() {
            return FileFormat.KIND_BULK;
        }

        @Override
        ReuseOrder reuseOrder() {
            return reuseOrder;
        }

        @Override
        public BulkTable build() {
            return configured(new BulkTableImpl(schema, reuseOrder, layout(), maxCapacity, lease()));
        }

        @Override
        AbstractTable buildMapped() {
            return configured(new MappedBulkTableImpl(schema, reuseOrder, layout(), maxCapacity, lease()));
        }
    }
}
