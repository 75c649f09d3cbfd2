package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HandleMapTourTest {
    @Test
    void tour_catchesEveryStaleHandle_andPrintsReadableHandles() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HandleMapTour.Outcome outcome = HandleMapTour.run(
                SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(new HandleMapTour.Outcome(3, 3, 1, 15), outcome);
        assertTrue(text.contains("items#2@0=20"), text);
        assertTrue(text.contains("insert  items#2@1=40"), text);
        assertTrue(text.contains("stale   items#2@0 rejected: STALE"), text);
        assertTrue(text.contains("items#1@1 after clear"), text);
        assertTrue(text.contains("iterate 3 live items, values sum to 80"), text);
        assertTrue(text.contains("fresh   items#1@0"), text);
        assertTrue(text.contains("foreign items#1@1 of the cleared table, used on the fresh one, rejected: FOREIGN"), text);
        assertTrue(text.contains("reset   items#1@1 is stale: true; items#1@3 takes slot 1 again"), text);
    }
}
