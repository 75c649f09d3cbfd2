package dev.bulkdata.benchmarks;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The number of records, shared by every subject state of a benchmark. */
@State(Scope.Benchmark)
public class Size {
    /**
     * Records per subject: 1M, the size the report's tables compare; another with JMH's
     * {@code -p n=...} (the smoke pass in {@code mvn verify} runs 10,000).
     */
    @Param({"1000000"})
    public int n;
}
