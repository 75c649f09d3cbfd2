package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.Schema;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * A renderer's upload with change versions: a scene of objects in a {@link BulkTable}, and a
 * staging buffer (native memory, standing in for a GPU buffer) that mirrors their positions
 * chunk by chunk. Each frame a group of objects moves, a few others are edited, and now and then
 * some are removed and others added; then the consumer copies into the staging buffer only the
 * chunks whose positions or records changed since its last upload
 * ({@code forEachChunk(ChangeFilter, since, ...)}) and records {@code markVersion()} for the next
 * frame. It reports the bytes copied per frame against a full copy, and checks after every frame
 * that the staging buffer holds every live object's position.
 *
 * <p>Single-threaded.
 */
public final class ChangedChunkUpload {
    /**
     * The scene's sizes.
     *
     * @param objects objects in the scene
     * @param movers how many of them (the last added) move every frame
     * @param edits objects moved at random each frame
     * @param churn objects removed and added every tenth frame
     * @param frames frames to run
     */
    public record Params(int objects, int movers, int edits, int churn, int frames) {
        /** The full run: 1,000,000 objects, 1 % of them moving. */
        public static final Params FULL = new Params(1_000_000, 10_000, 20, 500, 120);
        /** The smoke-test run. */
        public static final Params SMALL = new Params(20_000, 200, 5, 50, 20);
    }

    /**
     * What the uploads did.
     *
     * @param frames frames run
     * @param uploadedBytes bytes copied into the staging buffer by the frames' uploads (after the first, full one)
     * @param fullCopyBytes bytes a full copy of every chunk would have copied in the same frames
     * @param chunksUploaded chunks copied by the frames' uploads
     * @param wrongPositions live objects whose staged position differed from the table after a frame (must be 0)
     * @param checksum sum of the staged positions' bits after the last frame
     */
    public record Outcome(int frames, long uploadedBytes, long fullCopyBytes, long chunksUploaded, long wrongPositions,
                          long checksum) {
    }

    private ChangedChunkUpload() {
    }

    /**
     * Runs the scene.
     *
     * @param p sizes
     * @param seed the random seed
     * @param out where to print
     * @return what happened, for tests
     */
    public static Outcome run(Params p, long seed, SampleOutput out) {
        Schema schema = Schema.builder("objects")
                .add(FieldType.FLOAT, "px", "py", "pz", "vx", "vy", "vz", "scale", "hue")
                .build();
        FloatField px = schema.floatField("px");
        FloatField py = schema.floatField("py");
        FloatField pz = schema.floatField("pz");
        FloatField vx = schema.floatField("vx");
        ChangeFilter positions = ChangeFilter.of(px, py, pz).orStructure();   // made once
        SplittableRandom random = new SplittableRandom(seed);
        int slots = schema.slotsPerBlock();
        long columnBytes = (long) slots * Float.BYTES;
        try (BulkTable scene = BulkTable.of(schema); Arena arena = Arena.ofConfined()) {
            long[] handles = new long[p.objects()];
            scene.addAll(handles);
            for (long h : handles) {
                scene.set(h, px, (float) random.nextDouble(-100, 100));
                scene.set(h, py, (float) random.nextDouble(-100, 100));
                scene.set(h, pz, (float) random.nextDouble(-100, 100));
                scene.set(h, vx, (float) random.nextGaussian());
            }
            // Room for every chunk the scene can reach: churn reuses holes, so it never grows.
            int maxChunks = (p.objects() + slots) / slots + 1;
            MemorySegment staging = arena.allocate(maxChunks * 3 * columnBytes, 64);
            out.line("scene      %,d objects in %,d chunks of %d; %,d move every frame, %d edited at random,"
                    + " %,d replaced every 10th frame", p.objects(), chunkCount(scene), slots, p.movers(), p.edits(),
                    p.churn());

            // The first upload copies everything: no version from an earlier upload yet.
            long[] copied = new long[2];                   // bytes, chunks
            scene.forEachChunk(chunk -> upload(chunk, staging, columnBytes, px, py, pz, copied));
            int seen = scene.markVersion();
            long uploaded = 0;
            long chunksUploaded = 0;
            long full = 0;
            long wrong = check(scene, staging, columnBytes, px, py, pz);
            Progress progress = out.progress("frame", p.frames(),
                    () -> String.format("last upload %,d chunks, %,d B", copied[1], copied[0]));
            for (int frame = 1; frame <= p.frames(); frame++) {
                // The frame's writes: the movers (the last objects added, a few chunks), a few random edits.
                for (int i = p.objects() - p.movers(); i < p.objects(); i++) {
                    long h = handles[i];
                    scene.set(h, px, scene.get(h, px) + scene.get(h, vx) * 0.016f);
                }
                for (int i = 0; i < p.edits(); i++) {
                    long h = handles[random.nextInt(p.objects() - p.movers())];
                    scene.set(h, py, (float) random.nextDouble(-100, 100));
                }
                if (frame % 10 == 0) {
                    // Some objects leave and others arrive (holes are reused): the records of those chunks change.
                    for (int i = 0; i < p.churn(); i++) {
                        int at = random.nextInt(p.objects() - p.movers());
                        scene.remove(handles[at]);
                        handles[at] = scene.add();
                        scene.set(handles[at], pz, (float) random.nextDouble(-100, 100));
                    }
                }
                // The upload: only the chunks whose positions or records changed since the last one.
                copied[0] = 0;
                copied[1] = 0;
                scene.forEachChunk(positions, seen, chunk -> upload(chunk, staging, columnBytes, px, py, pz, copied));
                seen = scene.markVersion();
                uploaded += copied[0];
                chunksUploaded += copied[1];
                full += chunkCount(scene) * 3 * columnBytes;
                wrong += check(scene, staging, columnBytes, px, py, pz);
                progress.step(frame);
            }
            progress.done();
            long checksum = checksum(scene, staging, columnBytes, px);
            out.line("upload     %,d B per frame on average (%.1f chunks) against %,d B for a full copy: %.1fx less",
                    uploaded / p.frames(), chunksUploaded / (double) p.frames(), full / p.frames(),
                    full / (double) Math.max(1, uploaded));
            out.line("check      %,d staged positions differ from the table after a frame; checksum %016x", wrong, checksum);
            return new Outcome(p.frames(), uploaded, full, chunksUploaded, wrong, checksum);
        }
    }

    /** {@return the chunks a pass over the scene visits: one per block} */
    private static int chunkCount(BulkTable scene) {
        return scene.stats().blocks();
    }

    /** Copies a chunk's three position columns (read-only views) to the chunk's place in the staging buffer. */
    private static void upload(Chunk chunk, MemorySegment staging, long columnBytes, FloatField px, FloatField py,
                               FloatField pz, long[] copied) {
        long at = chunk.index() * 3 * columnBytes;
        MemorySegment.copy(chunk.column(px), 0, staging, at, columnBytes);
        MemorySegment.copy(chunk.column(py), 0, staging, at + columnBytes, columnBytes);
        MemorySegment.copy(chunk.column(pz), 0, staging, at + 2 * columnBytes, columnBytes);
        copied[0] += 3 * columnBytes;
        copied[1]++;
    }

    /** {@return the live objects whose staged position is not the table's} */
    private static long check(BulkTable scene, MemorySegment staging, long columnBytes, FloatField px, FloatField py,
                              FloatField pz) {
        long[] wrong = new long[1];
        scene.forEach((chunk, slot) -> {
            long at = chunk.index() * 3 * columnBytes + (long) slot * Float.BYTES;
            if (staging.get(ValueLayout.JAVA_FLOAT, at) != chunk.get(slot, px)
                    || staging.get(ValueLayout.JAVA_FLOAT, at + columnBytes) != chunk.get(slot, py)
                    || staging.get(ValueLayout.JAVA_FLOAT, at + 2 * columnBytes) != chunk.get(slot, pz)) {
                wrong[0]++;
            }
        });
        return wrong[0];
    }

    private static long checksum(BulkTable scene, MemorySegment staging, long columnBytes, FloatField px) {
        long[] sum = new long[1];
        scene.forEach((chunk, slot) -> sum[0] = sum[0] * 31
                + Float.floatToRawIntBits(staging.get(ValueLayout.JAVA_FLOAT, chunk.index() * 3 * columnBytes + (long) slot * Float.BYTES))
                + Float.floatToRawIntBits(chunk.get(slot, px)));
        return sum[0];
    }
}
