package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-type code every module commits (ARCHITECTURE.md, Per-type code) is what
 * {@code codegen/Generate.java} writes from its templates: the generator's check run over the
 * repository, with this JVM's {@code java}, finds nothing out of date. A template or a
 * {@code float} case changed without running the generator fails here, naming the files.
 */
class GeneratedCodeTest {
    @Test
    void committedPerTypeCode_isWhatTheGeneratorWrites() throws IOException, InterruptedException {
        Path root = DocSnippetsTest.ROOT.toAbsolutePath().normalize();
        Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Process run = new ProcessBuilder(java.toString(), root.resolve("codegen/Generate.java").toString(),
                "--check", root.toString()).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(2, TimeUnit.MINUTES), "the generator did not finish: " + output);
        assertEquals(0, run.exitValue(), output);
        assertTrue(output.contains("all up to date"), output);
    }

    @Test
    void generatedRegions_nameTheirTemplate() throws IOException {
        Path root = DocSnippetsTest.ROOT;
        for (String file : new String[] {"storage-java/src/main/java/dev/bulkdata/storage/Table.java",
                "storage-kotlin/src/main/kotlin/dev/bulkdata/storage/kotlin/TypedTable.kt",
                "storage-vector/src/main/java/dev/bulkdata/storage/vector/Kernels.java"}) {
            String text = Files.readString(root.resolve(file));
            int begin = text.indexOf("// @generated\n");
            assertTrue(begin >= 0 && text.indexOf("// @end-generated", begin) > begin, file);
            String template = file.replace("/src/main/java/", "/src/main/templates/")
                    .replace("/src/main/kotlin/", "/src/main/templates/");
            assertTrue(text.startsWith("// from " + template, text.indexOf('\n', begin) + 1 + 4), file
                    + " names " + template);
            assertTrue(Files.exists(root.resolve(template)), template);
        }
    }
}
