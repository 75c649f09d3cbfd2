package dev.bulkdata.benchmarks.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.bulkdata.benchmarks.EcsSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The section "Against the JVM entity libraries": {@code EcsPeersBenchmark}'s rows, one per
 * workload, bulkdata's time beside each peer's time over it (artemis-odb, Dominion, Fleks,
 * Ashley), and the workload's target judged against the fastest peer of the row; then memory
 * per entity from {@code MemoryFootprint}'s {@code ECS: ...} rows. A run without those JMH rows
 * (an older JSON, or a run of other classes) gets the section with "not in this run".
 */
final class EcsPeers {
    static final String CLASS = "EcsPeersBenchmark.";
    /** The peers, in the table's column order: name with version, and the prefix of their methods. */
    static final String[][] PEERS = {
            {"artemis-odb 2.3.0", "artemis"},
            {"Dominion 0.9.0", "dominion"},
            {"Fleks 2.12", "fleks"},
            {"Ashley 1.7.4", "ashley"},
    };
    /** The memory rows' subjects, bulkdata's then the peers' in {@link #PEERS}'s order. */
    static final String[] MEMORY = {"ECS: bulkdata BulkTable", "ECS: artemis-odb 2.3.0", "ECS: Dominion 0.9.0",
            "ECS: Fleks 2.12", "ECS: Ashley 1.7.4"};
    /** A "> 1" target: bulkdata ahead of the fastest peer. */
    static final double AHEAD = Math.nextUp(1.0);

    private EcsPeers() {
    }

    /**
     * A workload of the table. {@code peers[i]} is the method of peer i (without the class), or
     * null when the peer does not run it, {@code reasons[i]} then says why (or, beside a
     * method, a footnote on how the peer runs it). {@code per}: what the time is divided by
     * ("entity": n, "match": the sparse world's moving entities, "round": ms per call).
     */
    record Workload(String label, String bulkPath, String bulk, String[] params, String[] peers, String[] reasons,
                    String[] peerParams, String per, double target, String targetLabel, boolean bulkPass) {
    }

    private static final String NO_BATCH = "no batch create: its one-by-one create";

    static List<Workload> workloads() {
        String[] none = new String[0];
        String[] noReasons = new String[4];
        List<Workload> w = new ArrayList<>();
        w.add(new Workload("create, one by one, new world", "`add()` + 6 `set(h, field, v)`",
                "bulkdataCreateAdd", none, new String[] {"artemisCreate", "dominionCreate", "fleksCreate", "ashleyCreate"},
                noReasons, none, "entity", AHEAD, "> 1", false));
        w.add(new Workload("create, batch, new world", "`addAll(ids)` + 6 `set` each", "bulkdataCreateAddAll", none,
                new String[] {"artemisCreateArchetype", "dominionCreatePrepared", "fleksCreate", "ashleyCreate"},
                new String[] {null, null, NO_BATCH, NO_BATCH}, none, "entity", 2, "≥ 2", true));
        w.add(new Workload("create, one by one, cleared world", "`clear()`, `add()` + 6 `set`",
                "bulkdataCreateAddCleared", none,
                new String[] {"artemisCreateCleared", "dominionCreateCleared", "fleksCreateCleared", "ashleyCreateCleared"},
                noReasons, none, "entity", AHEAD, "> 1", false));
        w.add(new Workload("create, batch, cleared world", "`clear()`, `addAll(ids)` + 6 `set` each",
                "bulkdataCreateAddAllCleared", none,
                new String[] {"artemisCreateArchetypeCleared", "dominionCreatePreparedCleared", "fleksCreateCleared",
                        "ashleyCreateCleared"},
                new String[] {null, null, NO_BATCH, NO_BATCH}, none, "entity", 2, "≥ 2", true));
        String[] update = {"artemisUpdate", "dominionUpdate", "fleksUpdate", "ashleyUpdate"};
        w.add(new Workload("update `p += v * dt`, chunk columns", "`iterate()`, `writableColumn`/`column`, a loop from 0 or `liveBits`",
                "bulkdataUpdateColumns", none, update, noReasons, none, "entity", 2, "≥ 2", true));
        w.add(new Workload("update `p += v * dt`, SIMD kernels", "storage-vector: `Kernels.axpy(table, p, v, dt)` per axis",
                "bulkdataUpdateKernels", none, update, noReasons, none, "entity", 2, "≥ 2", true));
        w.add(new Workload("update `p += v * dt`, `forEach`", "`forEach((chunk, slot) -> chunk.set(...))`",
                "bulkdataUpdateForEach", none, update, noReasons, none, "entity", AHEAD, "> 1", false));
        w.add(new Workload("read `x` by id, ids at random positions of an array", "`get(h, px)`", "bulkdataReadRandom",
                none, new String[] {"artemisReadRandom", "dominionReadRandom", "fleksReadRandom", "ashleyReadRandom"},
                noReasons, none, "entity", AHEAD, "> 1", false));
        w.add(new Workload("read `x` by id, ids pre-shuffled", "`get(h, px)`", "bulkdataReadShuffled", none,
                new String[] {"artemisReadShuffled", "dominionReadShuffled", "fleksReadShuffled", "ashleyReadShuffled"},
                noReasons, none, "entity", AHEAD, "> 1", false));
        String[] churn = {"artemisChurn", "dominionChurn", "fleksChurn", null};
        String[] noAshleyAtN = {null, null, null, "not run: `Engine.removeEntity` scans the engine's and each"
                + " family's entity array, O(n) per removal"};
        String[] churnSmall = {"artemisChurn", "dominionChurn", "fleksChurn", "ashleyChurn"};
        w.add(new Workload("churn: remove a random half, create as many, at n, in batches",
                "`removeAll(half)`, `addAll(half, init)`: 6 `chunk.set` each", "bulkdataChurnBatch", new String[] {"fraction", "1"},
                churn, noAshleyAtN, new String[] {"fraction", "1"}, "round", 2, "≥ 2", true));
        w.add(new Workload("churn at n, one by one", "`remove(h)`, `add()` + 6 `set`",
                "bulkdataChurn", new String[] {"fraction", "1"}, churn, noAshleyAtN,
                new String[] {"fraction", "1"}, "round", AHEAD, "> 1", false));
        w.add(new Workload("churn at n/10, in batches", "`removeAll(half)`, `addAll(half, init)`: 6 `chunk.set` each",
                "bulkdataChurnBatch", new String[] {"fraction", "10"}, churnSmall, noReasons,
                new String[] {"fraction", "10"}, "round", 2, "≥ 2", true));
        w.add(new Workload("churn at n/10, one by one", "`remove(h)`, `add()` + 6 `set`", "bulkdataChurn",
                new String[] {"fraction", "10"}, churnSmall, noReasons, new String[] {"fraction", "10"}, "round",
                AHEAD, "> 1", false));
        String[] sparse = {"artemisSparse", "dominionSparse", "fleksSparse", "ashleySparse"};
        w.add(new Workload("sparse: 10 % of the entities have a Velocity, update those",
                "entity table, 2 `ComponentTable`s in a `Group`, `forEachRun`, chunk columns", "bulkdataSparseGroup",
                none, sparse, noReasons, none, "match", AHEAD, "> 1", false));
        w.add(new Workload("sparse, through a join", "entity table, 2 `ComponentTable`s, `Join.forEachRun`, chunk columns",
                "bulkdataSparseJoin", none, sparse, noReasons, none, "match", AHEAD, "> 1", false));
        return w;
    }

    /** A result of the class at the report's n with the given other parameters, or null. */
    private static Report.Result find(List<Report.Result> results, String method, String[] params) {
        String[] kv = new String[params.length + 2];
        kv[0] = "n";
        kv[1] = Report.N;
        System.arraycopy(params, 0, kv, 2, params.length);
        return Report.find(results, CLASS + method, kv);
    }

    /**
     * The Ashley churn state has no fraction parameter: it always runs at n/10. Its row at
     * fraction 10 is the one without the parameter.
     */
    private static String[] peerParams(Workload w, int peer) {
        return w.peers()[peer] != null && w.peers()[peer].equals("ashleyChurn") ? new String[0] : w.peerParams();
    }

    /** The workload's time of a result in its unit: ns per entity or per match, or ms per round. */
    private static double value(Workload w, Report.Result r) {
        int n = Integer.parseInt(Report.N);
        double ns = Report.nanos(r);
        return switch (w.per()) {
            case "round" -> ns / 1e6;
            case "match" -> ns / EcsSpec.moving(n);
            default -> ns / n;
        };
    }

    private static String unit(Workload w) {
        return switch (w.per()) {
            case "round" -> "ms per round";
            case "match" -> "ns per match";
            default -> "ns per entity";
        };
    }

    /** One computed row: bulkdata's result, each peer's (or null), the fastest peer's index (or -1). */
    record Row(Workload workload, Report.Result bulk, Report.Result[] peers, int fastest) {
    }

    static List<Row> rows(List<Report.Result> results) {
        List<Row> rows = new ArrayList<>();
        for (Workload w : workloads()) {
            Report.Result bulk = find(results, w.bulk(), w.params());
            Report.Result[] peers = new Report.Result[PEERS.length];
            int fastest = -1;
            for (int p = 0; p < PEERS.length; p++) {
                peers[p] = w.peers()[p] == null ? null : find(results, w.peers()[p], peerParams(w, p));
                if (peers[p] != null && (fastest < 0 || Report.nanos(peers[p]) < Report.nanos(peers[fastest]))) {
                    fastest = p;
                }
            }
            rows.add(new Row(w, bulk, peers, fastest));
        }
        return rows;
    }

    /** The target's cell of a row: judged against its fastest peer ({@link Forks#judge}). */
    static String target(Row r) {
        Workload w = r.workload();
        if (r.bulk() == null || r.fastest() < 0) {
            return w.targetLabel() + ": not in this run";
        }
        Report.Result fastest = r.peers()[r.fastest()];
        return Forks.ratio(fastest, r.bulk(), 1).judge(true, w.target(), Report.Ratio.of(fastest, r.bulk()),
                w.targetLabel());
    }

    static String section(String jmhJson, List<Report.Result> results, String memoryJson, String machine) {
        StringBuilder md = new StringBuilder("\n## Against the JVM entity libraries\n\n");
        int n = Integer.parseInt(Report.N);
        md.append(String.format(Locale.ROOT, "%,d entities with a Position and a Velocity (six floats) in bulkdata and"
                + " in the entity-component libraries a Java or Kotlin game programmer would pick instead: ", n));
        for (int p = 0; p < PEERS.length; p++) {
            md.append(p == 0 ? "" : p == PEERS.length - 1 ? " and " : ", ").append(PEERS[p][0]);
        }
        md.append(", each used as its own documentation recommends for speed (`EcsPeersBenchmark`; how each is used:"
                + " [docs/benchmarks.md](../../docs/benchmarks.md#against-the-jvm-entity-libraries)). Each peer's cell is"
                + " its time over bulkdata's (higher: bulkdata ahead), ± the error of the ratio; the target is judged"
                + " against the fastest peer of the row.\n\n");
        List<Row> rows = rows(results);
        boolean any = rows.stream().anyMatch(r -> r.bulk() != null);
        md.append("- Run: ").append(runLine(jmhJson)).append("; ").append(machine).append(".\n\n");
        if (!any) {
            md.append("Not in this run: the JMH JSON has no `EcsPeersBenchmark` rows.\n\n");
        }
        md.append("| workload | bulkdata API path | bulkdata | unit |");
        for (String[] peer : PEERS) {
            md.append(' ').append(peer[0]).append(" |");
        }
        md.append(" fastest peer: forks median [min–max] | target |\n|---|---|---:|---|");
        md.append("---:|".repeat(PEERS.length)).append("---:|---|\n");
        List<String> notes = new ArrayList<>();
        for (Row r : rows) {
            Workload w = r.workload();
            md.append("| ").append(w.label()).append(" | ").append(w.bulkPath()).append(" | ")
                    .append(r.bulk() == null ? "not in this run" : Peers.cell(value(w, r.bulk()))).append(" | ")
                    .append(unit(w)).append(" |");
            for (int p = 0; p < PEERS.length; p++) {
                String reason = w.reasons()[p];
                String cell;
                if (w.peers()[p] == null) {
                    cell = reason;
                } else if (r.peers()[p] == null || r.bulk() == null) {
                    cell = "not in this run";
                } else {
                    cell = Report.Ratio.of(r.peers()[p], r.bulk()).format() + "×";
                    if (reason != null) {
                        cell += note(notes, reason);
                    }
                }
                md.append(' ').append(cell).append(" |");
            }
            String forks = r.bulk() == null || r.fastest() < 0 ? "–"
                    : PEERS[r.fastest()][0] + ": " + Forks.ratio(r.peers()[r.fastest()], r.bulk(), 1).format();
            md.append(' ').append(forks).append(" | ").append(target(r)).append(" |\n");
        }
        memoryRow(md, memoryJson);
        for (int i = 0; i < notes.size(); i++) {
            md.append(i == 0 ? "\n" : "").append("<sup>").append(i + 1).append("</sup> ").append(notes.get(i))
                    .append(".\n");
        }
        floor(md, results, n);
        md.append("\n- **Rows.** bulkdata's cell is its time in the row's unit (per entity: the pass's time over n;"
                + " per match: over the sparse world's entities with a Velocity; churn: one call). Each peer's cell is"
                + " the peer's time over bulkdata's: 2.00× means bulkdata takes half the peer's time, below 1 the peer"
                + " is ahead. Targets: bulkdata ahead of the fastest peer (\"> 1\") on every workload, at least"
                + " twice as fast (\"≥ 2\") on the bulk passes (batch create, the update through chunk columns,"
                + " churn), memory at most half the leanest peer's (\"≤ 0.5\").\n");
        md.append("- **Memory** is `memory.json`'s `ECS: ...` rows: bulkdata's table's native bytes plus its heap"
                + " graph, each peer's world's heap graph (JOL), after creating the entities as the benchmarks do.\n");
        md.append("- **Methods**: `EcsPeersBenchmark.<library><Workload>`, e.g. `bulkdataUpdateColumns`,"
                + " `artemisUpdate`; bulkdata's API paths are in `BulkdataEcs`, each peer's use in `ArtemisEcs`,"
                + " `DominionEcs`, `FleksEcs` (Kotlin) and `AshleyEcs`; `EcsPeersTest` checks that every library"
                + " computes the same results on every workload.\n");
        return md.toString();
    }

    private static String note(List<String> notes, String text) {
        int i = notes.indexOf(text);
        if (i < 0) {
            notes.add(text);
            i = notes.size() - 1;
        }
        return "<sup>" + (i + 1) + "</sup>";
    }

    /** The memory row: bytes per entity, each peer's over bulkdata's, the target against the leanest peer. */
    private static void memoryRow(StringBuilder md, String memoryJson) {
        Double bulk = memoryJson == null ? null : Report.bytesPerRecord(memoryJson, MEMORY[0], 24);
        md.append("| memory per entity after create | `BulkTable`, native + heap | ")
                .append(bulk == null ? "not in this run" : Peers.cell(bulk)).append(" | bytes |");
        double leanest = Double.NaN;
        String leanestName = null;
        for (int p = 0; p < PEERS.length; p++) {
            Double peer = memoryJson == null ? null : Report.bytesPerRecord(memoryJson, MEMORY[p + 1], 24);
            md.append(' ').append(peer == null || bulk == null ? "not in this run"
                    : String.format(Locale.ROOT, "%.2f× (%s B)", peer / bulk, Peers.cell(peer))).append(" |");
            if (peer != null && (Double.isNaN(leanest) || peer < leanest)) {
                leanest = peer;
                leanestName = PEERS[p][0];
            }
        }
        md.append(" – | ");
        if (bulk == null || leanestName == null) {
            md.append("≤ 0.5: not in this run");
        } else {
            md.append(String.format(Locale.ROOT, "≤ 0.5 (%s: %.2f) %s", leanestName, bulk / leanest,
                    bulk / leanest <= 0.5 ? "✅" : "❌"));
        }
        md.append(" |\n");
    }

    /** The update's no-library floor, beside the chunk-column update, when the run has it. */
    private static void floor(StringBuilder md, List<Report.Result> results, int n) {
        Report.Result floor = find(results, "floorUpdate", new String[0]);
        Report.Result columns = find(results, "bulkdataUpdateColumns", new String[0]);
        if (floor == null) {
            return;
        }
        md.append(String.format(Locale.ROOT, "%nThe update with no library over the same 12 KiB blocks of 512"
                + " records (`floorUpdate`: no live bits, no checks) takes %s ns per entity", Peers.cell(Report.nanos(floor) / n)));
        if (columns != null) {
            md.append("; the chunk-column update takes ").append(Report.Ratio.of(columns, floor).format())
                    .append(" × its time");
        }
        md.append(".\n");
        Report.Result readFloor = find(results, "floorReadRandom", new String[0]);
        Report.Result read = find(results, "bulkdataReadRandom", new String[0]);
        if (readFloor != null) {
            md.append(String.format(Locale.ROOT, "%nThe random read with no library over the table's lookup layout"
                    + " (`floorReadRandom`: a meta word per slot in one range, 16 KiB blocks in another, the handle's"
                    + " tag and generation checked) takes %s ns per entity", Peers.cell(Report.nanos(readFloor) / n)));
            if (read != null) {
                md.append("; `bulkdataReadRandom` takes ").append(Report.Ratio.of(read, readFloor).format())
                        .append(" × its time");
            }
            md.append(".\n");
        }
        Report.Result churnFloor = find(results, "floorChurn", new String[] {"fraction", "1"});
        Report.Result churn = find(results, "bulkdataChurn", new String[] {"fraction", "1"});
        if (churnFloor != null) {
            md.append(String.format(Locale.ROOT, "%nThe one-by-one churn at n with no library over the table's layout"
                    + " (`floorChurn`: a slot map with a meta word per slot, live and free bits, the next free slot at"
                    + " or after a sweeping cursor, every handle checked) takes %s ms per round",
                    Peers.cell(Report.nanos(churnFloor) / 1e6)));
            if (churn != null) {
                md.append("; `bulkdataChurn` takes ").append(Report.Ratio.of(churn, churnFloor).format())
                        .append(" × its time");
            }
            md.append(".\n");
        }
        sparseFloor(md, results, "floorSparseGroup", "bulkdataSparseGroup",
                "the group's layout (rows 0..k of both tables in lockstep)", n);
        sparseFloor(md, results, "floorSparseJoin", "bulkdataSparseJoin",
                "the join's layout (an `int[]` sparse lookup per match)", n);
    }

    /** A sparse update's no-library floor, per match, beside bulkdata's path over that layout, when the run has it. */
    private static void sparseFloor(StringBuilder md, List<Report.Result> results, String floorMethod,
                                    String bulkMethod, String layout, int n) {
        Report.Result floor = find(results, floorMethod, new String[0]);
        if (floor == null) {
            return;
        }
        Report.Result bulk = find(results, bulkMethod, new String[0]);
        md.append(String.format(Locale.ROOT, "%nThe sparse update with no library over %s (`%s`: no checks) takes"
                + " %s ns per match", layout, floorMethod, Peers.cell(Report.nanos(floor) / EcsSpec.moving(n))));
        if (bulk != null) {
            md.append("; `").append(bulkMethod).append("` takes ").append(Report.Ratio.of(bulk, floor).format())
                    .append(" × its time");
        }
        md.append(".\n");
    }

    /** JDK, JVM flags, forks and iterations of the class's rows, as the JSON records them. */
    static String runLine(String jmhJson) {
        Set<String> jvmArgs = new LinkedHashSet<>();
        Set<String> forks = new LinkedHashSet<>();
        String jdk = null;
        String iterations = null;
        for (JsonElement e : JsonParser.parseString(jmhJson).getAsJsonArray()) {
            JsonObject o = e.getAsJsonObject();
            if (!o.get("benchmark").getAsString().startsWith(Report.PKG + CLASS)) {
                continue;
            }
            if (o.has("jvmArgs")) {
                List<String> args = new ArrayList<>();
                o.getAsJsonArray("jvmArgs").forEach(a -> args.add(a.getAsString()));
                jvmArgs.add(String.join(" ", args));
            }
            forks.add(o.get("forks").getAsString());
            jdk = o.has("vmName") ? o.get("vmName").getAsString() + " " + o.get("jdkVersion").getAsString() : jdk;
            iterations = String.format(Locale.ROOT, "warm-up %d × %s, measurement %d × %s",
                    o.get("warmupIterations").getAsInt(), o.get("warmupTime").getAsString(),
                    o.get("measurementIterations").getAsInt(), o.get("measurementTime").getAsString());
        }
        if (jdk == null) {
            return "not in this run";
        }
        return String.format(Locale.ROOT, "%s, JVM flags `%s`, %s fork(s), %s", jdk,
                jvmArgs.isEmpty() ? "(none)" : String.join("` or `", jvmArgs), String.join(" or ", forks), iterations);
    }

    /**
     * The README's row: on how many workloads bulkdata is ahead of the fastest peer, and the
     * closest one; "not in this run" without the rows.
     */
    static String summaryRow(List<Report.Result> results) {
        int ahead = 0;
        int measured = 0;
        Row closest = null;
        double closestRatio = Double.NaN;
        for (Row r : rows(results)) {
            if (r.bulk() == null || r.fastest() < 0) {
                continue;
            }
            measured++;
            double ratio = Report.nanos(r.peers()[r.fastest()]) / Report.nanos(r.bulk());
            if (ratio > 1) {
                ahead++;
            }
            if (closest == null || ratio < closestRatio) {
                closest = r;
                closestRatio = ratio;
            }
        }
        StringBuilder row = new StringBuilder("| entity workloads (create, update, read, churn, sparse)"
                + " | BulkTable; ComponentTables in a Group | fastest of artemis-odb, Dominion, Fleks, Ashley per workload | ");
        if (measured == 0) {
            return row.append("not in this run | ahead of each, per workload |\n").toString();
        }
        Report.Result peer = closest.peers()[closest.fastest()];
        return row.append(String.format(Locale.ROOT, "ahead on %d of %d; closest: %s, %s × faster than %s"
                + " | ahead of each, per workload |%n", ahead,
                measured, closest.workload().label().replace("|", "\\|"),
                Report.Ratio.of(peer, closest.bulk()).format(), PEERS[closest.fastest()][0])).toString();
    }
}
