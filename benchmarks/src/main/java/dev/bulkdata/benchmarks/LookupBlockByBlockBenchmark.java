package dev.bulkdata.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * {@link LookupBenchmark}'s lookups by handle in a JVM where the library has no reserved
 * ranges ({@code -Ddev.bulkdata.storage.reserve=false}: as without native access): blocks
 * allocated one by one, slot entries in heap pages.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "-Ddev.bulkdata.storage.reserve=false"})
public class LookupBlockByBlockBenchmark {
    @Benchmark
    public float bulk(LookupBenchmark.Bulk s) {
        float sum = 0;
        for (long h : s.shuffled) {
            sum += s.table.get(h, s.t);
        }
        return sum;
    }

    @Benchmark
    public float packed(LookupBenchmark.Packed s) {
        float sum = 0;
        for (long h : s.shuffled) {
            sum += s.table.get(h, s.t);
        }
        return sum;
    }
}
