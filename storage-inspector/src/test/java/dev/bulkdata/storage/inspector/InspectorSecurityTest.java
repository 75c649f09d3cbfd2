package dev.bulkdata.storage.inspector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every misuse the inspector must refuse, each sent as an attacker or a careless user would. */
class InspectorSecurityTest {
    private World world;
    private Inspector inspector;

    @BeforeEach
    void start() throws Exception {
        world = new World(2_000);
        inspector = Inspector.builder().table(world.particles).table(world.emitters).table(world.heat)
                .sqlLimits(1_000, Duration.ofMillis(300)).start();
    }

    @AfterEach
    void stop() {
        inspector.close();
        world.close();
    }

    private Http.Answer send(String method, String path, Map<String, String> headers, String body) throws Exception {
        return Owner.call(inspector, () -> Http.send(inspector, method, path, headers, body));
    }

    private Http.Answer sql(String query) throws Exception {
        return Owner.call(inspector, () -> Http.sql(inspector, query));
    }

    private Map<String, String> token() {
        return Map.of("Authorization", "Bearer " + inspector.token());
    }

    @Test
    void bindsTheLoopbackAddressByDefaultAndNamesItInTheUrl() {
        assertTrue(inspector.address().getAddress().isLoopbackAddress(), inspector.address()::toString);
        assertTrue(inspector.url().toString().startsWith("http://127.0.0.1:" + inspector.address().getPort()
                + "/?token=" + inspector.token()));
        assertTrue(inspector.token().matches("[0-9a-f]{48}"), inspector.token());
    }

    @Test
    void everyRequestWithoutTheTokenIsAnswered401() throws Exception {
        for (String path : List.of("/", "/assets/inspector.js", "/assets/uPlot.iife.min.js", "/api/tables",
                "/api/history", "/api/record?table=particles&handle=1")) {
            Http.Answer a = send("GET", path, Map.of(), null);
            assertEquals(401, a.status(), path);
            assertFalse(a.body().contains("particles\""), path + " leaks a table name: " + a.body());
        }
        assertTrue(send("GET", "/", Map.of(), null).body().contains("needs its access token"));
        assertEquals(401, send("POST", "/api/sql", Map.of(), "SELECT 1").status());
        Http.Answer malformed = send("GET", "/api/tables?x=%zz", Map.of(), null);   // the JDK's server refuses it
        assertEquals(400, malformed.status(), malformed::toString);
        assertFalse(malformed.body().contains("particles"), malformed.body());
    }

    @Test
    void aWrongTokenIsAnswered401InEveryPlaceATokenGoes() throws Exception {
        String wrong = inspector.token().substring(1) + "0";
        assertEquals(401, send("GET", "/api/tables", Map.of("Authorization", "Bearer " + wrong), null).status());
        assertEquals(401, send("GET", "/api/tables?token=" + wrong, Map.of(), null).status());
        assertEquals(401, send("GET", "/api/tables", Map.of("Cookie", "bulkdata-inspector-"
                + inspector.address().getPort() + "=" + wrong), null).status());
        assertEquals(401, send("GET", "/api/tables", Map.of("Authorization", "Bearer "), null).status());
    }

    @Test
    void theTokenInTheAddressSetsACookieThatLaterRequestsCarry() throws Exception {
        Http.Answer page = send("GET", "/?token=" + inspector.token(), Map.of(), null);
        assertEquals(200, page.status());
        String cookie = page.headers().get("set-cookie");
        assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
        String pair = cookie.substring(0, cookie.indexOf(';'));
        assertEquals(200, send("GET", "/api/tables", Map.of("Cookie", pair), null).status());
        assertTrue(page.headers().get("content-security-policy").contains("default-src 'none'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"evil.example:80", "evil.example", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example"})
    void aForeignHostHeaderIsAnswered403(String host) throws Exception {
        Map<String, String> h = new HashMap<>(token());
        h.put("Host", host);
        Http.Answer a = send("GET", "/api/tables", h, null);
        assertEquals(403, a.status(), a::toString);
        assertTrue(a.body().contains("Host"), a.body());
    }

    @Test
    void aMissingHostHeaderIsAnswered403AndLocalhostIsAccepted() throws Exception {
        Map<String, String> h = new HashMap<>(token());
        h.put("Host", null);
        // HTTP/1.1 requires Host; the JDK's server answers 400 itself or the inspector 403
        int status = send("GET", "/api/tables", h, null).status();
        assertTrue(status == 400 || status == 403, "status " + status);
        h.put("Host", "localhost:" + inspector.address().getPort());
        assertEquals(200, send("GET", "/api/tables", h, null).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example", "null", "https://127.0.0.1:1", "http://localhost.evil.example"})
    void aForeignOriginIsAnswered403(String origin) throws Exception {
        Map<String, String> h = new HashMap<>(token());
        h.put("Origin", origin);
        assertEquals(403, send("GET", "/api/tables", h, null).status());
        assertEquals(403, send("POST", "/api/sql", h, "SELECT 1").status());
        h.put("Origin", "http://127.0.0.1:" + inspector.address().getPort());
        assertEquals(200, send("GET", "/api/tables", h, null).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"PUT", "DELETE", "PATCH", "OPTIONS"})
    void theInspectorIsReadOnly(String method) throws Exception {
        assertEquals(405, send(method, "/api/tables", token(), method.equals("DELETE") ? null : "x").status());
        assertEquals(405, send(method, "/api/sql", token(), "SELECT 1").status());
        assertEquals(405, send("GET", "/api/sql", token(), null).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "COPY particles TO '/tmp/out.csv'",
        "SELECT 1; COPY (SELECT 1) TO '/tmp/x.csv'",
        "ATTACH '/tmp/other.db' AS other",
        "INSTALL httpfs",
        "LOAD httpfs",
        "PRAGMA database_list",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "CREATE TABLE t AS SELECT 1",
        "INSERT INTO particles VALUES (1)",
        "DELETE FROM particles",
        "DROP VIEW particles",
        "EXPORT DATABASE '/tmp/db'",
        "CALL pragma_version()",
        "SELECT 1; SELECT 2",
        "WITH x AS (SELECT 1) SELECT * FROM x; DROP VIEW particles",
        "/* a comment */ copy particles to '/tmp/x.csv'",
    })
    void statementsOtherThanOneQueryAreRefused(String statement) throws Exception {
        Http.Answer a = sql(statement);
        assertEquals(400, a.status(), a::toString);
        world.particles.add();                                   // no stream left open, the table writable
    }

    @Test
    void anOversizedQueryIsRefused() throws Exception {
        assertEquals(413, sql("SELECT " + "1 + ".repeat(20_000) + "1").status());       // 80 KB: not read
        Http.Answer longQuery = sql("SELECT " + "1+".repeat(9_000) + "1");           // 18,000 characters
        assertEquals(400, longQuery.status());
        assertTrue(longQuery.body().contains("at most 16384"), longQuery.body());
    }

    @Test
    void wordsInsideStringsAndQuotedNamesAreNotStatements() throws Exception {
        Http.Answer a = sql("SELECT 'COPY; SET x' AS \"load\", count(*) AS n FROM particles -- SET");
        assertEquals(200, a.status(), a::toString);
        assertEquals(List.of(List.of("COPY; SET x", 2_000.0)), JsonReader.object(a.body()).get("rows"));
    }

    @Test
    void aQueryCannotReadAFileOrChangeTheLockedConfiguration(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("secret.csv");
        Files.writeString(csv, "a,b\n1,2\n");
        for (String query : List.of("SELECT * FROM read_csv('" + csv + "')", "SELECT * FROM '" + csv + "'",
                "SELECT * FROM read_text('/etc/passwd')", "SELECT * FROM read_csv_auto('/etc/passwd')",
                "SELECT * FROM glob('/etc/*')", "SELECT * FROM read_parquet('" + dir.resolve("x.parquet") + "')")) {
            Http.Answer a = sql(query);
            assertEquals(400, a.status(), query + ": " + a);
            assertFalse(a.body().contains("root:"), a.body());
        }
        Http.Answer settings = sql("SELECT current_setting('enable_external_access') AS external,"
                + " current_setting('lock_configuration') AS locked");
        assertEquals(List.of(List.of(false, true)), JsonReader.object(settings.body()).get("rows"), settings::toString);
    }

    @Test
    void anAnswerHoldsAtMostTheRowLimit() throws Exception {
        Map<String, Object> r = JsonReader.object(sql("SELECT * FROM range(5000)").body());
        assertEquals(1_000, ((List<?>) r.get("rows")).size());
        assertEquals(true, r.get("truncated"));
        Map<String, Object> small = JsonReader.object(sql("SELECT * FROM range(10)").body());
        assertEquals(false, small.get("truncated"));
    }

    @Test
    void aQueryPastItsTimeLimitIsCancelled() throws Exception {
        long t0 = System.nanoTime();
        Http.Answer a = sql("SELECT count(*) FROM range(100000) a, range(100000) b WHERE (a.range * b.range) % 7 = 3");
        long took = System.nanoTime() - t0;
        assertEquals(400, a.status(), a::toString);
        assertTrue(a.body().contains("time limit of 300 ms"), a.body());
        assertTrue(took < TimeUnit.SECONDS.toNanos(5), "cancelled after " + took / 1_000_000 + " ms");
        world.particles.add();                                   // the table is writable again
        assertEquals(200, sql("SELECT 1").status(), "the console still works");
    }

    @Test
    void callsPastTheQueuesCapacityAreAnswered503AtOnce() throws Exception {
        inspector.poll();                                        // this thread owns the tables, and polls no more
        List<Future<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            calls.add(Owner.async(() -> Http.get(inspector, "/api/tables").status()));
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (calls.stream().filter(Future::isDone).count() < 100 - 64 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        List<Integer> early = calls.stream().filter(Future::isDone).map(f -> {
            try {
                return f.get();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).toList();
        assertTrue(early.size() >= 100 - 64, "answered without a poll: " + early);
        assertTrue(early.stream().allMatch(s -> s == 503), early::toString);
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (calls.stream().anyMatch(f -> !f.isDone()) && System.nanoTime() < end) {
            inspector.poll();
            Thread.sleep(1);
        }
        long ok = 0;
        for (Future<Integer> f : calls) {
            ok += f.get() == 200 ? 1 : 0;
        }
        assertTrue(ok >= 1 && ok <= 64, "the queued calls were answered by the polls: " + ok);
    }

    /**
     * A flood of requests from client threads on loopback, for a bounded time: each poll of
     * the program's frame loop spends at most its budget (plus the one call it started last)
     * on them, measured in the owner thread's CPU time, and the program keeps making frames.
     */
    @Test
    void aRequestFloodCostsTheProgramAtMostThePollBudgetPerFrame() throws Exception {
        inspector.close();
        Duration budget = Duration.ofMillis(3);
        inspector = Inspector.builder().table(world.particles).table(world.emitters).table(world.heat)
                .budget(budget).start();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger busy = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        String[] paths = {"/api/tables", "/api/chunks?table=particles", "/api/records?table=particles&chunk=1&limit=256",
            "/api/history", "/api/record?table=emitters&handle=1"};
        for (int i = 0; i < 200; i++) {                          // warm-up: the JIT compiles the calls' code
            String path = paths[i % paths.length];
            assertEquals(200, Owner.call(inspector, () -> Http.get(inspector, path)).status());
        }
        long floodEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            int client = c;
            clients.add(Owner.async(() -> {
                for (int i = 0; i < 2_000 && System.nanoTime() < floodEnd; i++) {
                    int status = Http.get(inspector, paths[(client + i) % paths.length]).status();
                    (status == 200 ? ok : status == 503 ? busy : other).incrementAndGet();
                }
                return null;
            }));
        }
        List<Long> cpuPerPoll = new ArrayList<>();
        List<Long> wallPerPoll = new ArrayList<>();
        int frames = 0;
        while (clients.stream().anyMatch(f -> !f.isDone())) {
            world.frame();
            long c0 = cpu.getCurrentThreadCpuTime();
            long w0 = System.nanoTime();
            inspector.poll();
            wallPerPoll.add(System.nanoTime() - w0);
            cpuPerPoll.add(cpu.getCurrentThreadCpuTime() - c0);
            frames++;
            Thread.sleep(2);                                     // the rest of the frame
        }
        for (Future<?> f : clients) {
            f.get();
        }
        long budgetNanos = budget.toNanos();
        long slack = TimeUnit.MILLISECONDS.toNanos(1);           // a call costlier than its estimate, the clock
        long worstCpu = cpuPerPoll.stream().mapToLong(Long::longValue).max().orElseThrow();
        List<Long> sorted = wallPerPoll.stream().sorted().toList();
        long medianWall = sorted.get(sorted.size() / 2);
        List<String> worst = new ArrayList<>();
        for (int i = 0; i < cpuPerPoll.size(); i++) {
            if (cpuPerPoll.get(i) > budgetNanos) {
                worst.add(i + ":" + cpuPerPoll.get(i) / 1000 + "us");
            }
        }
        assertTrue(ok.get() > 100, "answered " + ok + ", busy " + busy + ", other " + other);
        assertEquals(0, other.get(), "every answer is 200 or 503 (busy)");
        assertTrue(frames > 100, "the program kept making frames: " + frames);
        assertTrue(worstCpu <= budgetNanos + slack, "a poll cost " + worstCpu / 1e6 + " ms of CPU; budget "
                + budget.toMillis() + " ms; polls over budget (index:cost): " + worst);
        assertTrue(medianWall <= budgetNanos + slack, "median poll " + medianWall / 1e6 + " ms; budget "
                + budget.toMillis() + " ms");
        System.out.printf("flood: %d frames, %d answered, %d busy; poll CPU worst %.2f ms, wall median %.2f ms,"
                + " worst %.2f ms (budget %d ms)%n", frames, ok.get(), busy.get(), worstCpu / 1e6, medianWall / 1e6,
                sorted.getLast() / 1e6, budget.toMillis());
    }
}
