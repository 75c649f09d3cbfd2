package dev.bulkdata.storage;

/**
 * Thrown when a handle does not refer to a live record of the table it is used with. The
 * message names the table, the slot and both generations, or the table the handle belongs to.
 * {@link Table#contains(long)} is the check that never throws.
 *
 * <p>The call that throws leaves the table exactly as it was.
 */
public final class InvalidHandleException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Why a handle was rejected. */
    public enum Reason {
        /** The null handle {@code 0L}. */
        NULL,
        /** The record was removed (or the table cleared); its slot is free, reused or retired. */
        STALE,
        /** The handle was made by another table (its tag names that table). */
        FOREIGN,
        /** The slot lies beyond every slot this table has handed out. */
        OUT_OF_RANGE,
        /**
         * The handle was never handed out by this table: unknown tag, bits outside the layout,
         * the reserved slot 0, or a generation the slot has not reached yet.
         */
        FORGED,
        /**
         * The handle's tag belonged to a table that is closed now. Either an open table holds
         * the tag again (this table or another) and the handle's generation is below those the
         * holder hands out, or no open table holds the tag and its last table is closed; either
         * way no open table accepts it. A handle made up with such a tag is rejected the same
         * way: nothing tells it from the closed table's own. A handle whose tag no table has
         * held is {@link #FORGED}.
         */
        CLOSED
    }

    /** The rejected handle. */
    private final long handle;
    /** Why it was rejected. */
    private final Reason reason;
    /** Name of the table that rejected it. */
    private final String table;

    /**
     * Creates the exception; tables create it, user code has no need to.
     *
     * @param table the name of the table that rejected the handle
     * @param handle the rejected handle
     * @param reason why it was rejected
     * @param message the full explanation
     */
    public InvalidHandleException(String table, long handle, Reason reason, String message) {
        super(message);
        this.table = table;
        this.handle = handle;
        this.reason = reason;
    }

    /** {@return the rejected handle} */
    public long handle() {
        return handle;
    }

    /** {@return why the handle was rejected} */
    public Reason reason() {
        return reason;
    }

    /** {@return the name of the table that rejected the handle} */
    public String table() {
        return table;
    }
}
