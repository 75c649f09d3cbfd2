package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.format.FileFormat;

/**
 * A table with stable slots: a record's slot never changes while it lives, removing leaves a hole, and adding reuses
 * holes (in the {@link ReuseOrder}) before growing.
 *
 * <p><b>Costs.</b> add, remove, contains, get and set by handle: O(1), no allocation (but a block every
 * {@code slotsPerBlock} records when there are no holes). Iteration: O(blocks + live records), holes skipped 64 at a
 * time. Memory: {@link Schema#slotBytes()} natively per slot plus 4 bytes of generation and 1 bit of live bitmap.
 *
 * <p><b>Generations.</b> Each slot's generation advances with every removal; a slot removed at
 * {@link HandleLayout#maxGeneration()} is retired, never reused, so an old handle never refers to a later record.
 * Only a layout with epoch bits lets an emptied table start every slot's generations over. Guide:
 * docs/tables-and-handles.md. Threads and errors: see {@link Table}.
 */
public sealed interface BulkTable extends Table permits BulkTableImpl, MappedBulkTable {

    /** {@return the order in which holes are reused; answers after close too} */
    ReuseOrder reuseOrder();

    /**
     * {@return a builder for {@code schema} with SWEEP reuse, the default handle layout and no capacity limit}
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
