package dev.bulkdata.storage;

/** The table contract on a {@link PackedTable} with the default SOA layout. */
class PackedTableSoaTest extends TableContract {
    @Override
    Layout layout() {
        return Layout.SOA;
    }

    @Override
    Table newTable(Schema schema) {
        return PackedTable.of(schema);
    }
}
