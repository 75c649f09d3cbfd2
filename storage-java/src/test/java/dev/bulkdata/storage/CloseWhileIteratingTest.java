package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code close()} on a worker thread while the caller's thread still hands out the chunks of an
 * open iteration (a misuse: the Javadoc forbids closing a table another thread uses) gets the
 * table's own {@link IllegalStateException}, naming it, where the chunks are handed out, and an
 * {@code IllegalStateException} in the workers: never an internal exception. The hand-out once read the chunk array that {@code close()} had just emptied and
 * threw {@link ArrayIndexOutOfBoundsException}. Raced many times, within a time budget.
 */
class CloseWhileIteratingTest {
    private static final int CHUNKS = 64;
    private static final int ROUNDS = 300;
    private static final long BUDGET_NANOS = 15_000_000_000L;
    private static final Schema SCHEMA = TestSchemas.particles(RecordLayout.SOA);
    private static final FloatField T = SCHEMA.floatField("t");

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void closeOnAWorker_whileChunksAreHandedOut_throwsTheTablesIllegalStateException(TableKind kind) throws Exception {
        SplittableRandom random = new SplittableRandom(Seeds.seed("CloseWhileIteratingTest", 0xC105EL));
        ExecutorService workers = Executors.newFixedThreadPool(2);
        long start = System.nanoTime();
        int rounds = 0;
        int seenByTheCaller = 0;
        try {
            while (rounds < ROUNDS && System.nanoTime() - start < BUDGET_NANOS) {
                Table table = kind.of(SCHEMA);
                table.addAll(new long[CHUNKS * SCHEMA.slotsPerBlock() - random.nextInt(100)]);
                int closer = random.nextInt(4);
                List<Future<?>> tasks = new ArrayList<>();
                Throwable caller = null;
                ChunkIteration iteration = table.iterate();
                try {
                    for (int i = 0; i < iteration.count(); i++) {
                        Chunk chunk = iteration.chunk(i);
                        boolean closes = i == closer;
                        tasks.add(workers.submit(() -> {
                            if (closes) {
                                table.close();
                            } else {
                                work(chunk);
                            }
                        }));
                    }
                } catch (Throwable t) {
                    caller = t;
                } finally {
                    iteration.close();
                }
                String where = "round " + rounds + " (chunk " + closer + " closes), ";
                if (caller != null) {
                    seenByTheCaller++;
                    assertTheTables(caller, where + "the caller's hand-out");
                }
                for (Future<?> task : tasks) {
                    try {
                        task.get();
                    } catch (ExecutionException e) {
                        // A worker whose chunk access passed the chunk's check just before the
                        // close may meet the memory's own "already closed": an IllegalStateException too.
                        if (!(e.getCause() instanceof IllegalStateException)) {
                            throw new AssertionError(where + "a worker threw " + e.getCause(), e.getCause());
                        }
                    }
                }
                assertTrue(table.isClosed(), where + "closed");
                rounds++;
            }
        } finally {
            workers.shutdownNow();
        }
        System.out.printf("[CloseWhileIteratingTest] %s: %d rounds, the caller saw the close in %d%n", kind, rounds,
                seenByTheCaller);
        assertTrue(seenByTheCaller > 0, "the race was never run: the caller never met the close");
    }

    /** What a worker does with its chunk: typed access slot by slot, then a writable column view. */
    private static void work(Chunk chunk) {
        for (int round = 0; round < 4; round++) {
            for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                chunk.set(s, T, chunk.get(s, T) + 1f);
            }
            chunk.writableColumn(T);
        }
    }

    private static void assertTheTables(Throwable e, String where) {
        if (!(e instanceof IllegalStateException) || !e.getMessage().contains("table '" + SCHEMA.name() + "'")) {
            throw new AssertionError(where + " threw " + e + ", not the table's IllegalStateException", e);
        }
    }
}
