package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.TagRegistry;

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
 * {@link HandleLayout#maxGeneration()} is retired, never reused: an old handle can never refer
 * to a later record, however many times slots are reused.
 *
 * <p>Threads and errors: see {@link Table}.
 */
public interface BulkTable extends Table {

    /** {@return the order in which holes are reused; answers after close too} */
    ReuseOrder reuseOrder();

    /**
     * Starts building a table.
     *
     * @param schema the record schema
     * @return a builder with FIFO reuse, the default handle layout and no capacity limit
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
     * @throws IllegalStateException if all 4095 table tags are in use by open tables
     */
    static BulkTable of(Schema schema) {
        return builder(schema).build();
    }

    /** Options of a {@link BulkTable}. Not thread-safe. */
    final class Builder {
        private final Schema schema;
        private ReuseOrder reuseOrder = ReuseOrder.FIFO;
        private HandleLayout handleLayout = HandleLayout.DEFAULT;
        private int maxCapacity = Integer.MAX_VALUE;
        private int tag;

        private Builder(Schema schema) {
            this.schema = AbstractTable.checkedSchema(schema);
        }

        /**
         * Returns this builder.
         *
         * @param order {@link ReuseOrder#FIFO} (default) or {@link ReuseOrder#LIFO}
         * @return this builder
         * @throws IllegalArgumentException if {@code order} is null
         */
        public Builder reuseOrder(ReuseOrder order) {
            if (order == null) {
                throw new IllegalArgumentException("reuse order is null; use FIFO or LIFO");
            }
            this.reuseOrder = order;
            return this;
        }

        /**
         * Returns this builder.
         *
         * @param layout how handles split into index and generation bits
         * @return this builder
         * @throws IllegalArgumentException if {@code layout} is null
         */
        public Builder handleLayout(HandleLayout layout) {
            this.handleLayout = AbstractTable.checkedHandleLayout(layout);
            return this;
        }

        /**
         * Caps the index space: the table never uses more than {@code slots} slots (live,
         * holes and retired together); an add beyond it throws
         * {@link CapacityExceededException}. Without a cap the limit is the handle layout's
         * {@link HandleLayout#maxIndex()}.
         *
         * @param slots the largest number of slots, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code slots < 1}
         */
        public Builder maxCapacity(int slots) {
            this.maxCapacity = AbstractTable.checkedMaxCapacity(slots);
            return this;
        }

        /**
         * Gives the table a fixed tag instead of an automatic one, so that its handles carry the
         * same tag in every run of the program: what a table saved with {@link Snapshots} needs
         * to be loaded under its own tag while other tables are open (automatic tags are handed
         * out from 1 up, fixed ones never). The table still gets a new identity: its slots start
         * above every generation earlier tables under the tag handed out in this process, so
         * their handles stay rejected.
         *
         * @param tag {@link HandleLayout#MIN_FIXED_TAG} to {@link HandleLayout#MAX_TAG}
         * @return this builder
         * @throws IllegalArgumentException if {@code tag} is outside that range
         */
        public Builder tag(int tag) {
            TagRegistry.checkFixed(tag);
            this.tag = tag;
            return this;
        }

        /**
         * Creates the table. It holds no native memory until the first add.
         *
         * @return the new, empty table
         * @throws IllegalStateException if all automatic table tags are in use by open tables, or
         *     an open table holds the fixed {@link #tag(int)}
         * @throws CapacityExceededException if earlier tables under the fixed tag handed out
         *     every generation this handle layout has
         */
        public BulkTable build() {
            if (tag == 0) {
                return new BulkTableImpl(schema, reuseOrder, handleLayout, maxCapacity);
            }
            return new BulkTableImpl(schema, reuseOrder, handleLayout, maxCapacity,
                    TagRegistry.registerFixed(schema.name(), handleLayout, tag));
        }
    }
}
