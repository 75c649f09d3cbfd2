package dev.bulkdata.benchmarks.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.bulkdata.benchmarks.report.Comparisons.Comparison;
import dev.bulkdata.storage.vector.Kernels;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a JMH JSON result file (and optionally {@code MemoryFootprint}'s JSON) into markdown
 * tables of ratios and a chart, and can splice a short summary of them into the README between
 * {@code <!-- benchmarks:begin -->} and {@code <!-- benchmarks:end -->}, and the figures of the
 * README and the guides into their inline regions ({@link Figures}).
 *
 * <p>Usage: {@code Report <jmh.json> <memory.json or -> <out-dir> [README.md]}. Writes
 * {@code <out-dir>/results.md} (every table) and {@code <out-dir>/speedup.png}. When the output
 * of the C++ and Rust harness in {@code benchmarks/peers/} is there ({@code peers.txt} beside the
 * JMH JSON, or the file {@code -Dreport.peers} names), results.md compares it with the JMH rows
 * of the same workloads ({@link Peers}). Its last section puts bulkdata beside the JVM entity
 * libraries of {@code EcsPeersBenchmark} ({@link EcsPeers}).
 *
 * <p>JMH's JSON does not say which machine ran it, so the first report over a result file
 * describes the machine it runs on (the full run's command runs it right after JMH, on the same
 * machine) in {@code machine.txt} beside the JSON, with the JSON's SHA-256; later reports over
 * the same file read the description from there, so a report made elsewhere from committed
 * results still names the machine that measured them.
 *
 * <p>Every ratio compares two scores of the same run. Its error combines the two JMH 99.9 %
 * confidence half-widths as relative errors: {@code r * sqrt((e1/s1)^2 + (e2/s2)^2)}. Beside it
 * stand the forks' view of the ratio and the target's verdict ({@link Forks}): a target is judged
 * only with 3 forks or more, on the worst pairing of their means.
 */
public final class Report {
    static final String BEGIN = "<!-- benchmarks:begin -->";
    static final String END = "<!-- benchmarks:end -->";
    static final String PKG = "dev.bulkdata.benchmarks.";
    /** The record count the tables report on: {@code -Dreport.n}, 1,000,000 by default. */
    static final String N = System.getProperty("report.n", "1000000");

    private Report() {
    }

    /**
     * One JMH result: benchmark method, parameters, score and allocation per operation, and the
     * mean of each fork's iteration scores (in the score's unit; from {@code rawData}).
     */
    record Result(String benchmark, Map<String, String> params, double score, double error, String unit,
                  double allocPerOp, double[] forkMeans) {
        boolean matches(String name, String... kv) {
            if (!benchmark.equals(PKG + name)) {
                return false;
            }
            for (int i = 0; i < kv.length; i += 2) {
                if (!kv[i + 1].equals(params.get(kv[i]))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A ratio with its propagated error. */
    record Ratio(double value, double error) {
        static Ratio of(Result numerator, Result denominator) {
            double r = numerator.score() / denominator.score();
            double e = r * Math.hypot(numerator.error() / numerator.score(), denominator.error() / denominator.score());
            return new Ratio(r, e);
        }

        String format() {
            return Double.isNaN(error) ? fmt(value) + " ± ?" : fmt(value) + " ± " + fmt(error);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: Report <jmh.json> <memory.json or -> <out-dir> [README.md]");
            System.exit(2);
        }
        String jmhJson = Files.readString(Path.of(args[0]));
        List<Result> results = parse(jmhJson);
        String memory = args[1].equals("-") ? null : Files.readString(Path.of(args[1]));
        Path out = Path.of(args[2]);
        Files.createDirectories(out);
        List<Row> rows = rows(results);
        String machine = machine(Path.of(args[0]), jmhJson);
        Path peersFile = Path.of(System.getProperty("report.peers",
                Path.of(args[0]).toAbsolutePath().resolveSibling("peers.txt").toString()));
        Peers.File peers = Files.exists(peersFile) ? Peers.parse(Files.readAllLines(peersFile)) : null;
        String markdown = header(jmhJson, machine) + "\n" + markdown(rows, results, memory)
                + "\n![speed-up of bulkdata over heap collections](speedup.png)\n"
                + Peers.section(peers, results, memory, machine)
                + EcsPeers.section(jmhJson, results, memory, machine);
        Files.writeString(out.resolve("results.md"), "# Benchmark results\n\n" + markdown);
        chart(rows, out.resolve("speedup.png"));
        if (args.length > 3) {
            splice(Path.of(args[3]), summary(jmhJson, machine, rows, memory, results));
            Figures.spliceAll(Path.of(args[3]).toAbsolutePath().getParent(), results);
        }
        System.out.println(markdown);
    }

    /**
     * The README's rows: (workload, subject, peer) of the comparisons the summary shows, the
     * first question each kind of user asks. The full tables are in results.md.
     */
    static final String[][] HEADLINES = {
            {"iterate", "BulkTable SOA", "float[]"},
            {"lookup", "BulkTable", "HashMap"},
            {"create", "BulkTable", "HashMap"},
            {"churn (half)", "BulkTable SOA", "fastutil"},
            {"update p += v*dt, SIMD kernels", "BulkTable SOA, Kernels.axpy (table)", "float[]"},
            {"pass over changed chunks (1 % written)", "BulkTable, ChangeFilter", "full pass"},
            {"snapshot load", "Snapshots.load", "ObjectInputStream"},
    };

    /**
     * The README's part: which run, the {@link #HEADLINES} rows and the memory per record of a
     * BulkTable against a HashMap, links to the full tables and to the guide, and the chart.
     */
    static String summary(String jmhJson, String machine, List<Row> rows, String memoryJson, List<Result> results) {
        JsonArray all = JsonParser.parseString(jmhJson).getAsJsonArray();
        StringBuilder md = new StringBuilder();
        if (!all.isEmpty()) {
            JsonObject o = all.get(0).getAsJsonObject();
            md.append(String.format(Locale.ROOT, "The committed run at %,d records of 32 bytes: %d benchmarks, JMH %s,"
                            + " %s %s, %s.%n%n", Integer.parseInt(N), all.size(), str(o, "jmhVersion"),
                    str(o, "vmName"), str(o, "jdkVersion"), machine));
        }
        md.append("| workload | bulkdata | against | result | target |\n|---|---|---|---:|---|\n");
        for (String[] headline : HEADLINES) {
            for (Row r : rows) {
                Comparison c = r.comparison();
                if (c.workload().equals(headline[0]) && c.subject().equals(headline[1])
                        && c.peerName().equals(headline[2])) {
                    md.append("| ").append(c.workload()).append(" | ").append(c.subject()).append(" | ")
                            .append(c.peerName()).append(" | ").append(r.ratio().format()).append(' ')
                            .append(c.speedup() ? "× faster" : "× the time").append(" | ")
                            .append(r.target().isEmpty() ? "–" : r.target()).append(" |\n");
                    break;
                }
            }
        }
        if (memoryJson != null) {
            Double bulk = bytesPerRecord(memoryJson, "BulkTable SOA", 32);
            Double hashMap = bytesPerRecord(memoryJson, "HashMap<Long, Particle>", 32);
            if (bulk != null && hashMap != null) {
                md.append(String.format(Locale.ROOT, "| memory per record | BulkTable SOA | HashMap<Long, Particle> |"
                        + " %.1f B against %.1f B | – |%n", bulk, hashMap));
            }
        }
        md.append(EcsPeers.summaryRow(results));
        md.append("\nEvery comparison, and the hole, thread, allocation and memory tables and the JVM entity libraries:"
                        + " [benchmarks/results/results.md](benchmarks/results/results.md); how to run them and what"
                        + " the rows mean: [Benchmarks](docs/benchmarks.md).\n")
                .append("\n![speed-up of bulkdata over heap collections](benchmarks/results/speedup.png)\n");
        return md.toString();
    }

    /** Native plus heap bytes per record of a subject of MemoryFootprint's JSON, or null. */
    static Double bytesPerRecord(String memoryJson, String subject, int recordBytes) {
        for (JsonElement e : JsonParser.parseString(memoryJson).getAsJsonArray()) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("subject").getAsString().equals(subject) && o.get("recordBytes").getAsInt() == recordBytes) {
                return (double) (o.get("nativeBytes").getAsLong() + o.get("heapBytes").getAsLong())
                        / o.get("records").getAsInt();
            }
        }
        return null;
    }

    /**
     * The machine that ran {@code jmhJson}: from {@code machine.txt} beside it when that file
     * was written for this very JSON (same SHA-256), otherwise this machine, which is then
     * written there.
     */
    static String machine(Path jmhFile, String jmhJson) throws IOException {
        String sha = sha256(jmhJson);
        Path file = jmhFile.toAbsolutePath().resolveSibling("machine.txt");
        String prefix = jmhFile.getFileName() + " sha-256: ";
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file);
            if (lines.size() >= 2 && lines.get(0).equals(prefix + sha)) {
                return lines.get(1);
            }
        }
        String machine = thisMachine();
        Files.writeString(file, prefix + sha + "\n" + machine + "\n");
        return machine;
    }

    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Cores, CPU, its widest vector instruction set and the vector width the kernels use here. */
    static String thisMachine() {
        String cpu = "unknown CPU";
        String flags = "";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name") && cpu.equals("unknown CPU")) {
                    cpu = line.substring(line.indexOf(':') + 1).strip();
                } else if (line.startsWith("flags") && flags.isEmpty()) {
                    flags = " " + line.substring(line.indexOf(':') + 1).strip() + " ";
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: leave the CPU unnamed
        }
        String isa = flags.contains(" avx512f ") ? "AVX-512" : flags.contains(" avx2 ") ? "AVX2" : "no AVX2";
        int bits = Kernels.vectorBits();
        return String.format(Locale.ROOT, "%d cores (%s, %s); vectors: %s (FloatVector.SPECIES_PREFERRED, as"
                        + " Kernels.vectorBits() reports)", Runtime.getRuntime().availableProcessors(), cpu, isa,
                bits == 0 ? "none (the report ran without --add-modules jdk.incubator.vector)" : bits + " bits");
    }

    /** One line on how the run was made: JDK, JMH settings as the JSON records them, machine. */
    static String header(String json, String machine) {
        JsonArray all = JsonParser.parseString(json).getAsJsonArray();
        if (all.isEmpty()) {
            return "";
        }
        JsonObject o = all.get(0).getAsJsonObject();
        Map<Integer, List<String>> byForks = new java.util.TreeMap<>();
        java.util.Set<String> iterations = new java.util.TreeSet<>();
        boolean avx2 = false;
        for (JsonElement e : all) {
            JsonObject b = e.getAsJsonObject();
            String name = b.get("benchmark").getAsString().substring(PKG.length());
            byForks.computeIfAbsent(b.get("forks").getAsInt(), k -> new ArrayList<>()).add(name);
            iterations.add(String.format(Locale.ROOT, "warm-up %d × %s, measurement %d × %s",
                    b.get("warmupIterations").getAsInt(), str(b, "warmupTime"),
                    b.get("measurementIterations").getAsInt(), str(b, "measurementTime")));
            avx2 |= name.startsWith("KernelAvx2Benchmark.");
        }
        int usual = byForks.entrySet().stream().max(Map.Entry.comparingByValue(java.util.Comparator.comparingInt(List::size)))
                .orElseThrow().getKey();
        StringBuilder forks = new StringBuilder().append(usual).append(" fork(s)");
        byForks.forEach((count, names) -> {
            if (count != usual) {
                forks.append(String.format(Locale.ROOT, " (%d for %s)", count,
                        String.join(", ", new java.util.TreeSet<>(names))));
            }
        });
        return String.format(Locale.ROOT,
                "Run of %d benchmarks with JMH %s on %s %s; %s, %s per benchmark; %s.%s Times are averages"
                        + " per operation (one pass over all records unless the workload says otherwise).%n",
                all.size(), str(o, "jmhVersion"), str(o, "vmName"), str(o, "jdkVersion"), forks,
                String.join(" or ", iterations), machine,
                avx2 ? " The rows marked AVX2 ran with -XX:UseAVX=2 (256 bits)." : "");
    }

    private static String str(JsonObject o, String key) {
        return o.has(key) ? o.get(key).getAsString() : "?";
    }

    static List<Result> parse(String json) {
        List<Result> results = new ArrayList<>();
        for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
            JsonObject o = e.getAsJsonObject();
            Map<String, String> params = new LinkedHashMap<>();
            if (o.has("params")) {
                for (Map.Entry<String, JsonElement> p : o.getAsJsonObject("params").entrySet()) {
                    params.put(p.getKey(), p.getValue().getAsString());
                }
            }
            JsonObject primary = o.getAsJsonObject("primaryMetric");
            double alloc = Double.NaN;
            if (o.has("secondaryMetrics")) {
                for (Map.Entry<String, JsonElement> m : o.getAsJsonObject("secondaryMetrics").entrySet()) {
                    if (m.getKey().replace("·", "").equals("gc.alloc.rate.norm")) {
                        alloc = number(m.getValue().getAsJsonObject().get("score"));
                    }
                }
            }
            results.add(new Result(o.get("benchmark").getAsString(), params, number(primary.get("score")),
                    number(primary.get("scoreError")), primary.get("scoreUnit").getAsString(), alloc,
                    forkMeans(primary)));
        }
        return results;
    }

    /** The mean of each fork's iteration scores: {@code rawData} holds one array per fork. */
    private static double[] forkMeans(JsonObject primary) {
        if (!primary.has("rawData")) {
            return new double[0];
        }
        JsonArray forks = primary.getAsJsonArray("rawData");
        double[] means = new double[forks.size()];
        for (int f = 0; f < means.length; f++) {
            JsonArray iterations = forks.get(f).getAsJsonArray();
            double sum = 0;
            for (JsonElement i : iterations) {
                sum += number(i);
            }
            means[f] = sum / iterations.size();
        }
        return means;
    }

    private static double number(JsonElement e) {
        // JMH writes "NaN" as a string when a single iteration gives no error estimate.
        return e == null || e.isJsonNull() ? Double.NaN
                : e.getAsJsonPrimitive().isString() ? Double.parseDouble(e.getAsString()) : e.getAsDouble();
    }

    static Result find(List<Result> results, String name, String... params) {
        for (Result r : results) {
            if (r.matches(name, params)) {
                return r;
            }
        }
        return null;
    }

    /** A computed comparison row: the ratio of the JMH scores and what the forks say of it. */
    record Row(Comparison comparison, Result bulk, Result peer, Ratio ratio, Forks forks) {
        /** The target's cell ({@link Forks#judge}), empty when the comparison has no target. */
        String target() {
            double t = comparison.target();
            return Double.isNaN(t) ? "" : forks.judge(comparison.speedup(), t, ratio, (comparison.speedup() ? "≥ " : "≤ ") + fmt(t));
        }
    }

    static List<Row> rows(List<Result> results) {
        List<Row> rows = new ArrayList<>();
        for (Comparison c : Comparisons.all()) {
            Result bulk = find(results, c.bulk(), c.params());
            Result peer = find(results, c.peer(), c.params());
            if (bulk == null || peer == null) {
                continue;
            }
            rows.add(c.speedup() ? new Row(c, bulk, peer, Ratio.of(peer, bulk), Forks.ratio(peer, bulk, 1))
                    : new Row(c, bulk, peer, Ratio.of(bulk, peer), Forks.ratio(bulk, peer, 1)));
        }
        return rows;
    }

    static String markdown(List<Row> rows, List<Result> results, String memoryJson) {
        StringBuilder md = new StringBuilder();
        md.append("| workload | bulkdata | vs | bulkdata time | peer time | ratio | forks: median [min–max] | target |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            Comparison c = r.comparison();
            String kind = c.speedup() ? "× faster" : "× the time";
            md.append("| ").append(c.workload()).append(" | ").append(c.subject()).append(" | ").append(c.peerName())
                    .append(" | ").append(time(r.bulk())).append(" | ").append(time(r.peer()))
                    .append(" | ").append(r.ratio().format()).append(' ').append(kind)
                    .append(" | ").append(r.forks().format()).append(" | ").append(r.target()).append(" |\n");
        }
        holes(md, results);
        mapped(md, results);
        parallel(md, results);
        allocation(md, results);
        if (memoryJson != null) {
            memory(md, memoryJson);
        }
        return md.toString();
    }

    private static void holes(StringBuilder md, List<Result> results) {
        md.append("\n| table | holes | live records | time per pass | ns per live record | vs 0 % holes"
                + " | forks: median [min–max] | target |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (String[] subject : new String[][] {{"BulkTable SOA", "UpdateBenchmark.holes"},
                {"BulkTable AOS", "UpdateBenchmark.holesAos"}, {"PackedTable SOA", "UpdateBenchmark.holesPacked"}}) {
            Result zero = find(results, subject[1], "n", N, "holes", "0");
            if (zero == null) {
                continue;
            }
            double zeroPerLive = perLive(zero);
            for (String h : new String[] {"0", "25", "50", "90", "99"}) {
                Result r = find(results, subject[1], "n", N, "holes", h);
                if (r == null) {
                    continue;
                }
                double perLive = perLive(r);
                Ratio ratio = new Ratio(perLive / zeroPerLive,
                        perLive / zeroPerLive * Math.hypot(r.error() / r.score(), zero.error() / zero.score()));
                Forks forks = Forks.ratio(r, zero, (double) live(Integer.parseInt(N), 0) / live(Integer.parseInt(N),
                        Integer.parseInt(h)));
                String target = h.equals("50") ? forks.judge(false, 2, ratio, "≤ 2") : "";
                md.append("| ").append(subject[0]).append(" | ").append(h).append(" % | ")
                        .append(live(Integer.parseInt(N), Integer.parseInt(h))).append(" | ").append(time(r)).append(" | ")
                        .append(fmt(perLive)).append(" | ").append(ratio.format()).append(" | ").append(forks.format())
                        .append(" | ").append(target).append(" |\n");
            }
        }
    }

    /** Opening a mapped table of 1 GiB (32 n records of 32 bytes, or 4 n of 256), absolute times. */
    private static void mapped(StringBuilder md, List<Result> results) {
        StringBuilder rows = new StringBuilder();
        for (String bytes : new String[] {"32", "256"}) {
            Result r = find(results, "MappedBenchmark.openLarge", "n", N, "recordBytes", bytes);
            if (r == null) {
                continue;
            }
            long records = 32L * Integer.parseInt(N) * 32 / Integer.parseInt(bytes);
            // In ms, fork by fork; "< 100 ms" is a strict maximum: the largest double below it.
            Forks forks = Forks.of(r, nanos(r) / r.score() / 1e6);
            String target = bytes.equals("32") ? forks.judge(false, Math.nextDown(100.0), null, "< 100 ms") : "";
            rows.append("| ").append(fmt(records * Integer.parseInt(bytes) / (1024.0 * 1024 * 1024))).append(" GiB, ")
                    .append(records).append(" records of ").append(bytes).append(" bytes | ").append(time(r))
                    .append(" | ").append(forks.forks() > 1 ? forks.format().replace("], ", "] ms, ") : forks.format())
                    .append(" | ").append(target).append(" |\n");
        }
        if (!rows.isEmpty()) {
            md.append("\n| opening a mapped table | time | forks: median [min–max] | target |\n|---|---:|---:|---|\n")
                    .append(rows);
        }
    }

    static int live(int n, int holes) {
        return n - (int) ((long) n * holes / 100);
    }

    private static double perLive(Result r) {
        return nanos(r) / live(Integer.parseInt(r.params().get("n")), Integer.parseInt(r.params().get("holes")));
    }

    private static void parallel(StringBuilder md, List<Result> results) {
        md.append("\n| parallel update, 1M records | time | speed-up over 1 thread | forks: median [min–max] | target |\n"
                + "|---|---:|---:|---:|---|\n");
        boolean any = false;
        for (String[] subject : new String[][] {{"Java, 1 thread", "ParallelBenchmark.update", "1"},
                {"Java, 2 threads", "ParallelBenchmark.update", "2"},
                {"Kotlin coroutines, 1 thread", "ParallelBenchmark.coroutines", "1"},
                {"Kotlin coroutines, 2 threads", "ParallelBenchmark.coroutines", "2"},
                {"floor: the Java loop over the same blocks, no library, 1 thread", "ParallelBenchmark.floor", "1"},
                {"floor: the Java loop over the same blocks, no library, 2 threads", "ParallelBenchmark.floor", "2"}}) {
            Result r = find(results, subject[1], "n", N, "threads", subject[2]);
            Result one = find(results, subject[1], "n", N, "threads", "1");
            if (r == null || one == null) {
                continue;
            }
            any = true;
            Ratio speedup = Ratio.of(one, r);
            Forks forks = Forks.ratio(one, r, 1);
            String target = subject[2].equals("2") && !subject[1].endsWith("floor")
                    ? forks.judge(true, 1.8, speedup, "≥ 1.8") : "";
            md.append("| ").append(subject[0]).append(" | ").append(time(r)).append(" | ").append(speedup.format())
                    .append(" | ").append(forks.format()).append(" | ").append(target).append(" |\n");
        }
        if (!any) {
            md.setLength(md.lastIndexOf("\n| parallel"));
        }
    }

    private static void allocation(StringBuilder md, List<Result> results) {
        StringBuilder rows = new StringBuilder();
        for (Result r : results) {
            String name = r.benchmark().substring(PKG.length());
            String method = name.substring(name.indexOf('.') + 1);
            boolean bulkdata = method.contains("bulk") || method.contains("Bulk") || method.contains("packed")
                    || method.contains("Packed") || method.contains("kotlin") || method.contains("Kotlin")
                    || name.startsWith("ParallelBenchmark");
            if (!bulkdata || Double.isNaN(r.allocPerOp()) || !N.equals(r.params().getOrDefault("n", N))
                    || method.startsWith("create") || method.startsWith("clear") || method.contains("Create")) {
                continue;
            }
            rows.append("| ").append(name).append(paramsLabel(r)).append(" | ").append(fmt(r.allocPerOp()))
                    .append(" | ").append(String.format(Locale.ROOT, "%.6f", r.allocPerOp() / records(r))).append(" |\n");
        }
        if (!rows.isEmpty()) {
            md.append("\n| allocation (`-prof gc`, gc.alloc.rate.norm) | B per operation | B per record |\n|---|---:|---:|\n")
                    .append(rows);
        }
    }

    private static int records(Result r) {
        return r.benchmark().contains("FrameBenchmark") ? 100_000 : Integer.parseInt(r.params().getOrDefault("n", N));
    }

    private static String paramsLabel(Result r) {
        StringBuilder s = new StringBuilder();
        r.params().forEach((k, v) -> {
            if (!k.equals("n")) {
                s.append(s.isEmpty() ? " (" : ", ").append(k).append('=').append(v);
            }
        });
        return s.isEmpty() ? "" : s.append(')').toString();
    }

    private static void memory(StringBuilder md, String json) {
        md.append("\n| memory, 1M records | record bytes | native bytes | heap bytes | bytes per record |\n|---|---:|---:|---:|---:|\n");
        JsonArray rows = JsonParser.parseString(json).getAsJsonArray();
        for (JsonElement e : rows) {
            JsonObject o = e.getAsJsonObject();
            long nat = o.get("nativeBytes").getAsLong();
            long heap = o.get("heapBytes").getAsLong();
            int records = o.get("records").getAsInt();
            md.append("| ").append(o.get("subject").getAsString()).append(" | ").append(o.get("recordBytes").getAsInt())
                    .append(" | ").append(String.format(Locale.ROOT, "%,d", nat)).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", heap)).append(" | ")
                    .append(String.format(Locale.ROOT, "%.2f", (double) (nat + heap) / records)).append(" |\n");
        }
    }

    static void chart(List<Row> rows, Path png) throws IOException {
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        List<Double> errors = new ArrayList<>();
        for (Row r : rows) {
            if (!r.comparison().speedup()) {
                continue;
            }
            labels.add(r.comparison().workload() + ": " + r.comparison().subject() + " vs " + r.comparison().peerName());
            values.add(r.ratio().value());
            // A log axis cannot show a bar reaching zero: clip the error bar (the table has it whole).
            double error = r.ratio().error();
            errors.add(Double.isNaN(error) ? 0 : Math.min(error, 0.9 * r.ratio().value()));
        }
        if (labels.isEmpty()) {
            return;
        }
        // One bar per "× faster" row. The labels are long: they stand upright in a small font and
        // the picture widens with the rows, so the bars keep the upper half of it.
        CategoryChart chart = new CategoryChartBuilder().width(Math.max(1200, 22 * labels.size())).height(1500)
                .title("bulkdata speed-up over heap collections (peer time / bulkdata time, "
                        + String.format(Locale.ROOT, "%,d", Integer.parseInt(N)) + " records)")
                .xAxisTitle("").yAxisTitle("× faster (log scale)").build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisLabelRotation(90);
        chart.getStyler().setAxisTickLabelsFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 11));
        chart.getStyler().setToolTipsEnabled(false);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.addSeries("speed-up", labels, values, errors);
        // XChart starts bars at zero unless told otherwise, which a log axis cannot show.
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(1);
        chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(Math.min(min * 0.5, 0.5)))));
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    static void splice(Path readme, String markdown) throws IOException {
        String text = Files.readString(readme);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(readme + " has no " + BEGIN + " ... " + END + " section");
        }
        Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + "\n" + markdown + text.substring(end));
    }

    static String time(Result r) {
        return time(nanos(r));
    }

    /** {@return {@code ns} nanoseconds in ns, µs or ms, three figures} */
    static String time(double ns) {
        if (ns >= 1e6) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        if (ns >= 1e3) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f ns", ns);
    }

    static double nanos(Result r) {
        return switch (r.unit()) {
            case "ns/op" -> r.score();
            case "us/op" -> r.score() * 1e3;
            case "ms/op" -> r.score() * 1e6;
            case "s/op" -> r.score() * 1e9;
            default -> throw new IllegalArgumentException("unit " + r.unit() + " of " + r.benchmark());
        };
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "?";
        }
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : Math.abs(v) >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
