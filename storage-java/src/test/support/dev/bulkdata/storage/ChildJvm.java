package dev.bulkdata.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@code main} of the test classes in a child JVM, on the class path of this module's
 * compiled classes ({@code target/classes} and {@code target/test-classes}: surefire's working
 * directory is the module). Used by tests whose subject is process-wide (the tag registry) or
 * that may leave a table corrupt (racing writers), so that they cannot disturb other tests.
 */
final class ChildJvm {
    /** What the child printed and how it ended. */
    record Result(int exitCode, String output) {
    }

    private ChildJvm() {
    }

    static Result run(Class<?> main, long timeoutSeconds, String... args) throws IOException, InterruptedException {
        return run(main, "-Xmx512m", timeoutSeconds, args);
    }

    /** As {@link #run(Class, long, String...)} with another heap option (e.g. {@code -Xmx64m}). */
    static Result run(Class<?> main, String heap, long timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        return run(main, List.of(heap), timeoutSeconds, args);
    }

    /** As {@link #run(Class, long, String...)} with these JVM options (e.g. {@code -Xmx64m}, {@code -Dname=value}). */
    static Result run(Class<?> main, List<String> jvmOptions, long timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("child-" + main.getSimpleName(), ".log");
        try {
            Process process = start(main, jvmOptions, log, args);
            boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly().waitFor();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (!finished) {
                throw new AssertionError("child " + main.getSimpleName() + " did not finish in " + timeoutSeconds
                        + " s; output:\n" + output);
            }
            return new Result(process.exitValue(), output);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Starts a child JVM whose output (stdout and stderr) goes to {@code log}; the caller ends it. */
    static Process start(Class<?> main, String heap, Path log, String... args) throws IOException {
        return start(main, List.of(heap), log, args);
    }

    /** As {@link #start(Class, String, Path, String...)} with these JVM options. */
    static Process start(Class<?> main, List<String> jvmOptions, Path log, String... args) throws IOException {
        String launcher = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path classes = Path.of("target", "classes").toAbsolutePath();
        Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
        if (!Files.isDirectory(classes) || !Files.isDirectory(testClasses)) {
            throw new IllegalStateException("run from the storage-java module directory: no " + classes + " or "
                    + testClasses);
        }
        List<String> command = new ArrayList<>(List.of(launcher));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classes + java.io.File.pathSeparator + testClasses, main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
