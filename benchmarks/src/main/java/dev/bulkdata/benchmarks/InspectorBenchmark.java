package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.inspector.Inspector;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

/**
 * What the inspector costs a frame: {@link FrameBenchmark}'s frame on 100,000 records (5 %
 * replaced, then an update pass) with no inspector ({@code none}), with an inspector attached
 * and polled once a frame but no page open ({@code idle}), and while a client thread asks what
 * the page asks every 100 ms: the tables, the new history samples and the chunk map
 * ({@code page}). The poll keeps its default budget (2 ms); the secondary results count the
 * polls, those that took longer than the budget in wall time (a poll the machine paused counts
 * too), and those that took longer in the thread's CPU time (two reads of the thread's CPU
 * clock per frame, in {@code idle} and {@code page} alike).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow"})
public class InspectorBenchmark {
    static final int N = FrameBenchmark.N;

    /** The program: a table, its frame's cycle, and the inspector as {@link #mode} says. */
    @State(Scope.Benchmark)
    public static class Program {
        @Param({"none", "idle", "page"})
        public String mode;

        BulkTable table;
        final FloatField t = Subjects.SOA.floatField("t");
        final long[] handles = new long[N];
        final FrameBenchmark.Cycle cycle = new FrameBenchmark.Cycle();
        Inspector inspector;
        Thread page;
        volatile boolean running;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            table = Subjects.table(Subjects.SOA, N, handles);
            if (!mode.equals("none")) {
                inspector = Inspector.builder().table(table).start();
            }
            if (mode.equals("page")) {
                running = true;
                page = new Thread(this::refresh, "page");
                page.setDaemon(true);
                page.start();
            }
        }

        /** The page's refresh, every 100 ms, until the trial ends. */
        private void refresh() {
            String base = "http://127.0.0.1:" + inspector.address().getPort();
            try (HttpClient client = HttpClient.newHttpClient()) {
                long after = -1;
                while (running) {
                    long t0 = System.nanoTime();
                    for (String path : new String[] {"/api/tables", "/api/history?after=" + after,
                        "/api/chunks?table=" + table.name()}) {
                        client.send(HttpRequest.newBuilder(URI.create(base + path))
                                .header("Authorization", "Bearer " + inspector.token()).build(),
                                HttpResponse.BodyHandlers.discarding());
                    }
                    after = inspector.frames() - 1;
                    long sleep = TimeUnit.MILLISECONDS.toNanos(100) - (System.nanoTime() - t0);
                    if (sleep > 0) {
                        TimeUnit.NANOSECONDS.sleep(sleep);
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the trial ended
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            running = false;
            if (inspector != null) {
                inspector.close();
            }
            if (page != null) {
                page.join(5_000);
            }
            table.close();
        }
    }

    /** Polls, and polls longer than the budget, per iteration (JMH's secondary results). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Polls {
        static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
        static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
        public long polls;
        public long pollsOverBudget;
        public long pollsOverBudgetCpu;

        @Setup(Level.Iteration)
        public void reset() {
            polls = 0;
            pollsOverBudget = 0;
            pollsOverBudgetCpu = 0;
        }
    }

    /** One frame, then the inspector's poll if there is one. */
    @Benchmark
    public int frame(Program p, Polls counted) {
        int from = p.cycle.next();
        int[] order = p.cycle.order;
        for (int k = from; k < from + FrameBenchmark.TURNOVER; k++) {
            p.table.remove(p.handles[order[k]]);
        }
        for (int k = from; k < from + FrameBenchmark.TURNOVER; k++) {
            int i = order[k];
            long h = p.table.add();
            p.table.set(h, p.t, Subjects.t(i));
            p.handles[i] = h;
        }
        try (ChunkIteration chunks = p.table.iterate()) {
            for (int i = 0, n = chunks.count(); i < n; i++) {
                UpdateBenchmark.updateColumns(chunks.chunk(i), Subjects.SOA);
            }
        }
        if (p.inspector == null) {
            return p.table.size();
        }
        long c0 = Polls.CPU.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        int answered = p.inspector.poll();
        long wall = System.nanoTime() - t0;
        long cpu = Polls.CPU.getCurrentThreadCpuTime() - c0;
        counted.polls++;
        if (wall > Polls.BUDGET_NANOS) {
            counted.pollsOverBudget++;
        }
        if (cpu > Polls.BUDGET_NANOS) {
            counted.pollsOverBudgetCpu++;
        }
        return answered;
    }
}
