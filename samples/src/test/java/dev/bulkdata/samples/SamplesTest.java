package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SamplesTest {
    @Test
    void mainCommand_smallSizes_runsEverySample_andEndsWithOneLineEach() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Samples.Sample> samples = Samples.all(true);
        List<String> summary = Samples.runAll(samples,
                SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(samples.size(), summary.size());
        assertTrue(text.endsWith(String.join(System.lineSeparator(), summary) + System.lineSeparator()), text);
        for (int i = 0; i < samples.size(); i++) {
            assertTrue(summary.get(i).startsWith("  " + samples.get(i).name()), summary.get(i));
            assertFalse(summary.get(i).matches(".*\\b[1-9][\\d,]* wrong.*"), summary.get(i));
        }
        assertFalse(text.contains("\r"), text);
        assertTrue(text.lines().count() < 12 * samples.size(), text);
    }

    @Test
    void arguments_chooseTheSize_andAnUnknownOneIsRejected() {
        assertTrue(Samples.small(new String[] {"--size=small"}));
        assertFalse(Samples.small(new String[] {"--size=full"}));
        assertFalse(Samples.small(new String[0]));
        assertThrows(IllegalArgumentException.class, () -> Samples.small(new String[] {"--smal"}));
        assertTrue(Samples.small(new String[] {"--size=small", "--inspect=off"}));
        assertEquals(null, Samples.inspect(new String[] {"--size=full", "--inspect=off"}));
        assertEquals(java.time.Duration.ZERO, Samples.inspect(new String[] {"--inspect=on"}));
        assertEquals(java.time.Duration.ZERO, Samples.inspect(new String[] {"--size=small", "--inspect"}));
        assertEquals(java.time.Duration.ofSeconds(90), Samples.inspect(new String[] {"--inspect=90"}));
        assertThrows(IllegalArgumentException.class, () -> Samples.inspect(new String[] {"--inspect=soon"}));
    }
}
