package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The vectorised kernels allocate nothing per record once compiled, on every path a chunk can
 * take: a chunk of full words, a chunk with one partial word among full ones (the rare path)
 * and a partly filled last chunk. A vector that crosses a call C2 did not inline is boxed on the
 * heap (about 100 bytes a vector, megabytes a pass), so this guards the kernels' loop shape, not
 * only their arithmetic. A whole-table call opens one {@code ChunkIteration} (32 bytes), which
 * C2 removes only where it proves the object stays local: with both table kinds through the same
 * call sites (this test runs both in one JVM) it may stay, so a pass may allocate those, and
 * nothing else.
 */
class KernelsAllocationTest {
    static final int RECORDS = 100_000;
    static final int MAX_ROUNDS = 3000;
    /** Whole-table calls per pass (each may allocate its 32-byte iteration object). */
    static final int TABLE_CALLS = 32;
    static final Schema SCHEMA = Schema.builder("alloc")
            .add(FieldType.FLOAT, "f", "fb").add(FieldType.DOUBLE, "d", "db")
            .add(FieldType.INT, "i", "ib").add(FieldType.LONG, "l", "lb").build();
    static final FloatField F = SCHEMA.floatField("f");
    static final FloatField FB = SCHEMA.floatField("fb");
    static final DoubleField D = SCHEMA.doubleField("d");
    static final DoubleField DB = SCHEMA.doubleField("db");
    static final IntField I = SCHEMA.intField("i");
    static final IntField IB = SCHEMA.intField("ib");
    static final LongField L = SCHEMA.longField("l");
    static final LongField LB = SCHEMA.longField("lb");

    /** Bytes this thread allocated so far; fails where the JVM cannot count ({@link AllocationCounter}). */
    static long allocatedBytes() {
        return AllocationCounter.allocatedBytes();
    }

    /** One pass of every kernel over the whole table; returns a sink of the results. */
    static long pass(Table t, long[] handles) {
        long sink = 0;
        Kernels.fill(t, FB, 1f);
        Kernels.scale(t, F, 0.5f);
        Kernels.add(t, F, 1f);
        Kernels.axpy(t, F, FB, 0.25f);
        sink += (long) Kernels.sum(t, F) + (long) Kernels.min(t, F) + (long) Kernels.max(t, F);
        sink += Kernels.handlesLessThan(t, F, 3f, handles);
        Kernels.fill(t, DB, 1);
        Kernels.scale(t, D, 0.5);
        Kernels.add(t, D, 1);
        Kernels.axpy(t, D, DB, 0.25);
        sink += (long) Kernels.sum(t, D) + (long) Kernels.min(t, D) + (long) Kernels.max(t, D);
        sink += Kernels.handlesLessThan(t, D, 3, handles);
        Kernels.fill(t, IB, 1);
        Kernels.scale(t, I, 1);
        Kernels.add(t, I, 1);
        Kernels.axpy(t, I, IB, -1);
        sink += Kernels.sum(t, I) + Kernels.min(t, I) + Kernels.max(t, I);
        sink += Kernels.handlesLessThan(t, I, 3, handles);
        Kernels.fill(t, LB, 1);
        Kernels.scale(t, L, 1);
        Kernels.add(t, L, 1);
        Kernels.axpy(t, L, LB, -1);
        sink += Kernels.sum(t, L) + Kernels.min(t, L) + Kernels.max(t, L);
        sink += Kernels.handlesLessThan(t, L, 3, handles);
        return sink;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyKernel_allocatesNothingPerRecordOnceCompiled_onEveryChunkShape(boolean packed) {
        Assumptions.assumeTrue(Kernels.vectorized(), "runs with --add-modules jdk.incubator.vector");
        AllocationCounter.requireCounting();
        try (Table t = packed ? PackedTable.of(SCHEMA) : BulkTable.of(SCHEMA)) {
            long[] handles = new long[RECORDS];
            t.addAll(handles);
            t.remove(handles[3]);                   // the first chunk: one partial word among full ones
            t.remove(handles[RECORDS - 1]);         // the last chunk: partly filled
            long sink = 0;
            // At least MAX_ROUNDS passes and a minute: on a loaded machine C2 compiles late.
            long deadline = System.nanoTime() + 60_000_000_000L;
            for (int round = 1; round <= MAX_ROUNDS || System.nanoTime() - deadline < 0; round++) {
                long before = allocatedBytes();
                sink += pass(t, handles);
                if (allocatedBytes() - before <= 32L * TABLE_CALLS) {
                    assertEquals(RECORDS - 2, t.size());
                    return;
                }
            }
            throw new AssertionError("the kernels still allocate more than their iteration objects after " + MAX_ROUNDS
                    + " passes and a minute (sink " + sink + "); " + AllocationCounter.machine());
        }
    }
}
