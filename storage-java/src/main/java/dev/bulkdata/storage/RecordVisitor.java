package dev.bulkdata.storage;

/**
 * Receives the live records of a table from {@link Table#forEach(RecordVisitor)}. Read and write a record with
 * {@code chunk.get(slot, field)} and {@code chunk.set(slot, field, value)}; its handle is {@code chunk.handle(slot)}.
 */
@FunctionalInterface
public interface RecordVisitor {
    /**
     * Called once per live record, in slot order.
     *
     * @param chunk the chunk holding the record
     * @param slot the record's slot in {@code chunk}
     */
    void visit(Chunk chunk, int slot);
}
