package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EntitiesAndProximityTest {
    private static final EntitiesAndProximity.Params SMALL = EntitiesAndProximity.Params.SMALL;

    private static EntitiesAndProximity.Outcome run(EntitiesAndProximity.Params p, ByteArrayOutputStream bytes) {
        return EntitiesAndProximity.run(p, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void joinAgreesWithHas_andNoComponentIsReadForAnotherEntity() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EntitiesAndProximity.Outcome o = run(SMALL, bytes);
        String context = o + "\n" + bytes.toString(StandardCharsets.UTF_8);

        assertEquals(0, o.wrongOwners(), context);
        assertEquals(0, o.joinMismatches(), context);
        assertEquals(SMALL.entities() + (long) SMALL.frames() * SMALL.churnPerFrame(), o.spawned(), context);
        assertEquals((long) SMALL.frames() * SMALL.churnPerFrame(), o.despawned(), context);
        assertEquals(SMALL.entities(), o.entitiesAtEnd(), context);
        // Every path the sample shows was taken: stale components swept, swap-and-pop, triggers.
        assertTrue(o.staleSwept() > 0 && o.swapRemoved() > 0, context);
        assertTrue(o.joinVisits() > 0 && o.triggers() > 0, context);
        assertTrue(o.proximityAdded() > o.swapRemoved(), context);
        // Churn appends components out of entity order; the last sweep's unlimited defragment
        // restores it, and the join and the owner checks above ran on the moved rows.
        assertTrue(o.orderBefore() < 1.0, context);
        assertEquals(1.0, o.orderAfter(), context);
        assertTrue(o.defragmentSwaps() > 0, context);
    }

    @Test
    void sameSeed_sameOutcome_otherSeed_otherChecksum() {
        EntitiesAndProximity.Outcome a = run(SMALL, new ByteArrayOutputStream());
        EntitiesAndProximity.Outcome b = run(SMALL, new ByteArrayOutputStream());
        EntitiesAndProximity.Outcome c = run(new EntitiesAndProximity.Params(SMALL.entities(), SMALL.frames(),
                SMALL.churnPerFrame(), SMALL.dropsPerFrame(), SMALL.sweepEvery(), SMALL.defragmentSwaps(), SMALL.world(),
                SMALL.seed() + 1),
                new ByteArrayOutputStream());
        assertEquals(a, b);
        assertTrue(a.checksum() != c.checksum(), a + " vs " + c);
    }
}
