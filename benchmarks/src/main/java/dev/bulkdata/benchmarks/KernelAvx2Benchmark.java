package dev.bulkdata.benchmarks;

import org.openjdk.jmh.annotations.Fork;

/**
 * {@link KernelBenchmark} with C2 limited to AVX2 ({@code -XX:UseAVX=2}): on an AVX-512 machine
 * the kernels and the array loops then run the 256-bit code most desktop and cloud CPUs run, in
 * the same suite. Elsewhere the flag changes nothing (a CPU without AVX-512) or is ignored (not
 * x86). The update rows run 3 forks, as in the parent (JMH takes a method's fork count and the
 * class's JVM options).
 */
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED", "-XX:+IgnoreUnrecognizedVMOptions", "-XX:UseAVX=2"})
public class KernelAvx2Benchmark extends KernelBenchmark {
}
