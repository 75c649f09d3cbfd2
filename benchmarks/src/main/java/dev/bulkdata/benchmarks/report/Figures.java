package dev.bulkdata.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The measured figures in README and the guides, each written by the report from the committed
 * run into an inline region: {@code <!-- fig time ChangeVersionBenchmark.filteredPass n=1000000 -->12.1
 * µs<!-- fig end -->}. The region's spec names what to show; the report replaces the text between
 * the markers, so a guide's figure is always the committed run's, and {@code DocFiguresTest}
 * fails the build when one is not.
 *
 * <p>Specs ({@code k=v} pairs select parameters, applied to every benchmark named):
 * <ul>
 * <li>{@code time B} — B's score as a time ({@code 12.1 µs});
 * <li>{@code each B} — B's score over its parameter {@code n}: the time per record ({@code 9.4 ns});
 * <li>{@code ratio A B} — A's time over B's, with its error ({@code 59.9x ± 19.3});
 * <li>{@code range B} — the lowest and highest fork means of B ({@code 60.1 ms to 210 ms}; the
 *     score alone with one fork).
 * </ul>
 * A benchmark the run does not hold renders as {@code (not in this run)}.
 */
final class Figures {
    static final Pattern REGION = Pattern.compile("<!-- fig ([^>]*?) -->(.*?)<!-- fig end -->");
    static final String MISSING = "(not in this run)";

    private Figures() {
    }

    /** {@return the text of the region whose spec is {@code spec}, from {@code results}} */
    static String render(String spec, List<Report.Result> results) {
        String[] words = spec.trim().split("\\s+");
        int names = switch (words[0]) {
            case "time", "each", "range" -> 1;
            case "ratio" -> 2;
            default -> throw new IllegalArgumentException("figure '" + spec + "': unknown kind " + words[0]
                    + " (time, each, ratio, range)");
        };
        if (words.length < 1 + names) {
            throw new IllegalArgumentException("figure '" + spec + "': " + words[0] + " names " + names
                    + " benchmark(s)");
        }
        String[] params = Arrays.stream(words, 1 + names, words.length)
                .flatMap(kv -> {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("figure '" + spec + "': '" + kv + "' is not k=v");
                    }
                    return Stream.of(kv.substring(0, eq), kv.substring(eq + 1));
                }).toArray(String[]::new);
        Report.Result first = find(words[1], params, results);
        if (first == null) {
            return MISSING;
        }
        return switch (words[0]) {
            case "time" -> Report.time(first);
            case "each" -> {
                String n = first.params().get("n");
                if (n == null) {
                    throw new IllegalArgumentException("figure '" + spec + "': " + first.benchmark() + " has no n");
                }
                yield Report.time(Report.nanos(first) / Long.parseLong(n));
            }
            case "range" -> range(first);
            default -> {
                Report.Result second = find(words[2], params, results);
                if (second == null) {
                    yield MISSING;
                }
                Report.Ratio r = Report.Ratio.of(first, second);
                yield Report.fmt(r.value()) + "x ± " + Report.fmt(r.error());
            }
        };
    }

    private static String range(Report.Result r) {
        double[] means = r.forkMeans();
        if (means == null || means.length < 2) {
            return Report.time(r);
        }
        double scale = Report.nanos(r) / r.score();
        double lo = Arrays.stream(means).min().orElseThrow() * scale;
        double hi = Arrays.stream(means).max().orElseThrow() * scale;
        return Report.time(lo) + " to " + Report.time(hi);
    }

    private static Report.Result find(String name, String[] params, List<Report.Result> results) {
        for (Report.Result r : results) {
            if (r.matches(name, params)) {
                return r;
            }
        }
        return null;
    }

    /** {@return {@code text} with every region's figure rendered from {@code results}} */
    static String splice(String text, List<Report.Result> results) {
        Matcher m = REGION.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String figure = render(m.group(1), results);
            m.appendReplacement(out, Matcher.quoteReplacement("<!-- fig " + m.group(1) + " -->" + figure + "<!-- fig end -->"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** {@return README.md and every guide in docs/ under {@code root}} */
    static List<Path> documents(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    /** Rewrites the figures of README.md and docs/ under {@code root}; files without one are left alone. */
    static void spliceAll(Path root, List<Report.Result> results) throws IOException {
        for (Path file : documents(root)) {
            String text = Files.readString(file);
            String spliced = splice(text, results);
            if (!spliced.equals(text)) {
                Files.writeString(file, spliced);
            }
        }
    }
}
