package dev.bulkdata.storage;

/** The table contract on a {@link BulkTable} with the default SOA layout and FIFO reuse. */
class BulkTableSoaTest extends TableContract {
    @Override
    Layout layout() {
        return Layout.SOA;
    }

    @Override
    Table newTable(Schema schema) {
        return BulkTable.of(schema);
    }
}
