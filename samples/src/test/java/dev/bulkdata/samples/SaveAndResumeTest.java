package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaveAndResumeTest {
    private static SaveAndResume.Outcome run(SaveAndResume.Params p) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        return SaveAndResume.run(p, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void theResumedRun_endsExactlyAsTheUninterruptedOne() {
        SaveAndResume.Params p = SaveAndResume.Params.SMALL;
        SaveAndResume.Outcome o = run(p);
        assertTrue(o.resumedEqual(), o.toString());
        assertEquals(o.checksum(), o.resumedChecksum(), o.toString());
        // Steady state: each tick adds spawnPerTick bodies and removes those that reached their lifetime.
        assertEquals(p.spawnPerTick() * p.lifetime(), o.live(), o.toString());
        assertTrue(o.lostTargets() > 0, "targets go stale and are caught: " + o);
        assertTrue(o.savedBytes() > 64, o.toString());
        assertTrue(o.upgradedEqual(), "the save loads under the next release's schema: " + o);
    }

    @Test
    void anotherSeed_givesAnotherChecksum() {
        SaveAndResume.Params p = SaveAndResume.Params.SMALL;
        SaveAndResume.Outcome a = run(p);
        SaveAndResume.Outcome b = run(new SaveAndResume.Params(p.spawnPerTick(), p.lifetime(), p.ticks(), p.seed() + 1));
        assertTrue(b.resumedEqual(), b.toString());
        assertNotEquals(a.checksum(), b.checksum());
        assertEquals(a, run(p), "the same seed gives the same outcome");
    }
}
