package dev.bulkdata.storage.schema;

/** The order in which a {@link dev.bulkdata.storage.BulkTable} reuses the slots of removed records. */
public enum ReuseOrder {
    /**
     * First in, first out: the slot freed longest ago is reused first. Reuse is spread over all holes, so each slot's
     * generation grows slowly and retirement is delayed.
     */
    FIFO,
    /** Last in, first out: the slot freed most recently is reused first, while its memory is likely still in cache. */
    LIFO,
    /**
     * Slot order, circularly (the default): each add takes the first free slot after the slot the previous add took,
     * wrapping round to the first slot past the last. Holes scattered by removals are refilled front to back, so a run
     * of adds writes memory in address order; and a slot, once reused, is not reused again before the adds have gone
     * round past every other hole, which spreads generations as FIFO does. A {@code clear} starts again at the first
     * slot; a snapshot, or a mapped table's checkpoint, keeps where the next add looks. An add costs at most one step
     * per 4,096 slots between the last add's slot and the next hole; the free slots cost one bit each (FIFO and LIFO:
     * four bytes per hole).
     */
    SWEEP
}
