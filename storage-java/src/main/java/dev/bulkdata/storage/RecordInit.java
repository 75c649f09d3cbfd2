package dev.bulkdata.storage;

/**
 * Writes the fields of records just added by {@link Table#addAll(long[], int, int, RecordInit)} through the record's
 * chunk: {@code chunk.set(slot, field, value)}, as a {@link RecordVisitor} does. The chunk is valid only in the call.
 */
@FunctionalInterface
public interface RecordInit {
    /**
     * Called once per added record, in the order of {@code handlesOut}.
     *
     * @param chunk the chunk holding the new record (all fields zero)
     * @param slot the record's slot in {@code chunk}
     * @param i the record's position in {@code handlesOut}, which holds its handle already
     */
    void init(Chunk chunk, int slot, int i);
}
