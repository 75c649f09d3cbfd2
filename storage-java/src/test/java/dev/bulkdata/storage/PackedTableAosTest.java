package dev.bulkdata.storage;

/** The table contract on a {@link PackedTable} with the AOS layout. */
class PackedTableAosTest extends TableContract {
    @Override
    Layout layout() {
        return Layout.AOS;
    }

    @Override
    Table newTable(Schema schema) {
        return PackedTable.of(schema);
    }
}
