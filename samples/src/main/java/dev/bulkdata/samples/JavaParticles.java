package dev.bulkdata.samples;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.InvalidHandleException;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.kotlin.TypedTable;

import java.util.SplittableRandom;

/**
 * A plain-Java program on the table declared in Kotlin by {@link Particles} (the particle
 * sample's own declaration): a burst of particles is added from Java, stepped frame by frame
 * with a Java chunk loop until every particle has expired, and an expired particle's handle is
 * shown to be stale. Java sees the declaration as {@code Particles.INSTANCE}, its columns as
 * static fields ({@code Particles.PX.getField()} is the core {@link FloatField}) and the open
 * table's core {@link Table} through {@code core()}; no Kotlin type appears in the calls below
 * except the {@link TypedTable} that owns the memory. The physics is the Kotlin sample's
 * {@link ParticleSystem#step}, called from Java.
 *
 * <p>Single-threaded.
 */
public final class JavaParticles {
    /**
     * What the burst did.
     *
     * @param spawned particles added
     * @param frames frames until the last one expired
     * @param lateOrEarly frames whose number of expiries differed from the lifetimes drawn (must be 0)
     * @param staleReason what reading the first (expired) particle's handle threw
     * @param checksum sum of the particles' positions when they expired
     */
    public record Outcome(int spawned, int frames, int lateOrEarly, InvalidHandleException.Reason staleReason,
                          long checksum) {
    }

    private JavaParticles() {
    }

    /**
     * Runs the burst.
     *
     * @param count how many particles
     * @param maxLifeFrames the longest lifetime, in frames
     * @param seed the random seed
     * @param out where to print
     * @return what happened, for tests
     */
    public static Outcome run(int count, int maxLifeFrames, long seed, SampleOutput out) {
        FloatField t = Particles.T.getField();
        FloatField vx = Particles.VX.getField();
        FloatField vy = Particles.VY.getField();
        FloatField vz = Particles.VZ.getField();
        SplittableRandom random = new SplittableRandom(seed);
        int[] dueAt = new int[maxLifeFrames + 1];
        try (TypedTable<Particles> typed = Particles.INSTANCE.open()) {
            Table table = typed.core();
            long first = 0;
            for (int i = 0; i < count; i++) {
                long h = table.add();
                int life = random.nextInt(1, maxLifeFrames + 1);
                dueAt[life]++;
                table.set(h, t, life);
                table.set(h, vx, (float) random.nextGaussian());
                table.set(h, vy, (float) random.nextDouble(5, 10));
                table.set(h, vz, (float) random.nextGaussian());
                if (i == 0) {
                    first = h;
                }
            }
            out.line("burst      %,d particles added from Java to the Kotlin-declared table '%s' (%s, %d per block);"
                    + " first is %s", count, Particles.INSTANCE.getName(), Particles.INSTANCE.getLayout(),
                    table.schema().slotsPerBlock(), table.format(first));

            long[] chunkExpired = new long[table.schema().slotsPerBlock()];
            long[] expired = new long[count];
            long checksum = 0;
            int lateOrEarly = 0;
            int frame = 0;
            while (!table.isEmpty()) {
                frame++;
                int n = 0;
                try (ChunkIteration chunks = table.iterate()) {     // add and remove wait until it is closed
                    for (Chunk chunk : chunks) {
                        int k = ParticleSystem.step(chunk, chunkExpired);
                        System.arraycopy(chunkExpired, 0, expired, n, k);
                        n += k;
                    }
                }
                checksum += ParticleSystem.expiredChecksum(table, expired, n);
                table.removeAll(expired, 0, n);
                if (frame > maxLifeFrames || n != dueAt[frame]) {
                    lateOrEarly++;
                }
            }
            InvalidHandleException.Reason reason = null;
            try {
                table.get(first, t);
            } catch (InvalidHandleException e) {
                reason = e.reason();
            }
            out.line("expired    all of them after %d frames (%d frames off the lifetimes drawn); %s: contains %b, get throws %s",
                    frame, lateOrEarly, table.format(first), table.contains(first), reason);
            out.line("check      checksum %016x", checksum);
            return new Outcome(count, frame, lateOrEarly, reason, checksum);
        }
    }
}
