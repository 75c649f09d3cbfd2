package dev.bulkdata.storage.inspector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bulkdata.storage.inspector.Http.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JSON API as a page (or a script) sees it, over HTTP, against a running {@link World}. */
class InspectorApiTest {
    private World world;
    private Inspector inspector;

    @BeforeEach
    void start() throws Exception {
        world = new World(2_000);
        inspector = Inspector.builder().table(world.particles).table(world.emitters).table(world.heat).start();
    }

    @AfterEach
    void stop() {
        inspector.close();
        world.close();
    }

    private Map<String, Object> get(String path) throws Exception {
        Http.Answer a = Owner.call(inspector, () -> Http.get(inspector, path));
        assertEquals(200, a.status(), a::toString);
        assertTrue(a.headers().get("content-type").startsWith("application/json"), a.headers()::toString);
        return JsonReader.object(a.body());
    }

    private Http.Answer raw(String path) throws Exception {
        return Owner.call(inspector, () -> Http.get(inspector, path));
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object o, Object... path) {
        Object v = o;
        for (Object p : path) {
            v = p instanceof String k ? ((Map<String, Object>) v).get(k) : ((List<Object>) v).get((Integer) p);
        }
        return (T) v;
    }

    @Test
    void tablesListEveryTableWithKindSchemaStatsAndHandleLayout() throws Exception {
        world.particles.remove(world.ring[5]);                     // one hole
        Map<String, Object> t = get("/api/tables");
        List<Object> tables = at(t, "tables");
        assertEquals(3, tables.size());
        Map<String, Object> p = at(tables, 0);
        assertEquals("particles", p.get("name"));
        assertEquals("BulkTable", p.get("kind"));
        assertEquals(1999.0, p.get("live"));
        assertEquals(1.0, p.get("holes"));
        assertEquals(0.0, p.get("retired"));
        assertEquals((double) world.particles.stats().blocks(), p.get("blocks"));
        assertEquals((double) world.particles.stats().nativeBytes(), p.get("bytes"));
        assertEquals((double) world.particles.handleLayout().tag(world.ring[0]), p.get("tag"));
        assertEquals(20.0, at(p, "handleLayout", "generationBits"));
        assertEquals(32.0, at(p, "handleLayout", "slotBits"));
        assertEquals("SOA", at(p, "schema", "layout"));
        assertEquals(20.0, at(p, "schema", "recordBytes"));
        assertEquals(List.of("x", "y", "vx", "vy", "age"),
                ((List<Map<String, Object>>) (List<?>) at(p, "schema", "fields")).stream().map(f -> f.get("name")).toList());
        assertEquals("INT", at(p, "schema", "fields", 4, "type"));
        assertEquals("handle", p.get("sqlHandleColumn"));

        Map<String, Object> e = at(tables, 1);
        assertEquals("PackedTable", e.get("kind"));
        assertEquals(3.0, e.get("live"));
        assertEquals("HANDLE", at(e, "schema", "fields", 1, "type"));
        assertEquals("particles", at(e, "schema", "fields", 1, "target"));

        Map<String, Object> h = at(tables, 2);
        assertEquals("ComponentTable", h.get("kind"));
        assertEquals("particles", h.get("entities"));
        assertEquals(200.0, h.get("live"));
        assertEquals(true, at(t, "sql", "available"));
    }

    @Test
    void theChunkMapMarksOnlyTheChunksChangedSinceTheLastView() throws Exception {
        int perChunk = world.particleSchema.slotsPerBlock();
        Map<String, Object> first = get("/api/chunks?table=particles");
        List<List<Double>> chunks = at(first, "chunks");
        long lastSlot = world.particles.handleLayout().slot(world.ring[1_999]);
        assertEquals(lastSlot / perChunk + 1, chunks.size());
        assertEquals((double) perChunk, chunks.get(1).get(0));            // a full chunk
        double total = chunks.stream().mapToDouble(c -> c.get(0)).sum();
        assertEquals(2_000.0, total, "every live record is in a chunk");
        assertTrue(chunks.stream().allMatch(c -> c.get(1) == 0.0), "the first view marks nothing changed");

        int version = ((Double) first.get("version")).intValue();
        world.particles.set(world.ring[perChunk * 2 + 3], world.x, 42f);   // a write in chunk 2 only
        assertEquals(2, world.particles.handleLayout().slot(world.ring[perChunk * 2 + 3]) / perChunk);
        Map<String, Object> second = get("/api/chunks?table=particles&since=" + version);
        List<List<Double>> after = at(second, "chunks");
        for (int i = 0; i < after.size(); i++) {
            assertEquals(i == 2 ? 1.0 : 0.0, after.get(i).get(1), "chunk " + i);
        }
        int version2 = ((Double) second.get("version")).intValue();
        world.particles.remove(world.ring[0]);                           // structure of chunk 0
        List<List<Double>> third = at(get("/api/chunks?table=particles&since=" + version2), "chunks");
        for (int i = 0; i < third.size(); i++) {
            assertEquals(i == 0 ? 1.0 : 0.0, third.get(i).get(1), "chunk " + i);
        }
        assertEquals(chunks.get(0).get(0) - 1, third.get(0).get(0));

        List<List<Double>> heat = at(get("/api/chunks?table=heat"), "chunks");
        assertEquals(200.0, heat.get(0).get(0));
        assertEquals(-1.0, heat.get(0).get(1), "a component table does not tell what changed");
    }

    @Test
    void recordsOfAChunkAreDecodedPerFieldWithHandleFieldsAsLinks() throws Exception {
        world.particles.remove(world.ring[1]);
        Map<String, Object> r = get("/api/records?table=particles&chunk=0&from=0&limit=3");
        List<Map<String, Object>> records = at(r, "records");
        assertEquals(3, records.size());
        double first = world.particles.handleLayout().slot(world.ring[0]);
        assertEquals(List.of(first, first + 2, first + 3), records.stream().map(m -> m.get("slot")).toList(),
                "the hole is skipped");
        assertEquals(Long.toString(world.ring[2]), records.get(1).get("handle"));
        assertEquals(world.particles.format(world.ring[2]), records.get(1).get("label"));
        assertEquals(List.of(2.0, 0.0, 1.0, 0.0, 2.0), records.get(1).get("values"));
        assertEquals(first + 4, r.get("next"));

        Map<String, Object> e = get("/api/records?table=emitters&chunk=0");
        Map<String, Object> link = at(e, "records", 0, "values", 1);
        assertEquals(Long.toString(world.ring[1999]), link.get("handle"));
        assertEquals("particles", link.get("target"));
        assertEquals(world.particles.format(world.ring[1999]), link.get("label"));
        assertEquals(true, link.get("live"));
        world.particles.remove(world.ring[1999]);
        Map<String, Object> stale = at(get("/api/records?table=emitters&chunk=0"), "records", 0, "values", 1);
        assertEquals(false, stale.get("live"));

        Map<String, Object> heat = get("/api/records?table=heat&chunk=0&limit=2");
        assertEquals(Long.toString(world.ring[10]), at(heat, "records", 1, "handle"));
        assertEquals(310.0, at(heat, "records", 1, "values", 0));
    }

    @Test
    void aRecordByHandleAsNumberOrLabelAndAStaleOneWithItsReason() throws Exception {
        long h = world.ring[7];
        Map<String, Object> byNumber = get("/api/record?table=particles&handle=" + h);
        assertEquals(true, byNumber.get("live"));
        assertEquals(7.0, at(byNumber, "values", 4));
        Map<String, Object> byLabel = get("/api/record?table=particles&handle=" + q(world.particles.format(h)));
        assertEquals(byNumber.get("values"), byLabel.get("values"));

        world.particles.remove(h);
        Map<String, Object> stale = get("/api/record?table=particles&handle=" + h);
        assertEquals(false, stale.get("live"));
        assertTrue(((String) stale.get("reason")).contains("stale"), stale::toString);

        Map<String, Object> heat = get("/api/record?table=heat&handle=" + world.ring[20]);
        assertEquals(true, heat.get("live"));
        assertEquals(320.0, at(heat, "values", 0));
        Map<String, Object> none = get("/api/record?table=heat&handle=" + world.ring[21]);
        assertEquals(false, none.get("live"));
    }

    @Test
    void historyHasOneSamplePerPollWithLiveBytesAndChangedChunks() throws Exception {
        for (int i = 0; i < 5; i++) {
            world.frame();
            inspector.poll();
        }
        Map<String, Object> h = get("/api/history");
        List<Double> frames = at(h, "frames");
        assertTrue(frames.size() >= 6, frames::toString);
        for (int i = 1; i < frames.size(); i++) {
            assertEquals(frames.get(i - 1) + 1, frames.get(i));
        }
        Map<String, Object> p = at(h, "tables", 0);
        assertEquals("particles", p.get("name"));
        assertEquals(2_000.0, ((List<?>) p.get("live")).getLast());
        assertEquals((double) world.particles.stats().nativeBytes(), ((List<?>) p.get("bytes")).getLast());
        List<Double> changed = at(p, "changed");
        assertNull(changed.get(0), "the first sample has nothing to compare with");
        assertTrue(changed.subList(1, 5).stream().allMatch(c -> c >= 1.0 && c <= 2.0), changed::toString);
        assertNull(((List<?>) at(h, "tables", 2, "changed")).getLast(), "a component table does not tell");

        double last = frames.getLast();
        inspector.poll();
        List<Double> more = at(get("/api/history?after=" + (long) last), "frames");
        assertEquals(last + 1, more.getFirst(), "after= gives only the newer samples");
    }

    @Test
    void sqlQueriesTheLiveTablesWithHandlesAndAnswersWithTheQueryTime() throws Exception {
        world.particles.remove(world.ring[3]);
        Http.Answer a = Owner.call(inspector, () -> Http.sql(inspector,
                "SELECT count(*) AS n, sum(age) AS ages FROM particles"));
        assertEquals(200, a.status(), a::toString);
        Map<String, Object> r = JsonReader.object(a.body());
        long ages = 0;
        for (int i = 0; i < 2_000; i++) {
            ages += i == 3 ? 0 : i;
        }
        assertEquals(List.of(List.of(1999.0, (double) ages)), r.get("rows"));
        assertEquals("n", at(r, "columns", 0, "name"));
        assertTrue((Double) r.get("millis") > 0);

        Map<String, Object> join = JsonReader.object(Owner.call(inspector, () -> Http.sql(inspector,
                "SELECT e.rate, p.age FROM emitters e JOIN particles p ON e.newest = p.handle ORDER BY e.rate")).body());
        assertEquals(List.of(List.of(10.0, 1999.0), List.of(20.0, 1998.0), List.of(30.0, 1997.0)), join.get("rows"));
        world.particles.add();                                   // writable again: every stream was released
    }

    @Test
    void badParametersAreAnswered400WithAMessage() throws Exception {
        assertEquals(400, raw("/api/chunks?table=nope").status());
        assertTrue(raw("/api/chunks?table=nope").body().contains("no attached table is named 'nope'"));
        assertEquals(400, raw("/api/records?table=particles&chunk=99").status());
        assertEquals(400, raw("/api/records?table=particles").status());
        assertEquals(400, raw("/api/records?table=particles&chunk=0&limit=100000").status());
        assertEquals(400, raw("/api/record?table=particles&handle=abc").status());
        assertEquals(400, raw("/api/record?table=particles&handle=" + q("emitters#1@0")).status());
        assertEquals(404, raw("/api/nothing").status());
        assertEquals(400, Http.get(inspector, "/api/tables?table=%zz").status());   // refused before the queue
        assertEquals(404, Http.get(inspector, "/nothing.html").status());     // a file: answered without a poll
    }

    @Test
    void callsAreAnsweredOnlyWhenTheOwnerPolls() throws Exception {
        inspector.poll();                                  // this thread owns the tables
        AtomicReference<String> answeredOn = new AtomicReference<>();
        Future<?> call = Owner.async(() -> {
            Http.Answer a = Http.get(inspector, "/api/tables");
            answeredOn.set(a.status() + "");
            return null;
        });
        Thread.sleep(300);
        assertFalse(call.isDone(), "answered without a poll");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!call.isDone() && System.nanoTime() < end) {
            inspector.poll();
            Thread.sleep(1);
        }
        call.get();
        assertEquals("200", answeredOn.get());

        Thread other = new Thread(() -> {
            IllegalStateException e = assertThrows(IllegalStateException.class, inspector::poll);
            answeredOn.set(e.getMessage());
        });
        other.start();
        other.join();
        assertTrue(answeredOn.get().contains("owner thread"), answeredOn::get);
    }

    @Test
    void serveAnswersAProgramWithoutAFrameLoop() throws Exception {
        Future<?> request = Owner.async(() -> Http.get(inspector, "/api/history"));
        long t0 = System.nanoTime();
        int answered = inspector.serve(Duration.ofMillis(700));
        long took = System.nanoTime() - t0;
        assertTrue(request.isDone() || waitDone(request), "serve answered the call");
        assertEquals(1, answered);
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(700), "serve returns when its time has passed");
        assertTrue(inspector.frames() >= 5, "a sample every 0.1 s: " + inspector.frames());
    }

    private static boolean waitDone(Future<?> f) throws Exception {
        f.get(5, TimeUnit.SECONDS);
        return true;
    }

    @Test
    void badUseOfTheApiThrowsClearExceptions() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().start());
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().table(world.particles).table(world.particles));
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().port(70_000));
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().budget(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().sqlLimits(0, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> Inspector.builder().sqlLimits(10, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Inspector.start(world.particles, "not a table"));
        assertThrows(IllegalArgumentException.class, () -> inspector.poll(Duration.ofMillis(-1)));
        try (World twin = new World(10)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Inspector.start(world.particles, twin.particles));
            assertTrue(e.getMessage().contains("'particles'"), e::getMessage);
        }
        inspector.close();
        assertThrows(IllegalStateException.class, inspector::poll);
    }
}
