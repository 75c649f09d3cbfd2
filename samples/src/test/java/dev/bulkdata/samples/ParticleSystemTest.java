package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ParticleSystemTest {
    private static final ParticleSystem.Params SMALL = ParticleSystem.Params.SMALL;

    private static ParticleSystem.Outcome run(ParticleSystem.Params p, int parallelism) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        return ParticleSystem.run(p, parallelism, SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void everyParticleExpiresOnItsFrame_andThePopulationStaysSteady() {
        ParticleSystem.Outcome o = run(SMALL, 2);
        assertEquals(0, o.getLateOrEarly(), o.toString());
        assertEquals(SMALL.getParticles(), o.getLive(), o.toString());
        assertEquals(o.getSpawned() - o.getExpired(), o.getLive(), o.toString());
        // Lifetimes of 5..40 frames over 60 frames: most of the first population is replaced.
        assertTrue(o.getExpired() > SMALL.getParticles(), o.toString());
        // Expired slots are reused before the table grows.
        int slotsPerBlock = Particles.INSTANCE.schema().slotsPerBlock();
        assertEquals((SMALL.getParticles() + 1 + slotsPerBlock - 1) / slotsPerBlock, o.getBlocks(), o.toString());
    }

    @Test
    void checksum_isTheSameOnOneThreadAndOnFour_andDependsOnTheSeed() {
        ParticleSystem.Outcome one = run(SMALL, 1);
        ParticleSystem.Outcome four = run(SMALL, 4);
        assertEquals(one.getChecksum(), four.getChecksum());
        assertEquals(one.getSpawned(), four.getSpawned());
        assertEquals(one.getExpired(), four.getExpired());
        ParticleSystem.Outcome other = run(new ParticleSystem.Params(SMALL.getParticles(), SMALL.getFrames(),
                SMALL.getMinLifeFrames(), SMALL.getMaxLifeFrames(), SMALL.getSeed() + 1), 2);
        assertNotEquals(one.getChecksum(), other.getChecksum());
    }
}
