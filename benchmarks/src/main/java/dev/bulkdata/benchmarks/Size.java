package dev.bulkdata.benchmarks;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The number of records, shared by every subject state of a benchmark. */
@State(Scope.Benchmark)
public class Size {
    /** Records per subject: 100k (a game frame) and 1M (bulk data). */
    @Param({"100000", "1000000"})
    public int n;
}
