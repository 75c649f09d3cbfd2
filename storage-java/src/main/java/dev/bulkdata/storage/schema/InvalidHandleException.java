package dev.bulkdata.storage.schema;

/**
 * Thrown when a handle does not refer to a live record of the table it is used with; the message names the table,
 * slot and both generations, or the handle's table. The throwing call leaves the table as it was.
 * {@link dev.bulkdata.storage.Table#contains(long)} is the check that never throws.
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
         * The handle was never handed out by this table: unknown tag, bits outside the layout, the reserved slot 0,
         * or a generation the slot has not reached yet.
         */
        FORGED,
        /**
         * The handle's tag belonged to a table now closed, and no open table accepts it: the tag is free, or held
         * again (by this table or another) at generations above the handle's. A made-up handle with such a tag is
         * indistinguishable; one whose tag no table has held is {@link #FORGED}.
         */
        CLOSED
    }

    private final long handle;
    private final Reason reason;
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
