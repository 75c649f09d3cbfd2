package dev.bulkdata.benchmarks.report;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The figures of README and the guides are the committed run's: every inline region
 * ({@link Figures}) holds what the report renders from {@code benchmarks/results/jmh.json}.
 */
class DocFiguresTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** A benchmark figure: a number with ns, µs, us or ms, or a ratio such as 2.4x (also as ranges, 1.4-1.9x). */
    private static final java.util.regex.Pattern FIGURE = java.util.regex.Pattern.compile(
            "\\b\\d+(\\.\\d+)?(-\\d+(\\.\\d+)?)? ?(ns|µs|us|ms)\\b|\\b\\d+(\\.\\d+)?(-\\d+(\\.\\d+)?)?x\\b");

    @Test
    void everyFigureRegionOfTheDocs_holdsTheCommittedRunsFigure() throws IOException {
        List<Report.Result> results = Report.parse(Files.readString(Path.of("results/jmh.json")));
        int regions = 0;
        for (Path file : Figures.documents(ROOT)) {
            String text = Files.readString(file);
            Matcher m = Figures.REGION.matcher(text);
            while (m.find()) {
                regions++;
                assertEquals(Figures.render(m.group(1), results), m.group(2), ROOT.relativize(file) + ": the figure"
                        + " of '" + m.group(1) + "' is not the committed run's; regenerate it with the report"
                        + " (docs/benchmarks.md)");
            }
        }
        assertTrue(regions >= 10, "the guides' figures are in regions: " + regions);
    }

    /**
     * A benchmark figure is a number with {@code ns}, {@code µs}, {@code us} or {@code ms}, or a
     * ratio such as {@code 2.4x}; outside the report's regions, code blocks and inline code, the
     * README and the guides quote none (a setting spells its unit out: "every 100 milliseconds").
     */
    @Test
    void noGuideQuotesABenchmarkFigureOutsideARegion() throws IOException {
        java.util.regex.Pattern figure = FIGURE;
        List<String> found = new java.util.ArrayList<>();
        for (Path file : Figures.documents(ROOT)) {
            String text = Files.readString(file)
                    .replaceAll("(?s)<!-- benchmarks:begin -->.*?<!-- benchmarks:end -->", "")
                    .replaceAll("<!-- fig [^>]*?-->.*?<!-- fig end -->", "")
                    .replaceAll("(?s)```.*?```", "")
                    .replaceAll("`[^`\\n]*`", "");
            String[] lines = text.split("\\n");
            for (String line : lines) {
                if (figure.matcher(line).find()) {
                    found.add(ROOT.relativize(file) + ": " + line.strip());
                }
            }
        }
        assertEquals(List.of(), found, "measured figures belong in a region the report writes (docs/benchmarks.md)");
    }

    /** CHANGELOG and the comments of the published sources (Javadoc, KDoc) quote no benchmark figure either. */
    @Test
    void theChangelogAndTheSourcesCommentsQuoteNoBenchmarkFigure() throws IOException {
        List<Path> files = new java.util.ArrayList<>(List.of(ROOT.resolve("CHANGELOG.md")));
        for (String module : List.of("storage-java", "storage-kotlin", "storage-vector", "storage-arrow", "storage-inspector")) {
            try (java.util.stream.Stream<Path> tree = Files.walk(ROOT.resolve(module).resolve("src/main"))) {
                tree.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".kt")).forEach(files::add);
            }
        }
        List<String> found = new java.util.ArrayList<>();
        for (Path file : files) {
            boolean source = !file.toString().endsWith(".md");
            for (String line : Files.readString(file).replaceAll("`[^`\\n]*`", "").split("\\n")) {
                String t = line.strip();
                boolean comment = t.startsWith("*") || t.startsWith("//") || t.startsWith("/*");
                if ((!source || comment) && FIGURE.matcher(t).find()) {
                    found.add(ROOT.relativize(file) + ": " + t);
                }
            }
        }
        assertEquals(List.of(), found, "measured figures belong in results.md or benchmarks/NOTES.md");
    }

    @Test
    void aFigure_isRenderedFromTheRun_andAMissingBenchmarkSaysSo() {
        Report.Result a = new Report.Result("dev.bulkdata.benchmarks.A.x", Map.of("n", "10"), 12.5, 1.0, "us/op", 0,
                new double[] {12.0, 13.0});
        Report.Result b = new Report.Result("dev.bulkdata.benchmarks.B.y", Map.of("n", "10"), 25.0, 0.0, "us/op", 0,
                new double[] {25.0});
        List<Report.Result> run = List.of(a, b);
        assertEquals("12.5 µs", Figures.render("time A.x n=10", run));
        assertEquals("12.0 µs to 13.0 µs", Figures.render("range A.x", run));
        assertEquals("1.3 µs", Figures.render("each A.x", run));
        assertEquals("25.0 µs", Figures.render("range B.y", run));
        assertEquals("0.50x ± 0.04", Figures.render("ratio A.x B.y n=10", run));
        assertEquals(Figures.MISSING, Figures.render("time A.x n=11", run));
        assertEquals(Figures.MISSING, Figures.render("ratio A.x C.z", run));
        assertEquals("a <!-- fig time A.x -->12.5 µs<!-- fig end --> b",
                Figures.splice("a <!-- fig time A.x -->old<!-- fig end --> b", run));
        assertThrows(IllegalArgumentException.class, () -> Figures.render("speed A.x", run));
        assertThrows(IllegalArgumentException.class, () -> Figures.render("ratio A.x", run));
        assertThrows(IllegalArgumentException.class, () -> Figures.render("time A.x n", run));
    }
}
