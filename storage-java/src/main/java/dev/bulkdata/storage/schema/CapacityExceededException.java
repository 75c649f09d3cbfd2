package dev.bulkdata.storage.schema;

/**
 * Thrown when a table cannot take more records: its slot space (the handle layout's slot bits or the table's
 * {@code maxCapacity}) is used up, its blocks would pass a memory budget (its own
 * {@link dev.bulkdata.storage.TableBuilder#memoryBudget(long) memoryBudget} or the process-wide {@link dev.bulkdata.storage.MemoryBudget}; the message names
 * the table, the budget and the bytes in use), or native memory ran out. The table is left exactly as it was.
 */
public final class CapacityExceededException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message says which table, what limit and how many records were asked for
     */
    public CapacityExceededException(String message) {
        super(message);
    }

    /**
     * Creates the exception for a failed allocation.
     *
     * @param message says which table, what limit and how many records were asked for
     * @param cause the allocation failure, if memory ran out
     */
    public CapacityExceededException(String message, Throwable cause) {
        super(message, cause);
    }
}
