package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.tags.TagLease;

/** A {@link BulkTable} mapped from a file: {@link AbstractTable} holds the file's state and the checkpoint methods. */
final class MappedBulkTableImpl extends BulkTableImpl implements MappedBulkTable {
    MappedBulkTableImpl(Schema schema, ReuseOrder reuseOrder, HandleLayout handles, int maxCapacity, TagLease lease) {
        super(schema, reuseOrder, handles, maxCapacity, lease);
    }
}
