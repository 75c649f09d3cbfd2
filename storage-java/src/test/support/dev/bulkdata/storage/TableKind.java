package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;

/** The table kinds a suite runs over, each built from a schema and the options both kinds share. */
enum TableKind {
    BULK {
        @Override
        Table build(Schema schema, HandleLayout handles, int maxCapacity) {
            BulkTable.Builder b = BulkTable.builder(schema).handleLayout(handles);
            return (maxCapacity == Integer.MAX_VALUE ? b : b.maxCapacity(maxCapacity)).build();
        }
    },
    PACKED {
        @Override
        Table build(Schema schema, HandleLayout handles, int maxCapacity) {
            PackedTable.Builder b = PackedTable.builder(schema).handleLayout(handles);
            return (maxCapacity == Integer.MAX_VALUE ? b : b.maxCapacity(maxCapacity)).build();
        }
    };

    /** A table with the given handle layout and maximum capacity ({@code Integer.MAX_VALUE}: none). */
    abstract Table build(Schema schema, HandleLayout handles, int maxCapacity);

    /** A table with the default options. */
    Table of(Schema schema) {
        return build(schema, HandleLayout.DEFAULT, Integer.MAX_VALUE);
    }
}
