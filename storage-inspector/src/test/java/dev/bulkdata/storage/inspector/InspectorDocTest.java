package dev.bulkdata.storage.inspector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.PackedTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java blocks of docs/inspector.md, run here (each between {@code // doc:begin} and
 * {@code // doc:end}, which storage-java's DocSnippetsTest finds), and the check that the
 * guide shows each of them exactly. A page asks the running snippet for its tables, at the
 * address the snippet prints.
 */
class InspectorDocTest {
    private static final Path GUIDE = Path.of("../docs/inspector.md");
    private PrintStream console;
    private final CompletableFuture<URI> printed = new CompletableFuture<>();
    private int framesLeft = 30;
    private int frames;
    /** The page's request; the frame loop runs until it is answered (20 s at most). */
    private Future<Integer> page;

    @BeforeEach
    void watchTheConsole() {
        console = System.out;
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        System.setOut(new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                console.write(b);
                if (b == '\n') {
                    String text = line.toString(StandardCharsets.UTF_8).strip();
                    if (text.startsWith("inspect at ")) {
                        printed.complete(URI.create(text.substring("inspect at ".length())));
                    }
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        }, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreTheConsole() {
        System.setOut(console);
    }

    /** A page's request at the printed address, sent once the snippet has printed it. */
    private Future<Integer> page(String path) {
        return Owner.async(() -> {
            URI url = printed.get(20, TimeUnit.SECONDS);
            String token = url.getQuery().substring("token=".length());
            return Http.send(url.getPort(), "GET", path, Map.of("Authorization", "Bearer " + token), null).status();
        });
    }

    private boolean running() {
        return framesLeft-- > 0 || (!page.isDone() && frames < 4_000);
    }

    private void frame(BulkTable particles, PackedTable emitters) throws InterruptedException {
        particles.remove(particles.add());
        emitters.set(emitters.add(), emitters.schema().floatField("rate"), frames++);
        Thread.sleep(5);
    }

    @Test
    void aFrameLoopPollsOnceAFrame() throws Exception {
        try (World world = new World(100)) {
            BulkTable particles = world.particles;
            PackedTable emitters = world.emitters;
            page = page("/api/tables");
            // doc:begin docs/inspector.md
            try (Inspector inspector = Inspector.builder().table(particles).table(emitters).start()) {
                System.out.println("inspect at " + inspector.url());   // http://127.0.0.1:PORT/?token=...
                while (running()) {
                    frame(particles, emitters);
                    inspector.poll();                                  // answers the page, within its budget
                }
            }
            // doc:end
            assertEquals(200, page.get(20, TimeUnit.SECONDS));
            assertTrue(frames >= 30);
        }
    }

    @Test
    void aProgramWithoutAFrameLoopServesWhereItCanPause() throws Exception {
        try (World world = new World(100)) {
            BulkTable particles = world.particles;
            Duration howLong = Duration.ofSeconds(3);
            Future<Integer> page = page("/api/chunks?table=particles");
            // doc:begin docs/inspector.md
            try (Inspector inspector = Inspector.start(particles)) {
                System.out.println("inspect at " + inspector.url());
                inspector.serve(howLong);              // answers the page on this thread, e.g. for 10 minutes
            }
            // doc:end
            assertEquals(200, page.get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void theLimitsAreTheProgramsToChoose() throws Exception {
        try (World world = new World(100)) {
            BulkTable particles = world.particles;
            // doc:begin docs/inspector.md
            Inspector inspector = Inspector.builder()
                    .table(particles)
                    .budget(Duration.ofMillis(1))               // per poll; 2 ms unless set
                    .sqlLimits(500, Duration.ofMillis(200))     // rows and time per query; 1,000 and 1 s unless set
                    .start();
            // doc:end
            try (inspector) {
                Http.Answer a = Owner.call(inspector, () -> Http.get(inspector, "/api/tables"));
                assertTrue(a.body().contains("\"budgetMillis\":1,") && a.body().contains("\"maxRows\":500")
                        && a.body().contains("\"timeLimitMillis\":200"), a.body());
            }
        }
    }

    @Test
    void theGuideShowsEverySnippetOfThisModuleExactly() throws IOException {
        String guide = Files.readString(GUIDE);
        List<String> snippets = new ArrayList<>();
        StringBuilder current = null;
        int indent = 0;
        for (String line : Files.readAllLines(Path.of("src/test/java/dev/bulkdata/storage/inspector/InspectorDocTest.java"))) {
            String s = line.strip();
            if (s.equals("// doc:begin docs/inspector.md")) {
                current = new StringBuilder();
                indent = line.indexOf('/');
            } else if (s.equals("// doc:end") && current != null) {
                snippets.add(current.toString());
                current = null;
            } else if (current != null) {
                current.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
            }
        }
        assertEquals(3, snippets.size(), snippets::toString);
        for (String snippet : snippets) {
            assertTrue(guide.contains("```java\n" + snippet + "```"), "docs/inspector.md must show:\n" + snippet);
        }
        assertFalse(guide.contains("../shared"), "the guide stands alone");
    }
}
