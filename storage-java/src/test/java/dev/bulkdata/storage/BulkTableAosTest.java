package dev.bulkdata.storage;

/** The table contract on a {@link BulkTable} with the AOS layout. */
class BulkTableAosTest extends TableContract {
    @Override
    Layout layout() {
        return Layout.AOS;
    }

    @Override
    Table newTable(Schema schema) {
        return BulkTable.of(schema);
    }
}
