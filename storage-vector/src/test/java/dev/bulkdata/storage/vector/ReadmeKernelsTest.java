package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.FieldType;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The README's storage-vector example, compiled and run. */
class ReadmeKernelsTest {
    @Test
    void readmeExample() {
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad").build();
        FloatField T = schema.floatField("t");
        FloatField PX = schema.floatField("px");
        FloatField VX = schema.floatField("vx");
        float dt = 0.5f;
        try (BulkTable particles = BulkTable.of(schema)) {
            for (int i = 0; i < 2000; i++) {
                long h = particles.add();
                particles.set(h, T, i % 4);                     // t: 0, 1, 2, 3, ...
                particles.set(h, VX, 2f);
            }
            // README begin
            Kernels.axpy(particles, PX, VX, dt);               // p += v * dt over every live record
            double total = Kernels.sum(particles, VX);         // holes left out

            long[] mask = new long[schema.slotsPerBlock() / 64 + 1];     // scratch, kept
            long[] expired = new long[particles.size()];
            int count = 0;
            try (ChunkIteration chunks = particles.iterate()) {
                for (Chunk chunk : chunks) {                   // or hand chunks to threads
                    Kernels.add(chunk, T, -dt);                // t -= dt
                    if (Kernels.lessThan(chunk, T, 0f, mask) > 0) {       // "expire where t < 0"
                        count = Kernels.handles(chunk, mask, expired, count);
                    }
                }
            }
            particles.removeAll(expired, 0, count);            // after the pass, by handle
            // README end
            assertEquals(4000.0, total);
            assertEquals(500, count);                          // those with t = 0
            assertEquals(1500, particles.size());
            assertEquals(1500f, Kernels.sum(particles, PX));   // 1 each
            assertEquals(0.5f, Kernels.min(particles, T));
        }
    }
}
