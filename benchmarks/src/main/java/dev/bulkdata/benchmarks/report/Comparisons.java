package dev.bulkdata.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

import static dev.bulkdata.benchmarks.report.Report.N;

/**
 * The rows of the report's main table: which JMH benchmark is compared with which, on which
 * workload and parameters, and the target the project set for the ratio (NaN: none).
 */
final class Comparisons {
    private Comparisons() {
    }

    /**
     * A comparison: bulkdata subject against a peer. {@code speedup} rows report peer time /
     * bulkdata time (higher is better, target is a minimum); the others bulkdata / peer
     * (lower is better, target is a maximum).
     */
    record Comparison(String workload, String subject, String bulk, String peerName, String peer,
                      boolean speedup, double target, String[] params) {
    }

    /** {@return every comparison of the main table, in its order} */
    static List<Comparison> all() {
        List<Comparison> c = new ArrayList<>();
        String[] n = {"n", N};
        for (String[] subject : new String[][] {
                {"BulkTable SOA", "IterateBenchmark.bulkSoaColumns"},
                {"BulkTable SOA, typed slots", "IterateBenchmark.bulkSoaSlots"},
                {"BulkTable AOS", "IterateBenchmark.bulkAos"},
                {"PackedTable SOA", "IterateBenchmark.packedSoaColumns"},
                {"Kotlin typed", "IterateBenchmark.kotlin"}}) {
            boolean columns = !subject[0].contains("typed");
            c.add(new Comparison("iterate", subject[0], subject[1], "float[]", "IterateBenchmark.floatArray", false,
                    columns ? 1.1 : Double.NaN, n));
            c.add(new Comparison("iterate", subject[0], subject[1], "ArrayList", "IterateBenchmark.arrayList", true, 2, n));
        }
        // Per-record access against the column loop over the same table.
        c.add(new Comparison("iterate", "BulkTable SOA, typed slots", "IterateBenchmark.bulkSoaSlots", "column loop",
                "IterateBenchmark.bulkSoaColumns", false, 1.5, n));
        c.add(new Comparison("iterate", "BulkTable SOA, typed slots by nextLive", "IterateBenchmark.bulkSoaNextLive",
                "column loop", "IterateBenchmark.bulkSoaColumns", false, Double.NaN, n));
        c.add(new Comparison("iterate", "Kotlin typed", "IterateBenchmark.kotlin", "column loop",
                "IterateBenchmark.bulkSoaColumns", false, 2, n));
        for (String[] subject : new String[][] {
                {"BulkTable", "LookupBenchmark.bulk", "6", "3"},
                {"BulkTable AOS", "LookupBenchmark.bulkAos", "6", "3"},
                {"PackedTable", "LookupBenchmark.packed", "NaN", "2"},
                {"Kotlin typed", "LookupBenchmark.kotlin", "6", "3"}}) {
            c.add(new Comparison("lookup", subject[0], subject[1], "float[]", "LookupBenchmark.floatArray", false, Double.NaN, n));
            c.add(new Comparison("lookup", subject[0], subject[1], "HashMap", "LookupBenchmark.hashMap", true,
                    Double.parseDouble(subject[2]), n));
            c.add(new Comparison("lookup", subject[0], subject[1], "fastutil", "LookupBenchmark.fastutil", true,
                    Double.parseDouble(subject[3]), n));
        }
        c.add(new Comparison("lookup", "BulkTable", "LookupBenchmark.bulk", "floor: meta word + float[], no library",
                "LookupBenchmark.floorArrays", false, Double.NaN, n));
        c.add(new Comparison("lookup", "BulkTable", "LookupBenchmark.bulk", "floor: meta word + 16 KiB blocks, no library",
                "LookupBenchmark.floorBlocks", false, Double.NaN, n));
        c.add(new Comparison("lookup", "BulkTable", "LookupBenchmark.bulk", "floor: its layout (meta words and blocks in reserved ranges), no library",
                "LookupBenchmark.floorRegionMeta", false, Double.NaN, n));
        c.add(new Comparison("lookup", "PackedTable", "LookupBenchmark.packed", "floor: its layout (8-byte entries, then the row), no library",
                "LookupBenchmark.floorPacked", false, Double.NaN, n));
        c.add(new Comparison("set by handle", "BulkTable after markVersion (stamps kept)", "LookupBenchmark.bulkSetTracked",
                "BulkTable, no version marked", "LookupBenchmark.bulkSet", false, Double.NaN, n));
        for (String[] subject : new String[][] {{"BulkTable", "LookupBenchmark.staleBulk"}, {"PackedTable", "LookupBenchmark.stalePacked"}}) {
            c.add(new Comparison("stale lookup", subject[0], subject[1], "HashMap", "LookupBenchmark.staleHashMap", true, Double.NaN, n));
            c.add(new Comparison("stale lookup", subject[0], subject[1], "fastutil", "LookupBenchmark.staleFastutil", true, Double.NaN, n));
        }
        c.add(new Comparison("pass removing 10 % (p += v*dt, t -= dt)", "BulkTable SOA, chunk.removeLater, applied at the pass's end",
                "QueuedChangesBenchmark.passQueuingRemovals", "the pass removing nothing, then removeAll",
                "QueuedChangesBenchmark.passThenRemoveAll", false, 1.3, n));
        c.add(new Comparison("pass removing 10 % (p += v*dt, t -= dt)", "BulkTable SOA, chunk.removeLater, applied at the pass's end",
                "QueuedChangesBenchmark.passQueuingRemovals", "handles collected in the pass, removeAll after",
                "QueuedChangesBenchmark.passCollectingHandles", false, Double.NaN, n));
        c.add(new Comparison("pass removing 10 % (p += v*dt, t -= dt)", "BulkTable SOA, forEach with typed slots, chunk.removeLater",
                "QueuedChangesBenchmark.forEachQueuingRemovals", "the column pass removing nothing, then removeAll",
                "QueuedChangesBenchmark.passThenRemoveAll", false, Double.NaN, n));
        c.add(new Comparison("create", "BulkTable, one by one into a cleared table (the clear included)",
                "ChangeBenchmark.createBulkRefill", "into a new table", "ChangeBenchmark.createBulk", false, 1.0, n));
        c.add(new Comparison("batch create (addAll)", "BulkTable, new and empty", "ChangeBenchmark.addAllFresh",
                "floor: the same writes into touched memory, no library", "ChangeBenchmark.floorAddAll", false, 2, n));
        c.add(new Comparison("batch create (addAll)", "BulkTable, just cleared (the clear included)",
                "ChangeBenchmark.addAllCleared", "floor: the same writes into touched memory, no library", "ChangeBenchmark.floorAddAll", false, 2, n));
        for (String[] subject : new String[][] {{"BulkTable", "ChangeBenchmark.createBulk"},
                {"BulkTable AOS", "ChangeBenchmark.createBulkAos"},
                {"BulkTable, cleared and refilled (keeps its blocks)", "ChangeBenchmark.createBulkRefill"},
                {"PackedTable", "ChangeBenchmark.createPacked"},
                {"Kotlin typed", "ChangeBenchmark.createKotlin"}}) {
            c.add(new Comparison("create", subject[0], subject[1], "HashMap", "ChangeBenchmark.createHashMap", true, 20, n));
            c.add(new Comparison("create", subject[0], subject[1], "fastutil", "ChangeBenchmark.createFastutil", true, Double.NaN, n));
            c.add(new Comparison("create", subject[0], subject[1], "ArrayList", "ChangeBenchmark.createArrayList", true, Double.NaN, n));
        }
        for (String[] subject : new String[][] {{"BulkTable SOA", "ChangeBenchmark.churnBulk"},
                {"BulkTable AOS", "ChangeBenchmark.churnBulkAos"},
                {"BulkTable SOA, FIFO reuse", "ChangeBenchmark.churnBulkFifo"},
                {"BulkTable SOA, removals sorted by slot", "ChangeBenchmark.churnBulkBySlot"},
                {"BulkTable SOA, removeAll batch", "ChangeBenchmark.churnBulkRemoveAll"}, {"PackedTable", "ChangeBenchmark.churnPacked"},
                {"Kotlin typed", "ChangeBenchmark.churnKotlin"}}) {
            c.add(new Comparison("churn (half)", subject[0], subject[1], "fastutil", "ChangeBenchmark.churnFastutil", true, 2, n));
            c.add(new Comparison("churn (half)", subject[0], subject[1], "HashMap", "ChangeBenchmark.churnHashMap", true, Double.NaN, n));
        }
        String[] none = {};
        for (String[] subject : new String[][] {{"BulkTable", "FrameBenchmark.bulk"}, {"PackedTable", "FrameBenchmark.packed"}}) {
            c.add(new Comparison("frame (5 % of 100k + pass)", subject[0], subject[1], "HashMap", "FrameBenchmark.hashMap", true, 3, none));
            c.add(new Comparison("frame (5 % of 100k + pass)", subject[0], subject[1], "fastutil", "FrameBenchmark.fastutil", true, Double.NaN, none));
        }
        for (String[] subject : new String[][] {{"BulkTable SOA", "UpdateBenchmark.bulkSoa"}, {"BulkTable AOS", "UpdateBenchmark.bulkAos"},
                {"PackedTable SOA", "UpdateBenchmark.packedSoa"}}) {
            c.add(new Comparison("update p += v*dt", subject[0], subject[1], "float[]", "UpdateBenchmark.floatArray", false, 2, n));
            c.add(new Comparison("update p += v*dt", subject[0], subject[1], "ArrayList", "UpdateBenchmark.arrayList", true, Double.NaN, n));
        }
        c.add(new Comparison("update p += v*dt", "Kotlin typed forEach", "UpdateBenchmark.kotlin", "float[]",
                "UpdateBenchmark.floatArray", false, Double.NaN, n));
        c.add(new Comparison("update p += v*dt", "Kotlin typed forEach", "UpdateBenchmark.kotlin", "column loop",
                "UpdateBenchmark.bulkSoa", false, 2, n));
        c.add(new Comparison("update p += v*dt", "Kotlin typed forEach", "UpdateBenchmark.kotlin",
                "column loop, same chunks", "UpdateBenchmark.kotlinColumns", false, 1.3, n));
        // The Kotlin paths of EcsPeersBenchmark's update (six floats, SOA): each at least 2x Fleks on
        // one thread, the typed chunk loop (views, forEachLive) within 1.3x of the Java chunk loop.
        for (String[] subject : new String[][] {{"Kotlin forEach", "EcsPeersBenchmark.kotlinUpdateForEach"},
                {"Kotlin chunk views (forEachChunk)", "EcsPeersBenchmark.kotlinUpdateChunks"},
                {"Kotlin chunk views (processChunks, 1 thread)", "EcsPeersBenchmark.kotlinUpdateCoroutines"}}) {
            c.add(new Comparison("update p += v*dt, entities", subject[0], subject[1], "Fleks 2.12",
                    "EcsPeersBenchmark.fleksUpdate", true, 2, n));
            if (subject[0].startsWith("Kotlin chunk views")) {
                c.add(new Comparison("update p += v*dt, entities", subject[0], subject[1], "Java chunk loop",
                        "EcsPeersBenchmark.bulkdataUpdateColumns", false, 1.3, n));
            }
        }
        // The kernels on the machine's own vectors and with C2 limited to AVX2 (-XX:UseAVX=2).
        for (String[] isa : new String[][] {{"KernelBenchmark.", ""}, {"KernelAvx2Benchmark.", " (AVX2)"}}) {
            String k = isa[0];
            for (String[] subject : new String[][] {{"BulkTable SOA, Kernels.axpy (table)", "updateBulkTable"},
                    {"BulkTable SOA, Kernels.axpy (chunks)", "updateBulkChunks"},
                    {"PackedTable SOA, Kernels.axpy (chunks)", "updatePackedChunks"}}) {
                c.add(new Comparison("update p += v*dt, SIMD kernels" + isa[1], subject[0], k + subject[1], "float[]",
                        k + "updateFloatArray", false, 1.5, n));
            }
            c.add(new Comparison("update p += v*dt, SIMD kernels" + isa[1], "BulkTable SOA, Kernels.axpy (chunks)",
                    k + "updateBulkChunks", "floor: the same vector loop over 16 KiB blocks, no library",
                    k + "updateFloorBlocks", false, Double.NaN, n));
            c.add(new Comparison("update p += v*dt, SIMD kernels" + isa[1], "floor: vector loop over 16 KiB blocks",
                    k + "updateFloorBlocks", "float[]", k + "updateFloatArray", false, Double.NaN, n));
            for (String kernel : new String[] {"fill", "scale", "add", "axpy", "sum", "min", "max"}) {
                c.add(new Comparison(kernel + ", SIMD kernel" + isa[1], "BulkTable SOA, Kernels." + kernel + " (table)",
                        k + kernel + "BulkTable", "float[]", k + kernel + "FloatArray", false, Double.NaN, n));
            }
            c.add(new Comparison("min of a long field, SIMD kernel" + isa[1], "BulkTable SOA, Kernels.min (table)",
                    k + "minLongBulkTable", "long[]", k + "minLongArray", false, Double.NaN, n));
            c.add(new Comparison("count t < 500, SIMD kernels" + isa[1], "BulkTable SOA, Kernels.lessThan",
                    k + "expireBulkChunks", "float[]", k + "expireFloatArray", false, Double.NaN, n));
        }
        c.add(new Comparison("SQL GROUP BY in DuckDB", "Arrow export + query", "ArrowBenchmark.exportAndQuery",
                "DuckDB's own table, query only", "ArrowBenchmark.duckDbTableQuery", false, 1.5, n));
        c.add(new Comparison("SQL GROUP BY in DuckDB", "Arrow export + query", "ArrowBenchmark.exportAndQuery",
                "DuckDB's own table, appender included", "ArrowBenchmark.duckDbAppendAndQuery", true, 10, n));
        c.add(new Comparison("SQL GROUP BY in DuckDB", "Arrow export + query", "ArrowBenchmark.exportAndQuery",
                "Arrow Java VectorSchemaRoot copy, copy included", "ArrowBenchmark.vectorSchemaRootCopyAndQuery", true,
                Double.NaN, n));
        c.add(new Comparison("SQL GROUP BY in DuckDB", "Arrow export + query", "ArrowBenchmark.exportAndQuery",
                "the aggregate in a Java loop", "ArrowBenchmark.javaLoop", false, Double.NaN, n));
        c.add(new Comparison("Arrow export (1 % of chunks changed)", "incremental (ChangeFilter)",
                "ArrowBenchmark.incrementalExport", "full export", "ArrowBenchmark.fullExport", true, 20, n));
        c.add(new Comparison("pass over changed chunks (1 % written)", "BulkTable, ChangeFilter", "ChangeVersionBenchmark.filteredPass",
                "full pass", "ChangeVersionBenchmark.fullPass", true, 20, n));
        for (String percent : new String[] {"100", "50", "1"}) {
            String[] np = {"n", N, "percent", percent};
            String workload = "join A and B (B on " + percent + " %)";
            c.add(new Comparison(workload, "ComponentTable join", "JoinBenchmark.bulk", "HashMap", "JoinBenchmark.hashMap", true, Double.NaN, np));
            c.add(new Comparison(workload, "ComponentTable join", "JoinBenchmark.bulk", "fastutil", "JoinBenchmark.fastutil", true, Double.NaN, np));
        }
        for (String[] subject : new String[][] {{"BulkTable", "ChangeBenchmark.clearBulk"},
                {"BulkTable AOS", "ChangeBenchmark.clearBulkAos"}, {"PackedTable", "ChangeBenchmark.clearPacked"},
                {"Kotlin typed", "ChangeBenchmark.clearKotlin"}}) {
            c.add(new Comparison("clear", subject[0], subject[1], "HashMap", "ChangeBenchmark.clearHashMap", true, Double.NaN, n));
            c.add(new Comparison("clear", subject[0], subject[1], "ArrayList", "ChangeBenchmark.clearArrayList", true, Double.NaN, n));
        }
        // reset() against clear() of the same table: the purge is O(blocks), the clear O(slots).
        c.add(new Comparison("reset", "BulkTable, reset()", "ChangeBenchmark.resetBulk", "clear()",
                "ChangeBenchmark.clearBulk", true, Double.NaN, n));
        c.add(new Comparison("reset", "PackedTable, reset()", "ChangeBenchmark.resetPacked", "clear()",
                "ChangeBenchmark.clearPacked", true, Double.NaN, n));
        String[] million = {"n", N};
        c.add(new Comparison("iterate", "BulkTable SOA, mapped (paged in)", "MappedBenchmark.iterateMapped",
                "BulkTable SOA in memory", "IterateBenchmark.bulkSoaColumns", false, 1.1, million));
        c.add(new Comparison("checkpoint, 1 % of records changed", "checkpoint() (forced to disk)",
                "MappedBenchmark.checkpointAfterOnePercent", "Snapshots.save of the whole table (not forced)",
                "SnapshotBenchmark.saveBulk", true, Double.NaN, million));
        c.add(new Comparison("checkpoint, 1 % of chunks changed", "checkpoint() (forced to disk)",
                "MappedBenchmark.checkpointAfterOnePercentOfChunks", "Snapshots.save of the whole table (not forced)",
                "SnapshotBenchmark.saveBulk", true, Double.NaN, million));
        c.add(new Comparison("checkpoint, 1 % of chunks changed, block checksums", "checkpoint() with blockChecksums",
                "MappedBenchmark.checkpointAfterOnePercentOfChunksSummed", "checkpoint() without",
                "MappedBenchmark.checkpointAfterOnePercentOfChunks", false, Double.NaN, million));
        c.add(new Comparison("snapshot save", "Snapshots.save", "SnapshotBenchmark.saveBulk", "raw FileChannel write",
                "SnapshotBenchmark.rawWrite", false, 2, million));
        c.add(new Comparison("snapshot save", "Snapshots.save", "SnapshotBenchmark.saveBulk", "ObjectOutputStream",
                "SnapshotBenchmark.objectOutputStream", true, 10, million));
        c.add(new Comparison("snapshot save", "Snapshots.save", "SnapshotBenchmark.saveBulk", "DataOutputStream",
                "SnapshotBenchmark.dataOutputStream", true, Double.NaN, million));
        c.add(new Comparison("snapshot load", "Snapshots.load", "SnapshotBenchmark.loadBulk", "raw FileChannel read",
                "SnapshotBenchmark.rawRead", false, 2, million));
        c.add(new Comparison("snapshot load", "Snapshots.load", "SnapshotBenchmark.loadBulk",
                "raw FileChannel read into newly allocated memory", "SnapshotBenchmark.rawReadIntoNewMemory", false,
                Double.NaN, million));
        c.add(new Comparison("snapshot load", "Snapshots.load", "SnapshotBenchmark.loadBulk", "ObjectInputStream",
                "SnapshotBenchmark.objectInputStream", true, 10, million));
        c.add(new Comparison("snapshot load", "Snapshots.load", "SnapshotBenchmark.loadBulk", "DataInputStream",
                "SnapshotBenchmark.dataInputStream", true, Double.NaN, million));
        return c;
    }
}
