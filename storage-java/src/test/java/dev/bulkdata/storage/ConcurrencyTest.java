package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The threading contract of {@link Table}: fields of distinct records may be read and written
 * from many threads at once (per-chunk parallel iteration), and a structural change while an
 * iteration is open, from any thread, fails fast. Every test runs on both table kinds.
 */
class ConcurrencyTest {
    private static final int RECORDS = 200_000;
    private static final int ROUNDS = 5;
    private static final long TIMEOUT_SECONDS = 30;

    /** How two writer threads share the work; no record is written by both. */
    enum Split {
        /** Thread 0 takes chunks 0, 2, 4, ...; thread 1 chunks 1, 3, 5, ... */
        EVEN_ODD_CHUNKS,
        /** Thread 0 takes the first half of the chunks, thread 1 the second. */
        HALVES,
        /** Both threads visit every chunk: thread 0 writes even slots, thread 1 odd slots (shared cache lines). */
        INTERLEAVED_SLOTS;

        boolean owns(int thread, int chunk, int chunkCount, int slot) {
            return switch (this) {
                case EVEN_ODD_CHUNKS -> chunk % 2 == thread;
                case HALVES -> (chunk < chunkCount / 2 ? 0 : 1) == thread;
                case INTERLEAVED_SLOTS -> slot % 2 == thread;
            };
        }
    }

    static Stream<Arguments> layoutsAndSplits() {
        return Stream.of(TableKind.values()).flatMap(k -> Stream.of(RecordLayout.values())
                .flatMap(l -> Stream.of(Split.values()).map(s -> Arguments.of(k, l, s))));
    }

    /** The value field {@code field} of the record {@code handle} gets in round {@code round}: an exact float. */
    static float value(long handle, int field, int round) {
        long mix = (handle + field * 0x632B_E59B_D9B4_E019L) * 0x9E37_79B9_7F4A_7C15L;
        return (float) (((int) (mix >>> 40) + round) & 0xFF_FFFF); // below 2^24: every int is an exact float
    }

    /** A particle table with {@link #RECORDS} records, every seventh one removed. */
    private static final class Particles implements AutoCloseable {
        final Table table;
        final FloatField[] fields;
        final List<Long> live = new ArrayList<>();
        final List<Long> dead = new ArrayList<>();

        Particles(TableKind kind, RecordLayout layout) {
            table = kind.of(TestSchemas.particles(layout));
            fields = table.schema().fields().stream().map(f -> (FloatField) f).toArray(FloatField[]::new);
            long[] all = new long[RECORDS];
            table.addAll(all);
            for (int i = 0; i < all.length; i++) {
                (i % 7 == 3 ? dead : live).add(all[i]);
            }
            table.removeAll(dead.stream().mapToLong(Long::longValue).toArray());
        }

        @Override
        public void close() {
            table.close();
        }
    }

    /** Runs {@code task(i)} on {@code threads} threads started together; rethrows the first failure. */
    private static void runConcurrently(int threads, IntConsumer task) throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                try {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    task.accept(id);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "concurrency-test-" + i);
            t.start();
            running.add(t);
        }
        for (Thread t : running) {
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        if (failure.get() != null) {
            fail("a worker thread failed", failure.get());
        }
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("layoutsAndSplits")
    void twoThreadsWritingDisjointRecordsOfAnOpenIteration_loseNothing(TableKind kind, RecordLayout layout, Split split)
            throws Exception {
        try (Particles p = new Particles(kind, layout)) {
            int[] mismatchesSeenByWriters = new int[2];
            try (ChunkIteration chunks = p.table.iterate()) {
                int n = chunks.count();
                assertTrue(n > 300, "the table spans many chunks");
                Chunk[] all = new Chunk[n];
                for (int i = 0; i < n; i++) {
                    all[i] = chunks.chunk(i);
                }
                runConcurrently(2, thread -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        for (int c = 0; c < n; c++) {
                            Chunk chunk = all[c];
                            for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                                if (!split.owns(thread, c, n, s)) {
                                    continue;
                                }
                                long h = chunk.handle(s);
                                for (int f = 0; f < p.fields.length; f++) {
                                    chunk.set(s, p.fields[f], value(h, f, round));
                                }
                            }
                        }
                    }
                    // Read back, still in parallel with the other writer: nobody else touches these records.
                    int bad = 0;
                    for (int c = 0; c < n; c++) {
                        Chunk chunk = all[c];
                        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                            if (split.owns(thread, c, n, s)) {
                                long h = chunk.handle(s);
                                for (int f = 0; f < p.fields.length; f++) {
                                    if (chunk.get(s, p.fields[f]) != value(h, f, ROUNDS - 1)) {
                                        bad++;
                                    }
                                }
                            }
                        }
                    }
                    mismatchesSeenByWriters[thread] = bad;
                });
            }
            assertArrayEquals(new int[2], mismatchesSeenByWriters, "writers read back what they wrote");

            // Every live record holds exactly the last round's values, read by handle.
            int mismatches = 0;
            String first = null;
            for (long h : p.live) {
                for (int f = 0; f < p.fields.length; f++) {
                    float actual = p.table.get(h, p.fields[f]);
                    float expected = value(h, f, ROUNDS - 1);
                    if (Float.floatToRawIntBits(actual) != Float.floatToRawIntBits(expected)) {
                        if (mismatches++ == 0) {
                            first = p.table.format(h) + "." + p.fields[f].name() + " = " + actual + ", expected "
                                    + expected;
                        }
                    }
                }
            }
            assertEquals(0, mismatches, "lost writes, first: " + first);
            assertEquals(p.live.size(), p.table.size());
            for (long h : p.dead) {
                assertFalse(p.table.contains(h));
            }
            // No thread wrote a hole: holes are still wiped, free list and counters intact.
            TableAudit.check(p.table);
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("kindsAndLayouts")
    void parallelReaders_inForEachChunk_agreeOnSumsWhileStructureStaysFrozen(TableKind kind, RecordLayout layout)
            throws Exception {
        try (Particles p = new Particles(kind, layout)) {
            long[] expected = new long[p.fields.length];
            for (long h : p.live) {
                for (int f = 0; f < p.fields.length; f++) {
                    float v = value(h, f, 7);
                    p.table.set(h, p.fields[f], v);
                    expected[f] += (long) v;
                }
            }
            int readers = 4;
            long[][] sums = new long[readers][];
            int[] counts = new int[readers];
            CountDownLatch allInside = new CountDownLatch(readers);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> readerFailure = new AtomicReference<>();
            Thread[] threads = new Thread[readers];
            for (int r = 0; r < readers; r++) {
                int id = r;
                threads[r] = new Thread(() -> {
                    try {
                        long[] sum = new long[p.fields.length];
                        boolean[] waited = {false};
                        p.table.forEachChunk(chunk -> {
                            if (!waited[0]) {
                                waited[0] = true;
                                allInside.countDown();
                                try {
                                    assertTrue(release.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
                                } catch (InterruptedException e) {
                                    throw new AssertionError(e);
                                }
                            }
                            counts[id] += id % 2 == 0 ? sumBySlot(chunk, p.fields, sum) : sumByView(chunk, p.fields, sum);
                        });
                        sums[id] = sum;
                    } catch (Throwable e) {
                        readerFailure.compareAndSet(null, e);
                    }
                }, "reader-" + r);
                threads[r].start();
            }
            try {
                assertTrue(allInside.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "readers did not start");
                // Four iterations are open on other threads: the structure is frozen.
                long someLive = p.live.get(0);
                List<Executable> changes = List.of(
                        p.table::add,
                        () -> p.table.addAll(new long[4]),
                        () -> p.table.remove(someLive),
                        () -> p.table.removeAll(new long[] {someLive}),
                        p.table::clear,
                        () -> {
                            if (p.table instanceof PackedTable packed) {
                                packed.defragment(Long.MAX_VALUE, (x, y) -> Long.compare(y, x));
                            } else {
                                p.table.clear();
                            }
                        });
                for (Executable change : changes) {
                    assertThrows(ConcurrentModificationException.class, change);
                }
                assertTrue(p.table.contains(someLive));
                assertFalse(p.table.isClosed());
            } finally {
                release.countDown();
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
                    assertFalse(t.isAlive(), t.getName() + " did not finish");
                }
            }
            if (readerFailure.get() != null) {
                fail("a reader failed", readerFailure.get());
            }
            for (int r = 0; r < readers; r++) {
                assertEquals(p.live.size(), counts[r], "records seen by reader " + r);
                assertArrayEquals(expected, sums[r], "sums of reader " + r);
            }
            // Every iteration ended: structure may change again.
            long h = p.table.add();
            assertTrue(p.table.contains(h));
            assertEquals(p.live.size() + 1, p.table.size());
        }
    }

    /** Sums every field of the chunk's live records through slot accessors; returns how many. */
    private static int sumBySlot(Chunk chunk, FloatField[] fields, long[] sum) {
        int seen = 0;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            for (int f = 0; f < fields.length; f++) {
                sum[f] += (long) chunk.get(s, fields[f]);
            }
            seen++;
        }
        return seen;
    }

    /** Sums the same through the block view and the live bitmap (columns in SOA, strided in AOS). */
    private static int sumByView(Chunk chunk, FloatField[] fields, long[] sum) {
        MemorySegment records = chunk.records();
        int seen = 0;
        for (int w = 0; w < chunk.liveWordCount(); w++) {
            long bits = chunk.liveBits(w);
            while (bits != 0) {
                int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                for (int f = 0; f < fields.length; f++) {
                    long offset = fields[f].blockOffset() + (long) s * fields[f].slotStride();
                    sum[f] += (long) records.get(ValueLayout.JAVA_FLOAT, offset);
                }
                seen++;
            }
        }
        return seen;
    }

    /** How thread A keeps an iteration open. */
    enum Holder { ITERATE, FOR_EACH_CHUNK, FOR_EACH }

    static Stream<Arguments> layoutsAndHolders() {
        return Stream.of(TableKind.values()).flatMap(k -> Stream.of(RecordLayout.values())
                .flatMap(l -> Stream.of(Holder.values()).map(h -> Arguments.of(k, l, h))));
    }

    static Stream<Arguments> kindsAndLayouts() {
        return ErrorContractTest.kindsAndLayouts();
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("layoutsAndHolders")
    void structuralChange_fromThreadB_whileThreadAHasAnIterationOpen_throwsConcurrentModification(TableKind kind,
                                                                                                  RecordLayout layout,
                                                                                                  Holder holder)
            throws Exception {
        try (Table t = kind.of(TestSchemas.particles(layout))) {
            long[] handles = new long[2_000];
            t.addAll(handles);
            FloatField px = t.schema().floatField("px");
            for (int i = 0; i < handles.length; i++) {
                t.set(handles[i], px, i);
            }
            t.removeAll(new long[] {handles[10], handles[600]});
            TableSnapshot before = TableSnapshot.of(t);

            CountDownLatch opened = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Runnable hold = () -> {
                opened.countDown();
                try {
                    assertTrue(done.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            };
            Thread a = new Thread(() -> {
                try {
                    switch (holder) {
                        case ITERATE -> {
                            try (ChunkIteration ignored = t.iterate()) {
                                hold.run();
                            }
                        }
                        case FOR_EACH_CHUNK -> {
                            boolean[] first = {true};
                            t.forEachChunk(chunk -> {
                                if (first[0]) {
                                    first[0] = false;
                                    hold.run();
                                }
                            });
                        }
                        case FOR_EACH -> {
                            boolean[] first = {true};
                            t.forEach((chunk, slot) -> {
                                if (first[0]) {
                                    first[0] = false;
                                    hold.run();
                                }
                            });
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "iterating-thread-A");
            a.start();
            try {
                assertTrue(opened.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "thread A did not open its iteration");
                // This thread is B.
                assertThrows(ConcurrentModificationException.class, t::add);
                assertThrows(ConcurrentModificationException.class, () -> t.addAll(new long[2]));
                assertThrows(ConcurrentModificationException.class, () -> t.remove(handles[0]));
                assertThrows(ConcurrentModificationException.class, () -> t.removeAll(new long[] {handles[1]}));
                assertThrows(ConcurrentModificationException.class, t::clear);
                assertThrows(ConcurrentModificationException.class, () -> t.cancelAdd(handles[2]));
                if (t instanceof PackedTable packed) {
                    assertThrows(ConcurrentModificationException.class,
                            () -> packed.defragment(Long.MAX_VALUE, (x, y) -> Long.compare(y, x)));
                }
                // Field writes of records are allowed meanwhile.
                t.set(handles[5], px, 5f);
            } finally {
                done.countDown();
                a.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            }
            assertFalse(a.isAlive());
            if (failure.get() != null) {
                fail("thread A failed", failure.get());
            }
            assertEquals(before, TableSnapshot.of(t));
            long h = t.add();
            assertTrue(t.contains(h), "once thread A's iteration ended, add works again");
            assertEquals(1_999, t.size());
        }
    }
}
