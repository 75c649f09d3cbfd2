package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.tags.TagLease;

/** A {@link PackedTable} mapped from a file: {@link AbstractTable} holds the file's state and the checkpoint methods. */
final class MappedPackedTableImpl extends PackedTableImpl implements MappedPackedTable {
    MappedPackedTableImpl(Schema schema, HandleLayout handles, int maxCapacity, TagLease lease) {
        super(schema, handles, maxCapacity, lease);
    }
}
