package dev.bulkdata.storage.vector;

import dev.bulkdata.flagcheck.FlagProgram;
import dev.bulkdata.storage.Chunk;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What docs/simd-kernels.md promises about the flag: on the class path, without
 * {@code --add-modules jdk.incubator.vector} the kernels run their scalar loops and compute
 * the same results (nothing fails); with it they are vectorised. Child JVMs run
 * {@link FlagProgram} both ways.
 */
class WithoutFlagTest {
    @Test
    void thisJvmHasTheFlag() {
        assertTrue(Kernels.vectorized(), "surefire passes --add-modules jdk.incubator.vector");
    }

    /** The avx2 execution runs with {@code -XX:UseAVX=2}: 256-bit vectors, on any x86 CPU with AVX2. */
    @Test
    void vectorBitsAreThoseOfThePreferredSpecies() {
        assertEquals(jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize(), Kernels.vectorBits());
        if (ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:UseAVX=2") && x86()) {
            assertEquals(256, Kernels.vectorBits());
        }
    }

    private static boolean x86() {
        String arch = System.getProperty("os.arch");
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    @Test
    void withoutTheFlagTheScalarLoopsGiveTheSameResults() throws Exception {
        List<String> without = run(false);
        List<String> with = run(true);
        assertEquals("vectorized=false", without.get(0), without.toString());
        assertEquals("vectorized=true", with.get(0), with.toString());
        assertEquals("vectorBits=0", without.get(2), without.toString());
        // min, max, the expired records and, with these small integral values, even the float sum agree
        assertEquals(with.get(1), without.get(1));
        assertTrue(with.get(1).startsWith("size=1142 expired=858 "), with.toString());
    }

    @Test
    void onTheModulePathTheFlagDecidesToo() throws Exception {
        List<String> without = run(false, true);
        List<String> with = run(true, true);
        assertEquals("vectorized=false", without.get(0), without.toString());
        assertEquals("vectorized=true", with.get(0), with.toString());
        assertEquals(with.get(1), without.get(1));
    }

    /**
     * On an x86 CPU without AVX2 (here: C2 limited to AVX, {@code -XX:UseAVX=1}, or to SSE) the
     * kernels run their scalar loops, with the flag or without, and compute the same.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void onX86WithoutAvx2TheScalarLoopsRun(int useAvx) throws Exception {
        Assumptions.assumeTrue(x86(), "an x86 flag");
        List<String> narrow = run(true, false, "-XX:UseAVX=" + useAvx);
        List<String> wide = run(true);
        assertEquals("vectorized=false", narrow.get(0), narrow.toString());
        assertEquals("vectorBits=0", narrow.get(2), narrow.toString());
        assertEquals(wide.get(1), narrow.get(1));
    }

    private static List<String> run(boolean flag) throws Exception {
        return run(flag, false);
    }

    /**
     * Runs {@link FlagProgram}: on the class path, or with storage-java and storage-vector as
     * modules on the module path (the program itself stays on the class path), with
     * {@code vmOptions} after this JVM's instruction-set options.
     */
    private static List<String> run(boolean flag, boolean modulePath, String... vmOptions) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String libraries = String.join(File.pathSeparator, location(Chunk.class), location(Kernels.class));
        List<String> command = new ArrayList<>(List.of(java));
        // the child runs the instruction set this JVM runs (-XX:UseAVX=2 in the avx2 execution)
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(arg -> arg.startsWith("-XX:UseAVX=") || arg.equals("-XX:+IgnoreUnrecognizedVMOptions"))
                .forEach(command::add);
        command.addAll(List.of(vmOptions));
        if (flag) {
            command.add("--add-modules");
            command.add("jdk.incubator.vector");
        }
        if (modulePath) {
            command.addAll(List.of("-p", libraries, "--add-modules", "dev.bulkdata.storage.vector",
                    "-cp", System.getProperty("test.classes")));
        } else {
            command.addAll(List.of("-cp", libraries + File.pathSeparator + System.getProperty("test.classes")));
        }
        command.add(FlagProgram.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), () -> command + "\n" + out + err);
        return out.lines().toList();
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
