package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.memory.NativeBudget;

/**
 * The process-wide native-memory budget that every table's blocks count against, besides a
 * table's own {@link TableBuilder#memoryBudget(long) memoryBudget}. A block counts from the
 * moment its table first takes it until the table closes (or, if it is dropped without
 * {@code close()}, until its cleaner frees it). An add, {@code addAll} or load that would pass
 * the budget throws {@link CapacityExceededException} naming the table, the budget and the
 * bytes in use, and leaves the table exactly as it was.
 *
 * <p><b>The limit</b> is read once, when the first table builder is made, from the system property
 * {@code bulkdata.memoryBudget}: bytes with an optional {@code k}, {@code m}, {@code g} or
 * {@code t} suffix (powers of 1024, e.g. {@code 6g}), a percentage of physical memory
 * ({@code 75%}), or {@code unlimited}. Without it the limit is the JVM's limit on direct memory,
 * {@code -XX:MaxDirectMemorySize} or, if that is not given, the largest heap ({@code -Xmx}): the
 * JDK's default for direct memory, which blocks allocated one by one obey anyway. A bad value
 * makes every table builder throw {@link IllegalArgumentException}, naming it.
 *
 * <p><b>What counts</b>: the bytes of each block of native memory ({@link Schema#blockBytes()}),
 * as {@link TableStats#nativeBytes()} reports them, plus blocks a table keeps as spares. Not
 * counted: a table's slot entries (4 bytes per slot, 8 in a {@code PackedTable}), its heap
 * objects, and tables mapped from a file, whose blocks are the file's pages, which the kernel
 * writes back and evicts rather than anonymous memory. The address space a table reserves at
 * once (with native access) is not memory and does not count.
 *
 * <p>Threads: both methods may be called from any thread; the count is one atomic counter,
 * changed only when a table takes a block or closes.
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

    /**
     * Sets the process-wide limit, for tests; returns the limit before, to be set back.
     *
     * @param bytes the new limit, {@link Long#MAX_VALUE} for none
     * @return the limit before
     */
    static long setLimitForTests(long bytes) {
        return NativeBudget.setLimit(bytes, "set by a test");
    }
}
