package dev.bulkdata.storage;

/** The table contract on a {@link BulkTable} reusing holes last-in first-out. */
class BulkTableLifoTest extends TableContract {
    @Override
    Layout layout() {
        return Layout.SOA;
    }

    @Override
    Table newTable(Schema schema) {
        return BulkTable.builder(schema).reuseOrder(ReuseOrder.LIFO).build();
    }
}
