package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GameLoopTest {
    private static final GameLoop.Params SMALL = GameLoop.Params.SMALL;

    private static GameLoop.Outcome run(int threads, ByteArrayOutputStream bytes) {
        return GameLoop.run(SMALL, threads, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void memoryStaysFlat_noSlotRetires_andNoHandleOfAnEarlierLevelIsAccepted() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GameLoop.Outcome o = run(2, bytes);
        String context = o + "\n" + bytes.toString(StandardCharsets.UTF_8);
        assertEquals(SMALL.frames() / SMALL.levelEvery(), o.levels(), context);
        assertEquals((long) SMALL.frames() * SMALL.spawnPerFrame(), o.spawned(), context);
        assertTrue(o.fragments() > 0 && o.expired() > 0, context);
        assertEquals(o.blocksAfterFirstLevel(), o.maxBlocksAfterFirstLevel(), context);
        assertEquals(0, o.retired(), context);
        assertEquals(SMALL.frames() - SMALL.levelEvery(), o.oldHandlesTried(), context);
        assertEquals(0, o.oldHandlesAccepted(), context);
        // The run ends mid-level: the bullets of its last frames are live.
        assertTrue(o.liveAtEnd() > 0 && o.checksum() != 0, context);
        // One line per report, plus the heading.
        assertEquals(SMALL.frames() / SMALL.reportEvery() + 1, bytes.toString(StandardCharsets.UTF_8).lines().count(),
                context);
    }

    @Test
    void theOutcome_isTheSameOnOneThreadAndOnTwo() {
        assertEquals(run(1, new ByteArrayOutputStream()), run(2, new ByteArrayOutputStream()));
    }
}
