package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.BlockArena;

import java.lang.foreign.MemorySegment;
import java.nio.IntBuffer;

/**
 * A BulkTable or PackedTable as the format sees it, implemented by the engine over its table ({@code StoredTables}).
 * Blocks move between file and the table's segments uncopied; meta words go into the metadata buffer
 * ({@link #putSlots}) and back as pages the slot map adopts.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public interface StoredTable {
    // ---- Saving: the caller holds the table's iteration guard

    /** {@return the table's state before its slot sections} O(1), but a SWEEP table's free tail: O(holes). */
    TableState state();

    /** Writes the free list into its links, its saved form (ARCHITECTURE.md, "The free list"). */
    void writeLinks();

    /**
     * Writes the slot sections after the schema: the {@code entryCount} meta words (0 for an entry never made) and,
     * for a PackedTable, their payloads and each row's slot.
     */
    void putSlots(IntBuffer out, int entryCount);

    /** {@return the blocks, of which the first {@link #blockCount()} are the table's} */
    MemorySegment[] segments();

    int blockCount();

    /** {@return a BulkTable's free list from head to tail, without a clear's range (for a checkpoint)} */
    int[] listedSlots();

    // ---- Restoring: a new table that the engine made (Engine#create), not yet used

    BlockArena arena();

    /** Allocates block {@code b} (blocks in order) and returns it, to be filled from the file. */
    MemorySegment restoreBlock(int b);

    /** {@return the link word of a BulkTable's slot {@code slot} (slot 0: the head)} */
    int link(int slot);

    /** Sets the link word of a BulkTable's slot {@code slot} (a mapped table's list, written back). */
    void setLink(int slot, int next);

    /**
     * Restores the slot map and bookkeeping from checked sections: counters, free list (head to tail), {@code swept}
     * free slots of a clear's range, meta words (pages the slot map may adopt), a PackedTable's payloads and
     * back-links, a BulkTable's live words; a BulkTable also zeroes the records of slots never opened.
     */
    void restore(TableState state, int[] list, int swept, MetaWords metas, int[] payloads, long[] liveWords,
                 int[] backLinks);

    /** Records a load under a new tag: the snapshot's identity and tag, and how far every generation moved up. */
    void loadedFrom(long identity, int tag, int generationShift);

    /** Closes the table: unmaps or frees its blocks and releases its tag. */
    void close();

    // ---- A mapped table

    /** Keeps the store of the file the table is mapped from, whose checkpoints it then makes. */
    void attach(MappedStore store);

    /** {@return a new change version: writes from now on stamp their block newer} */
    int markVersion();

    /** {@return whether block {@code block} was stamped after change version {@code version}} */
    boolean changedSince(int block, int version);

    // ---- As the entity table of a component snapshot

    /** {@return the table as a component table's snapshot checks it} */
    Entities entities();

    /** {@return slot {@code slot}'s meta word, 0 if it was never made} */
    int savedMeta(int slot);

    /**
     * What a component table's snapshot is checked against.
     *
     * @param savedIdentity the identity of the snapshot the table was loaded from under a new tag, else 0
     * @param generationShift how far that load moved every generation up
     * @param epoch the table's epoch ({@link HandleLayout#epochBits()})
     */
    record Entities(String name, long identity, int tag, HandleLayout handles, int maxSlot, int limit,
                    long savedIdentity, int generationShift, int epoch) {
    }

    /** {@return the table's schema} */
    Schema schema();
}
