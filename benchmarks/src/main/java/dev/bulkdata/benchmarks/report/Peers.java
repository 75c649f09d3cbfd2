package dev.bulkdata.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The section "Against C++ and Rust on the same machine": the output of the harness in
 * {@code benchmarks/peers/} ({@code peers.txt}: its {@code run.sh}'s header line, then the rows of
 * {@code bench}, {@code slotbench}, {@code mem} and {@code slotmem}) beside the JMH rows of the
 * same workloads, in the harness's units.
 *
 * <p>A row of the harness reads {@code subject workload n=N value ns/record (x ms/op)} or
 * {@code subject churn n=N value ms/round}; a row of its memory programs
 * {@code subject value B/record (capacity c)}. Lines starting with {@code #} are comments (the
 * first names when and where it ran); any other line is an error, so that a change of the
 * format fails the report's smoke pass in {@code mvn verify}.
 */
final class Peers {
    private static final Pattern TIME = Pattern.compile(
            "(\\S+)\\s+(\\S+)\\s+n=(\\d+)\\s+([0-9.]+)\\s+(ns/record|ms/round)(\\s+\\([0-9.]+ ms/op\\))?");
    private static final Pattern BYTES = Pattern.compile("(\\S+)\\s+([0-9.]+) B/record(\\s+\\(.*\\))?");

    private Peers() {
    }

    /** One measured row of the harness. */
    record Line(String subject, String workload, int n, double value, String unit) {
    }

    /** A parsed peers file: its comment lines, timed rows, and bytes per record by subject. */
    record File(List<String> comments, List<Line> rows, Map<String, Double> bytes) {
        /** The value of a subject's row for a workload at n, or NaN. */
        double value(String subject, String workload, int n) {
            for (Line l : rows) {
                if (l.subject().equals(subject) && l.workload().equals(workload) && l.n() == n) {
                    return l.value();
                }
            }
            return Double.NaN;
        }
    }

    static File parse(List<String> lines) {
        List<String> comments = new ArrayList<>();
        List<Line> rows = new ArrayList<>();
        Map<String, Double> bytes = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                comments.add(line.substring(1).strip());
                continue;
            }
            Matcher t = TIME.matcher(line);
            Matcher b = BYTES.matcher(line);
            if (t.matches()) {
                rows.add(new Line(t.group(1), t.group(2), Integer.parseInt(t.group(3)), Double.parseDouble(t.group(4)),
                        t.group(5)));
            } else if (b.matches()) {
                bytes.put(b.group(1), Double.parseDouble(b.group(2)));
            } else {
                throw new IllegalArgumentException("peers file, line " + (i + 1) + ": not a row of the harness: " + line);
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("peers file has no rows of the harness");
        }
        return new File(comments, rows, bytes);
    }

    /**
     * A workload of the table: the harness's name and unit, and the JMH row of bulkdata's
     * {@code BulkTable} (with its parameters besides n) and what its score is divided by.
     */
    private record Workload(String name, String label, String unit, String bulk, String[] params, String per,
                            String javaLimit) {
    }

    private static final Workload[] WORKLOADS = {
            new Workload("create", "create (add, set t)", "ns/record", "ChangeBenchmark.createBulk", new String[0], "n",
                    null),
            new Workload("iterate", "iterate (sum t)", "ns/record", "IterateBenchmark.bulkSoaColumns", new String[0], "n",
                    "IterateBenchmark.floatArray"),
            new Workload("lookup", "lookup (shuffled handles)", "ns/record", "LookupBenchmark.bulk", new String[0], "n",
                    "LookupBenchmark.floatArray"),
            new Workload("holes", "holes (sum t, 50 % holes)", "ns/live record", "UpdateBenchmark.holes",
                    new String[] {"holes", "50"}, "live", null),
            new Workload("churn", "churn (remove half, add back)", "ms/round", "ChangeBenchmark.churnBulk", new String[0],
                    "round", null),
            new Workload("update", "update p += v*dt", "ns/record", "UpdateBenchmark.bulkSoa", new String[0], "n",
                    "UpdateBenchmark.floatArray"),
            new Workload("clear", "clear", "ns/record", "ChangeBenchmark.clearBulk", new String[0], "n", null),
    };

    /** The SIMD kernel's update, shown in brackets beside the scalar loop. */
    private static final String KERNEL_UPDATE = "KernelBenchmark.updateBulkTable";

    /**
     * The section. {@code peers} is null when the run has no peers file: the section then says so
     * and how to make one.
     */
    static String section(File peers, List<Report.Result> results, String memoryJson, String machine) {
        StringBuilder md = new StringBuilder("\n## Against C++ and Rust on the same machine\n\n");
        if (peers == null) {
            return md.append("The C++ and Rust harness in [`benchmarks/peers/`](../peers/README.md) was not run with"
                    + " this run: there is no `peers.txt` beside `jmh.json`. To add it, build the harness as its README"
                    + " says, run `benchmarks/peers/run.sh 1000000 8388608 33554432 > benchmarks/results/peers.txt` on the same machine"
                    + " right after JMH, then the report step again ([docs/benchmarks.md](../../docs/benchmarks.md)).\n")
                    .toString();
        }
        int n = peers.rows().get(0).n();
        int jmhN = Integer.parseInt(Report.N);
        md.append("The harness in [`benchmarks/peers/`](../peers/README.md) runs the JMH workloads on the C++ `handle_map`"
                + " of the article \"Game Engine Containers - handle_map\" (`y2kiah/griffin-containers`) and on Rust's"
                + " `slotmap` 1.1.1 (`orlp/slotmap`, tag `v1.1.1`), records of 8 floats, at n = ")
                .append(String.format(Locale.ROOT, "%,d", n)).append("; the JMH rows are at n = ")
                .append(String.format(Locale.ROOT, "%,d", jmhN)).append(".\n\n");
        md.append("- JMH run: ").append(machine).append(".\n");
        md.append("- Harness run: ").append(peers.comments().isEmpty() ? "not named in `peers.txt`" : peers.comments().get(0))
                .append(".\n");
        String cpu = cpu(peers.comments().isEmpty() ? "" : peers.comments().get(0));
        if (cpu != null && !machine.contains(cpu)) {
            md.append("- ⚠ The harness names another CPU (").append(cpu)
                    .append(") than the JMH run: this table compares two machines.\n");
        }
        if (n != jmhN) {
            md.append("- ⚠ The harness ran at another n than the JMH rows.\n");
        }
        md.append("\n| workload | unit | bulkdata `BulkTable` | C++ `handle_map` | Rust `SlotMap` | Rust `HopSlotMap`"
                + " | Rust `DenseSlotMap` | C++ `std::vector` columns (limit) | Java `float[]` (limit, JMH) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Workload w : WORKLOADS) {
            String bulk = cell(bulk(results, w, w.bulk(), w.params()));
            if (w.name().equals("update")) {
                double kernel = bulk(results, w, KERNEL_UPDATE, w.params());
                if (!Double.isNaN(kernel)) {
                    bulk += " (`Kernels.axpy`: " + cell(kernel) + ")";
                }
            }
            String handleMap = cell(peers.value("cpp_handle_map", w.name(), n));
            if (w.name().equals("lookup")) {
                handleMap = with(handleMap, "checked", peers.value("cpp_handle_map_chk", "lookup", n));
            } else if (w.name().equals("clear")) {
                handleMap = with(handleMap, "`reset()`", peers.value("cpp_handle_map_reset", "clear", n));
            }
            String limit = switch (w.name()) {
                case "create" -> with(cell(peers.value("cpp_vector_limit", "create", n)), "8 columns",
                        peers.value("cpp_vector_8col", "create", n));
                case "holes" -> with(cell(peers.value("cpp_vector_bitmap", "holes", n)), "dense",
                        peers.value("cpp_vector_dense", "holes", n));
                default -> cell(peers.value("cpp_vector_limit", w.name(), n));
            };
            String javaLimit = w.javaLimit() == null ? "–" : cell(bulk(results, w, w.javaLimit(), w.params()));
            md.append("| ").append(w.label()).append(" | ").append(w.unit()).append(" | ").append(bulk).append(" | ")
                    .append(handleMap).append(" | ").append(cell(peers.value("rust_SlotMap", w.name(), n))).append(" | ")
                    .append(cell(peers.value("rust_HopSlotMap", w.name(), n))).append(" | ")
                    .append(cell(peers.value("rust_DenseSlotMap", w.name(), n))).append(" | ").append(limit)
                    .append(" | ").append(javaLimit).append(" |\n");
        }
        if (!peers.bytes().isEmpty()) {
            Double bulk = memoryJson == null ? null : Report.bytesPerRecord(memoryJson, "BulkTable SOA", 32);
            md.append("| memory | B/record | ").append(bulk == null ? "–" : cell(bulk)).append(" | ")
                    .append(cell(peers.bytes().getOrDefault("cpp_handle_map", Double.NaN))).append(" | ")
                    .append(cell(peers.bytes().getOrDefault("rust_SlotMap", Double.NaN))).append(" | ")
                    .append(cell(peers.bytes().getOrDefault("rust_HopSlotMap", Double.NaN))).append(" | ")
                    .append(cell(peers.bytes().getOrDefault("rust_DenseSlotMap", Double.NaN))).append(" | ")
                    .append(cell(peers.bytes().getOrDefault("cpp_vector_8col", Double.NaN)))
                    .append(" | – |\n");
        }
        scale(md, peers, results, n);
        md.append("\n- **bulkdata** cells are JMH scores of this run at n = ").append(String.format(Locale.ROOT, "%,d", jmhN))
                .append(", divided by n (holes: by the live records; churn: one call is one round):");
        for (Workload w : WORKLOADS) {
            md.append(' ').append(w.name()).append(" `").append(w.bulk()).append('`');
            for (int i = 0; i < w.params().length; i += 2) {
                md.append(" (").append(w.params()[i]).append('=').append(w.params()[i + 1]).append(')');
            }
            md.append(w.name().equals("update") ? ", in brackets `" + KERNEL_UPDATE + "`;" : ";");
        }
        md.append(" memory: `memory.json`'s `BulkTable SOA` (native plus heap bytes per record at its record count)."
                + " Java `float[]`: `IterateBenchmark.floatArray`, `LookupBenchmark.floatArray`,"
                + " `UpdateBenchmark.floatArray`.\n");
        md.append("- **C++ `handle_map`** looks up with `operator[]`, unchecked in a release build; \"checked\" calls"
                + " `isValid` first, the generation check bulkdata always makes. It clears with `clear()`; `reset()`"
                + " does not advance generations. Rust's `map[key]` compares the key's version.\n");
        md.append("- **Limits**: `std::vector<float>` columns. Create pushes `t` alone (\"8 columns\": all eight);"
                + " holes walks a live bitmap 64 slots at a time, as `BulkTable` does (\"dense\": the live half"
                + " copied into a column of its own).\n");
        md.append("- Run the harness and JMH in the same hour on the same machine, and compare ratios within one"
                + " such pair of runs only ([benchmarks/peers/README.md](../peers/README.md)). The harness's"
                + " `cpp_unordered_map` rows are in `peers.txt`, not in this table.\n");
        return md.toString();
    }

    /**
     * The lookup at the larger sizes the harness ran (lookup rows at another n than the main
     * table's), beside JMH's {@code LookupScaleBenchmark} at the same n; nothing when it ran none.
     */
    private static void scale(StringBuilder md, File peers, List<Report.Result> results, int n) {
        List<Integer> sizes = peers.rows().stream().filter(l -> l.workload().equals("lookup") && l.n() != n)
                .map(Line::n).distinct().sorted().toList();
        if (sizes.isEmpty()) {
            return;
        }
        md.append("\nLookup as the table grows (ns per lookup; JMH `LookupScaleBenchmark`, the harness with"
                + " `WORKLOADS=lookup`):\n\n");
        md.append("| n | bulkdata `BulkTable` | its floor (no library) | C++ `handle_map` | C++ checked | Rust `SlotMap`"
                + " | bulkdata / `SlotMap` |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int m : sizes) {
            double bulk = perLookup(results, "LookupScaleBenchmark.bulk", m);
            double slotMap = peers.value("rust_SlotMap", "lookup", m);
            md.append("| ").append(String.format(Locale.ROOT, "%,d", m)).append(" | ").append(cell(bulk)).append(" | ")
                    .append(cell(perLookup(results, "LookupScaleBenchmark.floor", m))).append(" | ")
                    .append(cell(peers.value("cpp_handle_map", "lookup", m))).append(" | ")
                    .append(cell(peers.value("cpp_handle_map_chk", "lookup", m))).append(" | ")
                    .append(cell(slotMap)).append(" | ")
                    .append(Double.isNaN(bulk) || Double.isNaN(slotMap) ? "–" : String.format(Locale.ROOT, "%.2fx", bulk / slotMap))
                    .append(" |\n");
        }
    }

    /** A JMH row at {@code n} divided by n, in ns, or NaN when the run lacks it. */
    private static double perLookup(List<Report.Result> results, String benchmark, int n) {
        Report.Result r = Report.find(results, benchmark, "n", Integer.toString(n));
        return r == null ? Double.NaN : Report.nanos(r) / n;
    }

    /** A BulkTable (or limit) JMH row in the workload's unit, or NaN when the run lacks it. */
    private static double bulk(List<Report.Result> results, Workload w, String benchmark, String[] params) {
        String[] kv = new String[params.length + 2];
        kv[0] = "n";
        kv[1] = Report.N;
        System.arraycopy(params, 0, kv, 2, params.length);
        Report.Result r = Report.find(results, benchmark, kv);
        if (r == null) {
            return Double.NaN;
        }
        double ns = Report.nanos(r);
        int n = Integer.parseInt(Report.N);
        return switch (w.per()) {
            case "round" -> ns / 1e6;
            case "live" -> ns / Report.live(n, Integer.parseInt(params[1]));
            default -> ns / n;
        };
    }

    /** The CPU model in run.sh's header ("...; 2 cores (AMD EPYC, AVX-512); n=..."), or null. */
    static String cpu(String header) {
        for (String part : header.split("; ")) {
            int open = part.indexOf("cores (");
            int comma = part.lastIndexOf(", ");
            if (open >= 0 && comma > open) {
                return part.substring(open + "cores (".length(), comma);
            }
        }
        return null;
    }

    private static String with(String main, String label, double extra) {
        return Double.isNaN(extra) ? main : main + " (" + label + ": " + cell(extra) + ")";
    }

    /** Three significant digits down to 0.001; "–" when missing. */
    static String cell(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        double a = Math.abs(v);
        String f = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, f, v);
    }
}
