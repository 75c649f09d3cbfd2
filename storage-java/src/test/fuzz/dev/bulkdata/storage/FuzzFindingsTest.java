package dev.bulkdata.storage;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Fails the build when a fuzzing execution recorded a finding, whatever that execution's test
 * result said. Run by the pom's execution {@code fuzz-findings}, after every fuzzing execution
 * (tag {@code fuzz-findings}, never among the unit tests).
 *
 * <p>Each fuzzing execution gives Jazzer its own directory, {@code target/fuzz/<class>/<method>/}
 * (the pom sets {@code jazzer.internal.basedir}): the corpus it grows goes to
 * {@code .cifuzz-corpus/} there, and libFuzzer writes every input it records as a finding
 * ({@code crash-}, {@code timeout-}, {@code oom-}, {@code leak-}) beside it, never into the
 * source tree. {@code slow-unit-} files (an input that ran over 10 s, which a loaded machine
 * can cause) are listed, not failed.
 */
@Tag("fuzz-findings")
class FuzzFindingsTest {
    /** The prefixes of the files libFuzzer writes for a finding. */
    static final List<String> FINDINGS = List.of("crash-", "timeout-", "oom-", "leak-");

    @Test
    void noFuzzingExecutionRecordedAFinding() {
        String dir = System.getProperty("bulkdata.fuzz.directory");
        Assumptions.assumeTrue(dir != null, "run by the pom's fuzz-findings execution, which names the directory");
        Path root = Path.of(dir);
        for (Path slow : recorded(root, List.of("slow-unit-"))) {
            System.out.println("[FuzzFindingsTest] a slow input (not a failure): " + slow);
        }
        List<Path> findings = recorded(root, FINDINGS);
        if (!findings.isEmpty()) {
            throw new AssertionError(describe(root, findings));
        }
    }

    /**
     * {@return the files under {@code root/<class>/<method>/} whose names start with one of
     * {@code prefixes}, sorted; none if {@code root} does not exist}
     */
    static List<Path> recorded(Path root, List<String> prefixes) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.find(root, 3, (path, attributes) -> attributes.isRegularFile()
                && root.relativize(path).getNameCount() == 3
                && prefixes.stream().anyMatch(p -> path.getFileName().toString().startsWith(p)))) {
            return files.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return what a failure says: every finding, and how to replay and keep it} */
    static String describe(Path root, List<Path> findings) {
        List<String> lines = new ArrayList<>();
        lines.add(findings.size() + " fuzzing finding(s) recorded under " + root + ":");
        for (Path f : findings) {
            Path rel = root.relativize(f);
            String cls = rel.getName(0).toString();
            String method = rel.getName(1).toString();
            long size;
            try {
                size = Files.size(f);
            } catch (IOException e) {
                size = -1;
            }
            lines.add("  " + f + " (" + size + " bytes): " + cls + "#" + method);
            lines.add("    replay: copy it into storage-java/src/test/resources/dev/bulkdata/storage/" + cls
                    + "Inputs/" + method + "/ and run mvn -B -pl storage-java test -Dtest=" + cls
                    + " (the failure lists the input's operations); once fixed, it stays there as a regression"
                    + " seed. Delete it here (or mvn clean) for the next build.");
        }
        return String.join("\n", lines);
    }
}
