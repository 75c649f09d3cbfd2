package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.Schema;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The code blocks of the documents that use storage-vector, compiled and run here; and the
 * check that each document shows its snippet exactly. A snippet is the lines between
 * {@code // doc:begin <document>} and {@code // doc:end} (storage-java's DocSnippetsTest checks
 * that every Java and Kotlin block of the documents is a snippet of some module's tests).
 */
class DocSnippetsTest {
    @Test
    void anExpiryPass_updatesSumsAndRemovesTheExpiredAfterThePass() {
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad").build();
        FloatField T = schema.floatField("t");
        FloatField PX = schema.floatField("px");
        FloatField VX = schema.floatField("vx");
        float dt = 0.5f;
        try (BulkTable particles = BulkTable.of(schema)) {
            for (int i = 0; i < 2000; i++) {
                long h = particles.add();
                particles.set(h, T, i % 4);                     // t: 0, 1, 2, 3, ...
                particles.set(h, VX, 2f);
            }
            // doc:begin docs/simd-kernels.md
            Kernels.axpy(particles, PX, VX, dt);               // p += v * dt over every live record
            double total = Kernels.sum(particles, VX);         // holes left out

            long[] mask = Kernels.mask(schema);                // scratch, kept
            int[] expired = {0};
            particles.forEachChunk(chunk -> {                  // one mask per thread if parallel
                Kernels.add(chunk, T, -dt);                    // t -= dt
                if (Kernels.lessThan(chunk, T, 0f, mask) > 0) {           // "expire where t < 0"
                    expired[0] += Kernels.removeLater(chunk, mask);       // removed when the pass ends
                }
            });
            // doc:end
            assertEquals(4000.0, total);
            assertEquals(500, expired[0]);                     // those with t = 0
            assertEquals(1500, particles.size());
            assertEquals(1500f, Kernels.sum(particles, PX));   // 1 each
            assertEquals(0.5f, Kernels.min(particles, T));
        }
    }

    @Test
    void everySnippetOfThisModule_isACodeBlockOfItsDocument() {
        List<String[]> snippets = snippets(Path.of("src/test"));
        assertFalse(snippets.isEmpty());
        for (String[] s : snippets) {
            assertTrue(javaBlocks(Path.of("..").resolve(s[1])).contains(s[2]),
                    s[0] + ": " + s[1] + " must show this java block exactly:\n" + s[2]);
        }
    }

    /** The {@code java} code blocks of a markdown file, each dedented by its fence's indentation. */
    static List<String> javaBlocks(Path markdown) {
        List<String> blocks = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(markdown);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().startsWith("```")) {
                    continue;
                }
                boolean java = lines.get(i).strip().equals("```java");
                int indent = lines.get(i).indexOf('`');
                StringBuilder text = new StringBuilder();
                int j = i + 1;
                for (; j < lines.size() && !lines.get(j).strip().equals("```"); j++) {
                    String line = lines.get(j);
                    text.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
                }
                if (java) {
                    blocks.add(text.toString());
                }
                i = j;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return blocks;
    }

    /** Every snippet of the Java files under a test source root: {where, document, text}. */
    static List<String[]> snippets(Path testRoot) {
        List<String[]> snippets = new ArrayList<>();
        try (Stream<Path> files = Files.walk(testRoot)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String begin = lines.get(i).strip();
                    if (!begin.startsWith("// doc:begin")) {
                        continue;
                    }
                    int indent = lines.get(i).indexOf('/');
                    StringBuilder text = new StringBuilder();
                    int j = i + 1;
                    for (; j < lines.size() && !lines.get(j).strip().equals("// doc:end"); j++) {
                        String line = lines.get(j);
                        text.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
                    }
                    if (j == lines.size()) {
                        fail(file + ":" + (i + 1) + ": a snippet needs '// doc:end'");
                    }
                    snippets.add(new String[] {file + ":" + (i + 1),
                            begin.substring("// doc:begin".length()).strip(), text.toString()});
                    i = j;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return snippets;
    }
}
