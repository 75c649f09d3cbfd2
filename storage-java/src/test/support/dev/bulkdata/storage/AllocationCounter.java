package dev.bulkdata.storage;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The per-thread allocation counter every allocation test of this module reads
 * ({@link AllocationTest}, {@link ComponentAllocationTest}), and the machine it counted on.
 *
 * <p>An allocation test passes when a round allocates (next to) nothing; a JVM that cannot
 * count answers -1 before and after, a difference of 0, and such a test would pass without
 * measuring anything. {@link #allocatedBytes()} therefore fails when the counter is
 * unsupported, switched off or answers a negative count, and {@link #requireCounting()} also
 * checks, once, that the counter sees a known allocation. Every failure message ends with
 * {@link #machine()}: allocation-freedom can depend on the instructions C2 has (a Vector API
 * operation the CPU lacks falls back to Java code that allocates).
 */
final class AllocationCounter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** The CPU flags that decide which vector instructions C2 may use (x86, then ARM). */
    private static final List<String> VECTOR_FLAGS = List.of("sse4_2", "avx", "avx2", "fma", "avx512f",
            "avx512dq", "avx512bw", "avx512vl", "asimd", "sve", "sve2");
    /** Keeps the probe's array reachable, so that escape analysis cannot remove it. */
    static volatile Object sink;

    private AllocationCounter() {
    }

    /**
     * Returns the bytes this thread has allocated so far.
     *
     * @return the count, never negative
     * @throws AssertionError if the JVM cannot count this thread's allocations
     */
    static long allocatedBytes() {
        long bytes = THREADS.getCurrentThreadAllocatedBytes();
        if (bytes < 0) {
            throw new AssertionError(cannotCount("the per-thread allocation counter answered " + bytes));
        }
        return bytes;
    }

    /**
     * Fails unless the JVM counts this thread's allocations: accounting supported and on, and a
     * 64 KiB array seen by the counter.
     *
     * @throws AssertionError if it does not
     */
    static void requireCounting() {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            throw new AssertionError(cannotCount("this JVM does not support per-thread allocation accounting"));
        }
        if (!THREADS.isThreadAllocatedMemoryEnabled()) {
            throw new AssertionError(cannotCount("per-thread allocation accounting is switched off"));
        }
        int size = 64 * 1024;
        long before = allocatedBytes();
        sink = new byte[size];
        long counted = allocatedBytes() - before;
        sink = null;
        if (counted < size) {
            throw new AssertionError(cannotCount("a new byte[" + size + "] was counted as " + counted + " bytes"));
        }
    }

    private static String cannotCount(String why) {
        return why + ": an allocation test would measure nothing and pass; " + machine();
    }

    /**
     * Describes what decides which code C2 generates: the architecture, the CPU's model and
     * vector extensions ({@code avx2}, {@code avx512f}, ... from {@code /proc/cpuinfo} where there
     * is one) and the JVM's {@code UseAVX} (and whether a command-line option set it).
     *
     * @return e.g. {@code "machine: os.arch amd64, CPU AMD EPYC 7B13, flags avx avx2, UseAVX=2 (default)"}
     */
    static String machine() {
        StringBuilder sb = new StringBuilder("machine: os.arch ").append(System.getProperty("os.arch"));
        sb.append(", ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs");
        cpuInfo(sb);
        sb.append(", ").append(vmOption("UseAVX"));
        sb.append(", java ").append(System.getProperty("java.vm.version"));
        return sb.toString();
    }

    /** Appends the model name and the vector extensions of the first CPU in /proc/cpuinfo, if any. */
    private static void cpuInfo(StringBuilder sb) {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(cpuinfo)) {
            sb.append(", no /proc/cpuinfo");
            return;
        }
        String model = null;
        String flags = null;
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            for (String line : (Iterable<String>) lines::iterator) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                if (model == null && key.equals("model name")) {
                    model = value;
                } else if (flags == null && (key.equals("flags") || key.equals("features"))) {
                    flags = value;
                }
                if (model != null && flags != null) {
                    break;
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            sb.append(", /proc/cpuinfo unreadable (").append(e.getMessage()).append(')');
            return;
        }
        if (model != null) {
            sb.append(", CPU ").append(model);
        }
        if (flags != null) {
            List<String> vector = new ArrayList<>();
            for (String flag : flags.split("\\s+")) {
                if (VECTOR_FLAGS.contains(flag)) {
                    vector.add(flag);
                }
            }
            sb.append(", vector flags ").append(vector.isEmpty() ? "none" : String.join(" ", vector));
            sb.append(vector.contains("avx512f") ? " (AVX-512)" : vector.contains("avx2") ? " (AVX2, no AVX-512)"
                    : "");
        }
    }

    /** {@return {@code name=value}, and where the value came from: a -XX option or the default} */
    private static String vmOption(String name) {
        String value;
        try {
            var option = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name);
            value = option.getValue() + " (" + option.getOrigin().toString().toLowerCase(Locale.ROOT) + ")";
        } catch (RuntimeException e) {
            value = "unknown (" + e.getClass().getSimpleName() + ")";
        }
        String given = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:" + name + "=")).reduce((a, b) -> b).orElse(null);
        return name + "=" + value + (given == null ? "" : ", JVM started with " + given);
    }
}
