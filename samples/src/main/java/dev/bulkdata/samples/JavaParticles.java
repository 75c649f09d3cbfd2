package dev.bulkdata.samples;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.kotlin.TypedTable;

import java.util.SplittableRandom;

/**
 * A plain-Java program on the table declared in Kotlin by {@link Particles} (the particle
 * sample's own declaration): a burst of particles is added from Java, stepped frame by frame
 * with a Java chunk loop until every particle has expired, and an expired particle's handle is
 * shown to be stale. Java opens the table with one static call, {@code Particles.openTable()},
 * and gets a {@link TypedTable} ({@code TypedTable<Particles>}) that takes {@code long} handles and the
 * declaration's columns, which are static fields typed by table ({@code Particles.VX} is a
 * {@code FloatColumn<Particles>}, so a column of another table does not compile here);
 * {@code table.core()} is the core table, for iteration and batch removal. The physics is the
 * Kotlin sample's {@link ParticleSystem#step}, called from Java with each core chunk.
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
        SplittableRandom random = new SplittableRandom(seed);
        int[] dueAt = new int[maxLifeFrames + 1];
        try (TypedTable<Particles> table = Particles.openTable()) {
            long first = 0;
            for (int i = 0; i < count; i++) {
                long h = table.add();
                int life = random.nextInt(1, maxLifeFrames + 1);
                dueAt[life]++;
                table.set(h, Particles.T, life);
                table.set(h, Particles.VX, (float) random.nextGaussian());
                table.set(h, Particles.VY, (float) random.nextDouble(5, 10));
                table.set(h, Particles.VZ, (float) random.nextGaussian());
                if (i == 0) {
                    first = h;
                }
            }
            int slotsPerBlock = table.def().schema().slotsPerBlock();
            out.line("burst      %,d particles added from Java to the Kotlin-declared table '%s' (%s, %d per block);"
                    + " first is %s", count, table.def().name(), table.def().layout(), slotsPerBlock,
                    table.format(first));

            long[] chunkExpired = new long[slotsPerBlock];
            long[] mask = new long[(slotsPerBlock + 63) / 64];
            long[] expired = new long[count];
            long checksum = 0;
            int lateOrEarly = 0;
            int frame = 0;
            while (!table.isEmpty()) {
                frame++;
                int n = 0;
                try (ChunkIteration chunks = table.core().iterate()) {   // add and remove throw until it is closed
                    for (Chunk chunk : chunks) {
                        int k = ParticleSystem.step(chunk, chunkExpired, mask);
                        System.arraycopy(chunkExpired, 0, expired, n, k);
                        n += k;
                    }
                }
                checksum += ParticleSystem.expiredChecksum(table, expired, n);
                table.core().removeAll(expired, 0, n);
                if (frame > maxLifeFrames || n != dueAt[frame]) {
                    lateOrEarly++;
                }
            }
            InvalidHandleException.Reason reason = null;
            try {
                table.get(first, Particles.T);
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
