package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The hot paths allocate nothing once compiled. This measures bytes allocated by this thread,
 * not time: each round runs 100,000 operations, and the test passes when a round allocates
 * zero bytes (the first rounds run interpreted, where the FFM runtime itself allocates). A path
 * that allocates per operation never reaches zero. JMH's {@code -prof gc} in the benchmarks
 * module is the authoritative measurement; this is the regression guard.
 */
class AllocationTest {
    private static final int OPS = 100_000;
    private static final int MAX_ROUNDS = 60;

    private static final Schema SCHEMA = TestSchemas.particles(Layout.SOA);
    private static final FloatField T = SCHEMA.floatField("t");
    private static final FloatField PX = SCHEMA.floatField("px");
    private static final FloatField VX = SCHEMA.floatField("vx");
    private static final RecordVisitor MOVE =
            (chunk, slot) -> chunk.set(slot, PX, chunk.get(slot, PX) + chunk.get(slot, VX) * 0.5f);

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** Runs {@code round} until one call allocates nothing; returns the rounds it took. */
    static int roundsUntilAllocationFree(String what, LongSupplier round) {
        long sink = 0;
        for (int i = 1; i <= MAX_ROUNDS; i++) {
            long before = allocatedBytes();
            sink += round.getAsLong();
            long bytes = allocatedBytes() - before;
            if (bytes == 0) {
                return i;
            }
        }
        throw new AssertionError(what + " still allocates after " + MAX_ROUNDS + " rounds of " + OPS
                + " operations (sink " + sink + ")");
    }

    @Test
    void getAndSetByHandle_allocateNothing() {
        try (BulkTable table = BulkTable.of(SCHEMA)) {
            long[] handles = new long[OPS];
            table.addAll(handles);
            roundsUntilAllocationFree("get/set by handle", () -> {
                float sum = 0;
                for (int i = 0; i < handles.length; i++) {
                    table.set(handles[i], T, i);
                    sum += table.get(handles[i], T);
                }
                return (long) sum;
            });
        }
    }

    @Test
    void removeAndAdd_allocateNothing_onceTheBlocksExist() {
        try (BulkTable table = BulkTable.of(SCHEMA)) {
            long[] handles = new long[OPS];
            table.addAll(handles);
            roundsUntilAllocationFree("remove/add", () -> {
                for (int i = 0; i < handles.length; i += 2) {
                    table.remove(handles[i]);
                }
                for (int i = 0; i < handles.length; i += 2) {
                    handles[i] = table.add();
                }
                return table.size();
            });
            assertEquals(OPS, table.size());
        }
    }

    @Test
    void iteration_allocatesNothing() {
        try (BulkTable table = BulkTable.of(SCHEMA)) {
            long[] handles = new long[OPS];
            table.addAll(handles);
            for (int i = 0; i < handles.length; i += 3) {
                table.remove(handles[i]);
            }
            roundsUntilAllocationFree("forEach", () -> {
                table.forEach(MOVE);
                return 0;
            });
            roundsUntilAllocationFree("forEachChunk with nextLive", () -> {
                table.forEachChunk(SUM_T);
                return 0;
            });
        }
    }

    /** Sums t over a chunk's live slots; non-capturing, so the visitor itself is a constant. */
    private static final ChunkVisitor SUM_T = chunk -> {
        float s = 0;
        for (int slot = chunk.nextLive(0); slot >= 0; slot = chunk.nextLive(slot + 1)) {
            s += chunk.get(slot, T);
        }
        if (Float.isNaN(s)) {
            throw new AssertionError("t holds NaN");
        }
    };
}
