package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private SampleOutput output(boolean interactive) {
        return new SampleOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8), interactive);
    }

    @Test
    void plain_printsOneLinePerQuarter_whateverTheStepCount() {
        Progress progress = output(false).progress("frame", 1_000, () -> "live 7");
        for (int i = 1; i <= 1_000; i++) {
            progress.step(i);
        }
        progress.done();
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(4, lines.length, String.join("\n", lines));
        assertTrue(lines[0].startsWith("  frame 250/1000  25%"), lines[0]);
        assertTrue(lines[3].startsWith("  frame 1000/1000 100%") && lines[3].endsWith("live 7"), lines[3]);
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("\r"));
    }

    @Test
    void plain_fewerStepsThanQuarters_printsEachStepOnce() {
        Progress progress = output(false).progress("tick", 2, () -> "");
        progress.step(1);
        progress.step(2);
        assertEquals(2, bytes.toString(StandardCharsets.UTF_8).split("\n").length);
    }

    @Test
    void interactive_rewritesOneLine_andClearsItWhenDone() {
        Progress progress = output(true).progress("tick", 3, () -> "x");
        for (int i = 1; i <= 3; i++) {
            progress.step(i);
        }
        progress.done();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(text.contains("\n"), text);
        assertTrue(text.startsWith("\rtick 1/3  33%"), text);
        assertTrue(text.contains("\rtick 3/3 100%"), text);   // the last step is always drawn
        assertTrue(text.endsWith("\r"), text);
    }

    @Test
    void total_belowOne_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> output(false).progress("tick", 0, () -> ""));
    }
}
