package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.internal.memory.NativeBudget;

/**
 * The process-wide native-memory budget that every table's blocks count against, besides a table's own
 * {@link TableBuilder#memoryBudget(long) memoryBudget}: a block counts from when its table first takes it until the
 * table closes (or its cleaner frees it). An add, {@code addAll} or load that would pass the budget throws
 * {@link CapacityExceededException} and leaves the table exactly as it was.
 *
 * <p>The limit is read once, when the first table builder is made, from the system property
 * {@code bulkdata.memoryBudget} (bytes with an optional {@code k}/{@code m}/{@code g}/{@code t} suffix, a percentage of
 * physical memory such as {@code 75%}, or {@code unlimited}); without it, the JVM's direct-memory limit. A bad value
 * makes every table builder throw {@link IllegalArgumentException}. What counts: each block's bytes
 * ({@link TableStats#nativeBytes()}) and spares; not slot entries, heap objects, reserved address space or mapped
 * tables. Guide: docs/errors-and-threads.md, "Memory".
 *
 * <p>Threads: both methods may be called from any thread; the count is one atomic counter.
 */
public final class MemoryBudget {
    private MemoryBudget() {
    }

    /** {@return the process-wide limit in bytes; {@link Long#MAX_VALUE} if unlimited} */
    public static long limit() {
        return NativeBudget.limit();
    }

    /** {@return the bytes the blocks of every open table in memory count against the limit now} */
    public static long inUse() {
        return NativeBudget.inUse();
    }

    /** Sets the process-wide limit ({@link Long#MAX_VALUE}: none), for tests; returns the limit before, to set back. */
    static long setLimitForTests(long bytes) {
        return NativeBudget.setLimit(bytes, "set by a test");
    }
}
