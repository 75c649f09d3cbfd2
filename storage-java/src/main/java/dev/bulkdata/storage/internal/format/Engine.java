package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.tags.TagLease;

/**
 * What the format asks of the engine besides a table's own state: to make a table of a kind, and the library's
 * exceptions. Implemented by {@code dev.bulkdata.storage.StoredTables}, passed to every entry point of this package.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public interface Engine {
    /**
     * {@return a new, empty table of {@code state}'s kind, schema, reuse order, handle layout and {@code maxSlot},
     * under {@code lease}}, for the reader to restore: a {@code MappedTable} if {@code mapped}, else one in memory
     */
    StoredTable create(TableState state, TagLease lease, boolean mapped);

    /** {@return a new, empty component table of {@code schema} for {@code entities}, for the reader to restore} */
    StoredComponents createComponents(StoredTable entities, Schema schema);

    /** {@return the bits a record saved without {@code field} gets when loaded under its schema, 0 if none} */
    long loadDefault(dev.bulkdata.storage.schema.Field field);

    /** {@return the free-list link word of the slot at {@code position} of a block of {@code schema}} */
    int link(Schema schema, java.lang.foreign.MemorySegment block, int position);

    /** {@return the exception that reports why {@code source} cannot be read or opened} */
    StorageFileException failure(String source, StorageFileException.Reason reason, String what, Throwable cause);
}
