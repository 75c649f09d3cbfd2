package dev.bulkdata.samples;

import dev.bulkdata.storage.schema.InvalidHandleException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JavaParticlesTest {
    private static JavaParticles.Outcome run(long seed, ByteArrayOutputStream bytes) {
        return JavaParticles.run(3_000, 25, seed, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void burst_expiresOnTheFramesDrawn_andTheFirstHandleEndsStale() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JavaParticles.Outcome o = run(7L, bytes);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, o.lateOrEarly(), text);
        assertEquals(3_000, o.spawned());
        assertEquals(25, o.frames(), text);   // 3,000 draws of 1..25 include a 25
        assertEquals(InvalidHandleException.Reason.STALE, o.staleReason(), text);
        assertTrue(text.contains("first is particles#1@0"), text);
        assertTrue(text.contains("particles#1@0: contains false, get throws STALE"), text);
    }

    @Test
    void checksum_isReproducible_andDependsOnTheSeed() {
        JavaParticles.Outcome a = run(7L, new ByteArrayOutputStream());
        assertEquals(a, run(7L, new ByteArrayOutputStream()));
        assertNotEquals(a.checksum(), run(8L, new ByteArrayOutputStream()).checksum());
    }
}
