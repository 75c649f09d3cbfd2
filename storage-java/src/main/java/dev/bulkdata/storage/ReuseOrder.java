package dev.bulkdata.storage;

/** The order in which a {@link BulkTable} reuses the slots of removed records. */
public enum ReuseOrder {
    /**
     * First in, first out (the default): the slot freed longest ago is reused first. Reuse is
     * spread over all holes, so each slot's generation grows slowly and retirement is delayed.
     */
    FIFO,
    /**
     * Last in, first out: the slot freed most recently is reused first, while its memory is
     * still likely to be in cache.
     */
    LIFO
}
