package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The hot paths allocate nothing once compiled. This measures bytes allocated by this thread,
 * not time: each round runs 100,000 operations, and the test passes when a round allocates
 * zero bytes (the first rounds run interpreted, where the FFM runtime itself allocates). A path
 * that allocates per operation never reaches zero. JMH's {@code -prof gc} in the benchmarks
 * module is the authoritative measurement; this is the regression guard. Every test runs on
 * both table kinds; a PackedTable's remove moves a record (swap-and-pop), and its defragment
 * steps are measured too. The counter is {@link AllocationCounter}'s, which fails where the JVM
 * cannot count (a test would otherwise see differences of 0 and pass); a failure names the
 * machine (CPU, vector extensions, {@code UseAVX}).
 */
class AllocationTest {
    private static final int OPS = 100_000;
    private static final int MAX_ROUNDS = 60;

    private static final Schema SCHEMA = TestSchemas.particles(RecordLayout.SOA);
    private static final FloatField T = SCHEMA.floatField("t");
    private static final FloatField PX = SCHEMA.floatField("px");
    private static final FloatField VX = SCHEMA.floatField("vx");
    private static final RecordVisitor MOVE =
            (chunk, slot) -> chunk.set(slot, PX, chunk.get(slot, PX) + chunk.get(slot, VX) * 0.5f);

    /**
     * Runs {@code round} until one call allocates nothing; returns the rounds it took. Fails if
     * the JVM cannot count allocations, or if no round reaches zero.
     */
    static int roundsUntilAllocationFree(String what, LongSupplier round) {
        AllocationCounter.requireCounting();
        long sink = 0;
        long bytes = 0;
        for (int i = 1; i <= MAX_ROUNDS; i++) {
            long before = AllocationCounter.allocatedBytes();
            sink += round.getAsLong();
            bytes = AllocationCounter.allocatedBytes() - before;
            if (bytes == 0) {
                return i;
            }
        }
        throw new AssertionError(what + " still allocates after " + MAX_ROUNDS + " rounds (" + bytes
                + " B in the last; sink " + sink + "); " + AllocationCounter.machine());
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void getAndSetByHandle_allocateNothing(TableKind kind) {
        try (Table table = kind.of(SCHEMA)) {
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

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void removeAndAdd_allocateNothing_onceTheBlocksExist(TableKind kind) {
        try (Table table = kind.of(SCHEMA)) {
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

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void iteration_allocatesNothing(TableKind kind) {
        try (Table table = kind.of(SCHEMA)) {
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

    @Test
    void defragmentSteps_allocateNothing() {
        try (PackedTable table = PackedTable.of(SCHEMA)) {
            long[] handles = new long[OPS];
            table.addAll(handles);
            // Made once: the order captures the table, and the test reuses it for every call.
            RecordOrder byT = (a, b) -> Float.compare(table.get(a, T), table.get(b, T));
            int[] state = {12345};
            roundsUntilAllocationFree("defragment steps", () -> {
                long swaps = 0;
                for (int step = 0; step < 20; step++) {
                    for (int k = 0; k < 50; k++) {
                        state[0] = state[0] * 1_103_515_245 + 12_345;
                        table.set(handles[(state[0] >>> 1) % handles.length], T, (state[0] >>> 8) & 1023);
                    }
                    table.markFragmented();
                    swaps += table.defragment(5_000, byT);
                }
                return swaps;
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
