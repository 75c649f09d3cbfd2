package dev.bulkdata.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The sparse update of {@link EcsPeersBenchmark}, one variant per JVM, timed by the thread's
 * CPU time per pass (best and median, per match), which keeps most of a loaded machine's noise
 * out (benchmarks/NOTES.md, the sparse update). Not a JMH benchmark:
 * {@code java -Xmx8g --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar
 * dev.bulkdata.benchmarks.SparseCpuProbe group 300}, the variant one of {@code group},
 * {@code join}, {@code floorGroup}, {@code floorJoin}, {@code dominion}, {@code artemis},
 * {@code fleks}, then the number of timed passes (a third as many warm up first).
 */
public final class SparseCpuProbe {
    private SparseCpuProbe() {
    }

    /**
     * Runs one variant and prints its line.
     *
     * @param a the variant, then optionally the number of timed passes
     */
    public static void main(String[] a) {
        String variant = a[0];
        int n = 1_000_000;
        int passes = Integer.parseInt(a.length > 1 ? a[1] : "300");
        int moving = EcsSpec.moving(n);
        Runnable pass;
        switch (variant) {
            case "group" -> { BulkdataEcs.Sparse w = new BulkdataEcs.Sparse(n, true); pass = w::updateGroup; }
            case "join" -> { BulkdataEcs.Sparse w = new BulkdataEcs.Sparse(n); pass = w::updateJoin; }
            case "floorGroup" -> { BulkdataEcs.SparseFloor f = new BulkdataEcs.SparseFloor(n, true); pass = f::updateGroup; }
            case "floorJoin" -> { BulkdataEcs.SparseFloor f = new BulkdataEcs.SparseFloor(n, false); pass = f::updateJoin; }
            case "dominion" -> { DominionEcs d = new DominionEcs(n); d.create(n, true); pass = d::update; }
            case "artemis" -> { ArtemisEcs x = new ArtemisEcs(n); x.create(n, true); pass = x::update; }
            case "fleks" -> { FleksEcs x = new FleksEcs(n); x.create(n, true); pass = x::update; }
            default -> throw new IllegalArgumentException(variant);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < passes / 3; i++) {
            pass.run();
        }
        long best = Long.MAX_VALUE;
        long[] all = new long[passes];
        for (int i = 0; i < passes; i++) {
            long t0 = mx.getCurrentThreadCpuTime();
            pass.run();
            all[i] = mx.getCurrentThreadCpuTime() - t0;
            best = Math.min(best, all[i]);
        }
        java.util.Arrays.sort(all);
        System.out.printf("%-10s best %6.2f  median %6.2f ns/match (CPU time, %d passes)%n", variant,
                best / (double) moving, all[passes / 2] / (double) moving, passes);
    }
}
