package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ParticleSqlTest {
    @Test
    void inspectPrintsTheAddressWithItsTokenAndAnswersThePageFromItsFrames() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SampleOutput out = SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        CompletableFuture<URI> started = new CompletableFuture<>();
        CompletableFuture<ParticleSql.Inspected> run = CompletableFuture.supplyAsync(() ->
                ParticleSql.inspect(ParticleSql.Params.SMALL, SEED, Duration.ofSeconds(3), out, started::complete));
        URI url = started.get(60, TimeUnit.SECONDS);
        String token = url.getQuery().substring("token=".length());
        URI tables = URI.create("http://127.0.0.1:" + url.getPort() + "/api/tables");
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(tables)
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.body());
            assertTrue(answer.body().contains("\"name\":\"particles\"") && answer.body().contains("\"name\":\"emitters\""),
                    answer.body());
            assertEquals(401, client.send(HttpRequest.newBuilder(tables).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        ParticleSql.Inspected o = run.get(60, TimeUnit.SECONDS);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("open http://127.0.0.1:" + url.getPort() + "/?token=" + token), text);
        assertTrue(o.frames() > 10, text);
        assertTrue(o.answered() >= 1, text);
        assertEquals(url, o.url());
    }

    static final long SEED = Long.getLong("bulkdata.seed", 30L);

    static {
        System.out.println("ParticleSqlTest: seed " + SEED + " (-Dbulkdata.seed=" + SEED + " to repeat)");
    }

    private static ParticleSql.Outcome run(Path dir, ByteArrayOutputStream bytes) {
        return ParticleSql.run(ParticleSql.Params.SMALL, SEED, dir,
                SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void everySqlAnswerEqualsJava_andTheChangedChunksGoToParquet(@TempDir Path dir) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ParticleSql.Outcome o = run(dir, bytes);
        String text = bytes.toString(StandardCharsets.UTF_8) + " (seed " + SEED + ")";
        // 30 frames, SQL every 10: 3 rounds of 2 statements, then the Parquet file read back.
        assertEquals(30, o.frames(), text);
        assertEquals(7, o.queries(), text);
        // Each round: one row per region (16, every region holds debris) and one per age bucket
        // (10 at most; the ages of 20,000 particles living 200 frames fill all 10).
        assertEquals(3 * (16 + 10) + 1, o.rowsCompared(), text);
        assertEquals(20_000, o.live(), text);
        assertTrue(Files.isRegularFile(dir.resolve("changed.parquet")), text);
        // The last 10 frames changed the chunks of the sparks spawned since the start: slots 1
        // to 3,000 (slot 0 never holds a record), all still in the air (a spark flies at least
        // 37 frames), the last 1,000 of them spawned into the holes of faded debris. So 6 of the
        // 40 chunks, full but for slot 0.
        assertEquals(40, o.chunks(), text);
        assertEquals(6, o.recordedChunks(), text);
        assertEquals(6 * 512 - 1, o.recordedRows(), text);
        assertTrue(text.contains("each equal to Java's"), text);
        assertTrue(text.contains("read back equal to Java's"), text);
    }

    @Test
    void run_isReproducible_andItsChecksumDependsOnTheSeed(@TempDir Path dir) throws Exception {
        ParticleSql.Outcome a = run(dir, new ByteArrayOutputStream());
        Files.delete(dir.resolve("changed.parquet"));
        assertEquals(a, run(dir, new ByteArrayOutputStream()));
        Files.delete(dir.resolve("changed.parquet"));
        ParticleSql.Outcome other = ParticleSql.run(ParticleSql.Params.SMALL, SEED + 1, dir,
                SampleOutput.plain(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        assertNotEquals(a.checksum(), other.checksum(), "seeds " + SEED + " and " + (SEED + 1));
    }

    @Test
    void aDifferenceBetweenSqlAndJava_failsLoudly() {
        List<List<Object>> java = List.of(List.of(0L, 1_250L, 3L, 2.5f), List.of(1L, 1_249L, 0L, 0f));
        assertDoesNotThrow(() -> ParticleSql.check("counts", List.of(List.of(0L, 1_250L, 3L, 2.5f),
                List.of(1L, 1_249L, 0L, 0f)), java));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ParticleSql.check("counts",
                List.of(List.of(0L, 1_250L, 3L, 2.5f), List.of(1L, 1_248L, 0L, 0f)), java));
        assertTrue(e.getMessage().contains("SQL and Java differ on counts"), e.getMessage());
        assertTrue(e.getMessage().contains("1248") && e.getMessage().contains("1249"), e.getMessage());
        // A float that differs in its last bit is a difference, as is a missing row.
        assertThrows(IllegalStateException.class, () -> ParticleSql.check("highest",
                List.of(List.of(0L, 1_250L, 3L, Math.nextUp(2.5f)), List.of(1L, 1_249L, 0L, 0f)), java));
        assertThrows(IllegalStateException.class, () -> ParticleSql.check("regions",
                List.of(List.of(0L, 1_250L, 3L, 2.5f)), java));
    }
}
