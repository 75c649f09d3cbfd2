package dev.bulkdata.samples;

import dev.bulkdata.storage.schema.ReuseOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoundSystemTest {
    private static final SoundSystem.Params SMALL = SoundSystem.Params.SMALL;

    private static SoundSystem.Outcome run(SoundSystem.Params p, ReuseOrder order, ByteArrayOutputStream bytes) {
        return SoundSystem.run(p, order, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @ParameterizedTest
    @EnumSource(ReuseOrder.class)
    void everyStaleHandleIsCaught_andNoRecordIsMisread(ReuseOrder order) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SoundSystem.Outcome o = run(SMALL, order, bytes);
        String context = order + " " + o + "\n" + bytes.toString(StandardCharsets.UTF_8);

        assertEquals(0, o.wrongReads(), context);
        assertEquals(SMALL.ticks() / SMALL.unloadEvery() * SMALL.unloadCount(), o.unloaded(), context);
        assertEquals(SMALL.resources() + o.unloaded(), o.loaded(), context);
        // Exactly the sounds that were playing an unloaded resource find its handle stale.
        assertTrue(o.orphaned() > 0, context);
        assertEquals(o.orphaned(), o.stoppedStale(), context);
        // Fades outlive their sounds and find the handle stale through the exception.
        assertTrue(o.fadesStale() > 0, context);
        // Nothing is lost: every sound and fade ended one way or is still running.
        assertEquals((long) SMALL.ticks() * SMALL.startsPerTick(), o.started(), context);
        assertEquals(o.started(), o.finished() + o.fadedOut() + o.stoppedStale() + o.playingAtEnd(), context);
        assertEquals(o.fadesStarted(), o.fadesFinished() + o.fadesStale() + o.fadesAtEnd(), context);
        assertEquals((long) SMALL.ticks() * SMALL.fadesPerTick(), o.fadesStarted() + o.fadeTargetsGone(), context);
        assertTrue(o.finished() > 0 && o.fadedOut() > 0, context);
    }

    @Test
    void lifo_putsEveryReplacementInTheStaleSlot_yetTheOutcomeMatchesFifoAndSweep() {
        SoundSystem.Outcome fifo = run(SMALL, ReuseOrder.FIFO, new ByteArrayOutputStream());
        SoundSystem.Outcome lifo = run(SMALL, ReuseOrder.LIFO, new ByteArrayOutputStream());
        // Under LIFO each replacement resource takes the slot its stale sounds still point at;
        // the generation alone tells them apart, so every count and the checksum are unchanged.
        assertEquals(lifo.unloaded(), lifo.reusedSlot(), lifo.toString());
        assertEquals(fifo, new SoundSystem.Outcome(lifo.loaded(), lifo.unloaded(), fifo.reusedSlot(),
                lifo.orphaned(), lifo.started(), lifo.finished(), lifo.fadedOut(), lifo.stoppedStale(),
                lifo.fadesStarted(), lifo.fadesFinished(), lifo.fadesStale(), lifo.fadeTargetsGone(),
                lifo.wrongReads(), lifo.playingAtEnd(), lifo.fadesAtEnd(), lifo.checksum()));
        SoundSystem.Outcome sweep = run(SMALL, ReuseOrder.SWEEP, new ByteArrayOutputStream());
        assertEquals(fifo, new SoundSystem.Outcome(sweep.loaded(), sweep.unloaded(), fifo.reusedSlot(),
                sweep.orphaned(), sweep.started(), sweep.finished(), sweep.fadedOut(), sweep.stoppedStale(),
                sweep.fadesStarted(), sweep.fadesFinished(), sweep.fadesStale(), sweep.fadeTargetsGone(),
                sweep.wrongReads(), sweep.playingAtEnd(), sweep.fadesAtEnd(), sweep.checksum()));
    }

    @Test
    void sameSeed_sameOutcome_otherSeed_otherChecksum() {
        SoundSystem.Outcome a = run(SMALL, ReuseOrder.FIFO, new ByteArrayOutputStream());
        SoundSystem.Outcome b = run(SMALL, ReuseOrder.FIFO, new ByteArrayOutputStream());
        SoundSystem.Params other = new SoundSystem.Params(SMALL.resources(), SMALL.startsPerTick(),
                SMALL.fadesPerTick(), SMALL.ticks(), SMALL.unloadEvery(), SMALL.unloadCount(),
                SMALL.minSoundTicks(), SMALL.maxSoundTicks(), SMALL.minFadeTicks(), SMALL.maxFadeTicks(),
                SMALL.seed() + 1);
        SoundSystem.Outcome c = run(other, ReuseOrder.FIFO, new ByteArrayOutputStream());
        assertEquals(a, b);
        assertTrue(a.checksum() != c.checksum(), a + " vs " + c);
    }

    @Test
    void output_isAFewShortLines() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        run(SMALL, ReuseOrder.FIFO, bytes);
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertTrue(lines.length <= 8, String.join("\n", lines));
        assertTrue(lines[lines.length - 1].startsWith("check      0 wrong records read; checksum "), lines[lines.length - 1]);
    }
}
