package dev.bulkdata.storage.inspector;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The page as a person sees it, in headless Chromium driven by Selenium, over a program that
 * makes frames on its own thread and polls the inspector once a frame. Needs Debian's
 * {@code chromium} and {@code chromium-driver} (or {@code -Dinspector.chromium=PATH} and
 * {@code -Dinspector.chromedriver=PATH}); without them every test here is skipped, saying so.
 * The screenshot is written to {@code target/inspector-screenshots/inspector.png}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InspectorBrowserTest {
    private static World world;
    private static Inspector inspector;
    private static Thread program;
    private static volatile boolean running = true;
    private static WebDriver browser;
    private static Path profile;
    /** Why the browser tests cannot run, or null. */
    private static String missing;

    @BeforeEach
    void needsTheBrowser() {
        assumeTrue(missing == null, missing);
    }

    @BeforeAll
    static void start() throws Exception {
        Path chromium = find("inspector.chromium", "chromium", "chromium-browser", "google-chrome");
        Path driver = find("inspector.chromedriver", "chromedriver");
        if (chromium == null || driver == null) {
            missing = "browser tests did not run: " + (chromium == null ? "no chromium" : "")
                    + (chromium == null && driver == null ? " and " : "") + (driver == null ? "no chromedriver" : "")
                    + " found (on the PATH, or at -Dinspector.chromium and -Dinspector.chromedriver);"
                    + " install Debian's chromium and chromium-driver to run them";
            System.out.println("[storage-inspector] " + missing);
            return;
        }
        world = new World(20_000);
        inspector = Inspector.builder().table(world.particles).table(world.emitters).table(world.heat)
                .sqlLimits(1_000, Duration.ofSeconds(10)).start();      // a loaded machine's first query is slow
        program = new Thread(() -> {
            while (running) {
                world.frame();
                inspector.poll();
                try {
                    Thread.sleep(16);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "program-frame-loop");
        program.start();

        profile = Files.createTempDirectory("inspector-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1400,2300");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        running = false;
        if (program != null) {
            program.join();
        }
        if (inspector != null) {
            inspector.close();
        }
        if (world != null) {
            world.close();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException ignored) {
                // Chromium may still hold a file of its profile for a moment; the directory is temporary
            }
        }
    }

    private static Path find(String property, String... names) {
        String given = System.getProperty(property);
        if (given != null && !given.isBlank()) {
            Path p = Path.of(given);
            return Files.isExecutable(p) ? p : null;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : names) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static WebDriverWait waitUpTo(int seconds) {
        return new WebDriverWait(browser, Duration.ofSeconds(seconds));
    }

    /**
     * Clicks the element {@code css} selects, finding it again if the page re-rendered it between
     * the find and the click (the tables list is redrawn at every poll).
     */
    private static void clickFresh(String css) {
        waitUpTo(10).ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(b -> {
            b.findElement(By.cssSelector(css)).click();
            return true;
        });
    }

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }

    @Test
    @Order(1)
    void withoutTheTokenThePageSaysWhatIsMissing() {
        browser.get("http://127.0.0.1:" + inspector.address().getPort() + "/");
        String message = text("#unauthorized");
        assertTrue(message.contains("needs its access token"), message);
        assertTrue(message.contains("?token="), message);
        assertTrue(browser.findElements(By.cssSelector("#tables")).isEmpty(), "no table is shown");
    }

    @Test
    @Order(2)
    void thePageListsTheTablesAndShowsTheChunkMapAndRecords() {
        browser.get(inspector.url().toString());
        waitUpTo(20).until(b -> b.findElements(By.cssSelector("#tables tbody tr")).size() == 3);
        List<String> names = browser.findElements(By.cssSelector("#tables tbody tr td:first-child")).stream()
                .map(WebElement::getText).toList();
        assertEquals(List.of("particles", "emitters", "heat"), names);
        assertEquals("BulkTable", text("#tables tbody tr:nth-child(1) td:nth-child(2)"));
        assertEquals("20,000", text("#tables tbody tr:nth-child(1) td:nth-child(3)"));

        waitUpTo(20).until(b -> b.findElements(By.cssSelector("#chunk-map .chunk")).size()
                == (int) (world.particles.handleLayout().slot(world.ring[world.ring.length - 1])
                / world.particleSchema.slotsPerBlock() + 1));
        waitUpTo(20).until(b -> !b.findElements(By.cssSelector("#chunk-map .chunk.changed")).isEmpty());
        waitUpTo(20).until(b -> b.findElements(By.cssSelector("#records tr")).size() > 10);
        assertTrue(text("#records-title").startsWith("Chunk 0"), text("#records-title"));
        assertTrue(text("#schema").contains("age"), text("#schema"));

        // the emitters' handle field: a link to the particle it names
        clickFresh("#tables tbody tr:nth-child(2)");
        waitUpTo(20).until(b -> !b.findElements(By.cssSelector("#records td a.handle[title^='record of particles']"))
                .isEmpty());
        WebElement link = browser.findElement(By.cssSelector("#records td a.handle[title^='record of particles']"));
        String label = link.getText();
        assertTrue(label.startsWith("particles#"), label);
        link.click();
        waitUpTo(20).until(b -> b.findElement(By.cssSelector("#record")).getText().contains(label));
        assertTrue(text("#record").contains("age"), text("#record"));
    }

    @Test
    @Order(3)
    void theChartsMoveAsFramesPass() throws Exception {
        waitUpTo(20).until(b -> b.findElements(By.cssSelector("#chart-live canvas")).size() == 1);
        long before = lastFrame();
        Thread.sleep(1_500);
        waitUpTo(20).until(b -> lastFrame() > before + 10);
        assertTrue(Boolean.TRUE.equals(((JavascriptExecutor) browser).executeScript(
                "return typeof uPlot === 'function'")), "the charting library loaded from the jar");
        assertFalse(browser.findElement(By.cssSelector("#chart-changed .u-legend")).getText().isEmpty());
    }

    private static long lastFrame() {
        String v = browser.findElement(By.cssSelector("#chart-live")).getDomAttribute("data-last-frame");
        return v == null ? -1 : Long.parseLong(v);
    }

    @Test
    @Order(4)
    void aSqlQueryShowsItsRowsAndTime() throws Exception {
        clickFresh("#tables tbody tr:nth-child(1)");
        runSql("SELECT (age // 5000) * 5000 AS age_from, count(*) AS particles, round(avg(x), 2) AS avg_x"
                + " FROM particles GROUP BY ALL ORDER BY age_from");
        waitUpTo(20).withMessage(() -> "SQL status '" + text("#sql-status") + "', error '" + text("#sql-error") + "'")
                .until(b -> text("#sql-status").contains(" ms"));
        assertTrue(text("#sql-status").matches("\\d+ rows? in [0-9.]+ ms"), text("#sql-status"));
        List<WebElement> header = browser.findElements(By.cssSelector("#sql-result th"));
        assertEquals(List.of("age_from", "particles", "avg_x"), header.stream().map(WebElement::getText).toList());
        long total = browser.findElements(By.cssSelector("#sql-result tr td:nth-child(2)")).stream()
                .mapToLong(e -> Long.parseLong(e.getText())).sum();
        assertEquals(20_000, total, "every particle counted once");
        Thread.sleep(1_000);                                     // the charts fill in a little more
        Path dir = Path.of(System.getProperty("inspector.screenshots", "target/inspector-screenshots"));
        Files.createDirectories(dir);
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path png = dir.resolve("inspector.png");
        Files.copy(shot.toPath(), png, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(Files.size(png) > 10_000, "a screenshot of the page");
    }

    @Test
    @Order(5)
    void aFileReadIsRefusedWithAClearMessage() {
        runSql("SELECT * FROM read_csv('/etc/passwd')");
        waitUpTo(20).until(b -> b.findElement(By.cssSelector("#sql-error")).isDisplayed());
        String error = text("#sql-error");
        assertTrue(error.contains("DuckDB") && error.toLowerCase().contains("disabled"), error);
        assertFalse(error.contains("root:"), error);
        assertTrue(browser.findElements(By.cssSelector("#sql-result tr")).isEmpty(), "no rows");
        runSql("COPY particles TO 'out.csv'");
        waitUpTo(20).until(b -> text("#sql-error").contains("queries only"));
    }

    private static void runSql(String query) {
        WebElement area = browser.findElement(By.cssSelector("#sql-text"));
        area.clear();
        area.sendKeys(query);
        ((JavascriptExecutor) browser).executeScript("document.getElementById('sql-status').textContent = ''");
        browser.findElement(By.cssSelector("#sql-run")).click();
    }
}
