package dev.bulkdata.storage;

/** Receives the chunks of a table, one per block, from {@link Table#forEachChunk(ChunkVisitor)}. */
@FunctionalInterface
public interface ChunkVisitor {
    /**
     * Called once per chunk, in chunk order.
     *
     * @param chunk a chunk of the table; valid only during this call
     */
    void visit(Chunk chunk);
}
