package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Table#forEachChunk(java.util.concurrent.Executor, int, ChunkVisitor)}: chunks visited on
 * several threads, each exactly once, one iteration for the pass, failures and misuse reported.
 */
class ParallelChunksTest {
    private static final Schema SCHEMA = TestSchemas.particles(RecordLayout.SOA);
    private static final FloatField T = SCHEMA.floatField("t");
    private static ExecutorService pool;

    @BeforeAll
    static void startPool() {
        AtomicInteger made = new AtomicInteger();
        pool = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "pass-worker-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stopPool() {
        pool.shutdownNow();
    }

    /** A table of 20 blocks with a removed record in every third chunk (holes in a BulkTable). */
    private static Table table(boolean packed) {
        Table table = packed ? PackedTable.of(SCHEMA) : BulkTable.of(SCHEMA);
        long[] handles = new long[20 * SCHEMA.slotsPerBlock() - 1];
        table.addAll(handles, 0, handles.length);
        for (int i = 0; i < handles.length; i += 3 * SCHEMA.slotsPerBlock()) {
            table.remove(handles[i + 5]);
        }
        return table;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyLiveRecordIsVisitedExactlyOnce_byThreadsWorkingAtOnce(boolean packed) throws Exception {
        try (Table table = table(packed)) {
            AtomicIntegerArray visits = new AtomicIntegerArray(table.stats().blocks());
            CountDownLatch together = new CountDownLatch(2);
            Set<String> threads = ConcurrentHashMap.newKeySet();
            AtomicInteger metAnother = new AtomicInteger();
            table.forEachChunk(pool, 3, chunk -> {
                visits.incrementAndGet(chunk.index());
                threads.add(Thread.currentThread().getName());
                together.countDown();
                try {
                    // Two threads are in a visit at once: the first visit of each waits for the other.
                    if (together.await(10, TimeUnit.SECONDS)) {
                        metAnother.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int s = chunk.nextLive(0), end; s >= 0; s = chunk.nextLive(end)) {
                    end = chunk.nextHole(s);
                    for (int i = s; i < end; i++) {
                        chunk.set(i, T, chunk.get(i, T) + 1);
                    }
                }
            });
            for (int c = 0; c < visits.length(); c++) {
                assertEquals(1, visits.get(c), "chunk " + c);
            }
            // Two threads at least, one of them the pool's; whether the caller takes a chunk before
            // the workers take them all is up to the scheduler (a rejecting executor's test makes it).
            assertTrue(threads.size() >= 2 && threads.stream().anyMatch(t -> t.startsWith("pass-worker-")),
                    "threads: " + threads);
            assertEquals(visits.length(), metAnother.get(), "every visit ran while another thread was in the pass");
            AtomicInteger records = new AtomicInteger();
            table.forEach((chunk, slot) -> {
                assertEquals(1f, chunk.get(slot, T), "record " + chunk.handle(slot));
                records.incrementAndGet();
            });
            assertEquals(table.size(), records.get());
            table.add(); // the pass closed its iteration
        }
    }

    @Test
    void theFirstFailureIsRethrown_withTheOthersSuppressed_andTheIterationIsClosed() {
        try (Table table = table(false)) {
            CountDownLatch together = new CountDownLatch(2);
            AtomicInteger visited = new AtomicInteger();
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> table.forEachChunk(pool, 2, chunk -> {
                visited.incrementAndGet();
                together.countDown();
                try {
                    together.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                throw new IllegalArgumentException("chunk " + chunk.index() + " on " + Thread.currentThread().getName());
            }));
            assertTrue(thrown.getMessage().startsWith("chunk "), thrown.getMessage());
            assertEquals(1, thrown.getSuppressed().length, "the other thread's failure");
            assertEquals(2, visited.get(), "no chunk started after the first failure");
            long h = table.add(); // the iteration is closed
            assertTrue(table.contains(h));
        }
    }

    @Test
    void aStructuralChangeFromAWorker_throwsACmeSayingWhy_andChangesNothing() {
        try (Table table = table(false)) {
            int size = table.size();
            TableStats stats = table.stats();
            List<String> messages = java.util.Collections.synchronizedList(new ArrayList<>());
            CountDownLatch together = new CountDownLatch(2);
            table.forEachChunk(pool, 2, chunk -> {
                together.countDown();
                try {
                    together.await(10, TimeUnit.SECONDS);
                    table.add();
                } catch (ConcurrentModificationException e) {
                    messages.add(e.getMessage());
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            assertEquals(stats.blocks(), messages.size());
            assertTrue(messages.stream().anyMatch(m -> m.contains("on thread 'pass-worker-")), messages.getFirst());
            for (String m : messages) {
                assertTrue(m.contains("cannot add to table 'particles'") && m.contains("parallel pass")
                        && m.contains("forEachChunk with an Executor") && m.contains("Nothing was changed"), m);
            }
            assertEquals(size, table.size());
            assertEquals(stats, table.stats());
            // Uncaught, it ends the pass and reaches the caller.
            long victim = table.add();
            ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class,
                    () -> table.forEachChunk(pool, 2, chunk -> table.remove(victim)));
            assertTrue(e.getMessage().contains("cannot remove from table 'particles'"), e.getMessage());
            assertTrue(table.contains(victim));
            table.remove(victim);
        }
    }

    @Test
    void aChunkKeptPastThePass_throws() {
        try (Table table = table(true)) {
            AtomicReference<Chunk> kept = new AtomicReference<>();
            table.forEachChunk(pool, 2, chunk -> kept.compareAndSet(null, chunk));
            Chunk chunk = kept.get();
            assertNotNull(chunk);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> chunk.get(0, T));
            assertTrue(e.getMessage().contains("after its iteration ended"), e.getMessage());
        }
    }

    @Test
    void aRejectingExecutor_leavesEveryChunkToTheCallingThread() {
        try (Table table = table(false)) {
            AtomicInteger visits = new AtomicInteger();
            String caller = Thread.currentThread().getName();
            table.forEachChunk(task -> {
                throw new RejectedExecutionException("full");
            }, 4, chunk -> {
                assertEquals(caller, Thread.currentThread().getName());
                visits.incrementAndGet();
            });
            assertEquals(table.stats().blocks(), visits.get());
        }
    }

    @Test
    void aTaskThatStartsAfterThePass_doesNothing() {
        try (Table table = table(false)) {
            List<Runnable> late = new ArrayList<>();
            AtomicInteger visits = new AtomicInteger();
            table.forEachChunk(late::add, 3, chunk -> visits.incrementAndGet());
            assertEquals(2, late.size(), "two helper tasks submitted");
            assertEquals(table.stats().blocks(), visits.get());
            late.forEach(Runnable::run);
            assertEquals(table.stats().blocks(), visits.get(), "a late task visits nothing");
            table.add();
        }
    }

    @Test
    void aFilteredPass_visitsOnlyTheChangedChunks() {
        try (Table table = table(false)) {
            long[] live = new long[table.size()];
            int[] n = {0};
            table.forEach((chunk, slot) -> live[n[0]++] = chunk.handle(slot));
            int seen = table.markVersion();
            table.set(live[10], T, 1f);                                   // chunk 0
            table.set(live[5 * SCHEMA.slotsPerBlock()], T, 1f);           // chunk 5
            Set<Integer> visited = ConcurrentHashMap.newKeySet();
            table.forEachChunk(ChangeFilter.of(T), seen, pool, 3, chunk -> assertTrue(visited.add(chunk.index())));
            assertEquals(Set.of(0, 5), visited);
        }
    }

    @Test
    void badArguments_andAClosedTable_areRefused() {
        Table table = table(false);
        assertThrows(IllegalArgumentException.class, () -> table.forEachChunk((java.util.concurrent.Executor) null, 2, chunk -> { }));
        assertThrows(IllegalArgumentException.class, () -> table.forEachChunk(pool, 2, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> table.forEachChunk(pool, 0, chunk -> { }));
        assertTrue(e.getMessage().contains("parallelism=0"), e.getMessage());
        table.add(); // no iteration was left open
        table.close();
        assertThrows(IllegalStateException.class, () -> table.forEachChunk(pool, 2, chunk -> { }));
    }
}
