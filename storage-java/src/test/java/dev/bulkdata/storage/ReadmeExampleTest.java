package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's Java example, compiled and run here. The test fails if the README's copy of
 * the lines between the markers drifts from this file.
 */
class ReadmeExampleTest {

    @Test
    void readmeExample_runsAndDoesWhatItsCommentsSay() {
        // README:begin
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();                                   // SOA: 32-byte records, 512 per block
        FloatField px = schema.floatField("px");
        FloatField vx = schema.floatField("vx");

        BulkTable particles = BulkTable.of(schema);
        long h = particles.add();                           // a handle: particles#1@0
        particles.set(h, vx, 2f);

        particles.forEach((chunk, slot) ->                  // live records only, holes skipped
                chunk.set(slot, px, chunk.get(slot, px) + chunk.get(slot, vx) * 0.5f));
        float x = particles.get(h, px);                     // 1.0

        particles.remove(h);                                // the slot's generation moves on
        boolean alive = particles.contains(h);              // false, for good
        // particles.get(h, px) throws InvalidHandleException: "stale handle particles#1@0
        //   (table 'particles', slot 1): handle generation 0, slot generation 1, slot is free ..."
        particles.close();                                  // frees every block at once
        // README:end

        assertEquals("particles#1@0", particles.format(h));
        assertEquals(1.0f, x);
        assertFalse(alive);
        assertTrue(particles.isClosed());
        try (BulkTable again = BulkTable.of(schema)) {
            long g = again.add();
            again.remove(g);
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> again.get(g, px));
            assertTrue(e.getMessage().startsWith("stale handle particles#1@0 (table 'particles', slot 1): handle "
                    + "generation 0, slot generation 1, slot is free"), e.getMessage());
        }
    }

    @Test
    void readmeChunkLoop_sumsTheLiveRecordsColumnByColumn() {
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
        FloatField T = schema.floatField("t");
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[2000];
            particles.addAll(handles);
            float expected = 0;
            for (int i = 0; i < handles.length; i++) {
                if (i % 4 == 1) {
                    particles.remove(handles[i]);
                } else {
                    particles.set(handles[i], T, i % 7);
                    expected += i % 7;
                }
            }
            float sum = 0;
            // README:begin
            try (ChunkIteration chunks = particles.iterate()) {   // add/remove now fail fast (CME)
                for (Chunk chunk : chunks) {
                    MemorySegment t = chunk.column(T);             // SOA: one float per slot
                    for (int w = 0; w < chunk.liveWordCount(); w++) {
                        long live = chunk.liveBits(w);             // 64 slots at a time; holes skipped
                        while (live != 0) {
                            int s = w * 64 + Long.numberOfTrailingZeros(live);
                            live &= live - 1;
                            sum += t.getAtIndex(ValueLayout.JAVA_FLOAT, s);
                        }
                    }
                }
            }
            // README:end
            assertEquals(expected, sum);
        }
    }

    @Test
    void readmePackedExample_keepsRowsDense_andSortsThemWithinABudget() {
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
        FloatField px = schema.floatField("px");
        List<Long> rows = new ArrayList<>();
        // README:begin
        PackedTable packed = PackedTable.of(schema);        // same handles; rows always dense
        long a = packed.add();
        long b = packed.add();
        long c = packed.add();
        packed.set(a, px, 3f);
        packed.set(b, px, 1f);
        packed.set(c, px, 2f);
        packed.remove(a);                                   // c's row moves into a's: rows b, c

        RecordOrder byPx = (h1, h2) -> Float.compare(packed.get(h1, px), packed.get(h2, px));
        long swaps = packed.defragment(byPx, 1_000);        // once a frame: at most 1000 swaps
        packed.forEach((chunk, slot) -> rows.add(chunk.handle(slot)));   // b, c: px order
        float y = packed.get(c, px);                        // 2.0: handles survive every move
        packed.close();
        // README:end

        assertEquals(1, swaps);
        assertEquals(List.of(b, c), rows);
        assertEquals(2f, y);
    }

    @Test
    void readmeComponentExample_joinsTheEntitiesThatHaveBoth_andDropsStaleComponents() {
        // README:begin
        BulkTable entities = BulkTable.of(Schema.builder("entities").add(FieldType.INT, "kind").build());
        Schema position = Schema.builder("position").add(FieldType.FLOAT, "x", "y").build();
        Schema velocity = Schema.builder("velocity").add(FieldType.FLOAT, "dx", "dy").build();
        FloatField x = position.floatField("x");
        FloatField dx = velocity.floatField("dx");
        ComponentTable positions = ComponentTable.of(entities, position);
        ComponentTable velocities = ComponentTable.of(entities, velocity);

        long rock = entities.add();                         // a position only
        long ship = entities.add();                         // a position and a velocity
        positions.add(rock);
        positions.add(ship);
        velocities.add(ship);                               // all fields zero
        velocities.set(ship, dx, 2f);

        Join moving = Join.of(positions, velocities);       // make once, run every frame
        int visited = moving.forEach((entity, rows) ->      // ship only; rows[i]: its row in table i
                positions.setAt(rows[0], x, positions.getAt(rows[0], x) + velocities.getAt(rows[1], dx)));
        float shipX = positions.get(ship, x);               // 2.0

        entities.remove(ship);                              // its components go stale with it
        boolean stillMoving = velocities.has(ship);         // false; get(ship, dx) throws STALE
        int swept = velocities.removeDead();                // 1: the stale row is dropped
        positions.close();
        velocities.close();
        entities.close();
        // README:end

        assertEquals(1, visited);
        assertEquals(2f, shipX);
        assertFalse(stillMoving);
        assertEquals(1, swept);
    }

    @Test
    void readmeSnapshotExample_reloadsTheTableWithItsHandles(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Schema schema = Schema.builder("ships").add(FieldType.FLOAT, "x").build();
        FloatField x = schema.floatField("x");
        Path file = dir.resolve("ships.bulk");
        float loadedX;
        boolean same;
        // README:begin
        BulkTable ships = BulkTable.builder(schema).tag(4000).build();  // fixed tag: 3840..4095
        long ship = ships.add();
        ships.set(ship, x, 7f);
        Snapshots.save(ships, file);                        // header, metadata, 16 KiB blocks, CRC32C
        long next = ships.add();
        ships.close();

        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, schema)) {
            loadedX = loaded.get(ship, x);                  // 7.0: the handle from before the save
            same = loaded.add() == next;                    // true: free list and generations kept
        }
        // README:end
        assertEquals(7f, loadedX);
        assertTrue(same);
    }

    @Test
    void readmeMappedExample_reopensAtTheLastCheckpoint(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Schema schema = Schema.builder("ships").add(FieldType.FLOAT, "x").build();
        FloatField x = schema.floatField("x");
        Path file = dir.resolve("ships.map");
        float reopenedX;
        // README:begin
        BulkTable ships = BulkTable.builder(schema).tag(4000).mapped(file);   // created if absent
        long ship = ships.add();
        ships.set(ship, x, 7f);
        ships.checkpoint();                                 // durable: a crash now loses nothing
        ships.close();                                      // checkpoints too, then unmaps and unlocks

        try (BulkTable reopened = BulkTable.builder(schema).tag(4000).mapped(file)) {
            reopenedX = reopened.get(ship, x);              // 7.0: the handle from before
        }
        // README:end
        assertEquals(7f, reopenedX);
    }

    @Test
    void readmeChangeExample_visitsOnlyTheChunksWrittenSinceTheVersion() {
        Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
        FloatField px = schema.floatField("px");
        FloatField py = schema.floatField("py");
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[10_000];              // 20 chunks of 512
            particles.addAll(handles);
            long h = handles[5_000];                        // in chunk 9
            List<Integer> uploaded = new ArrayList<>();
            // README:begin
            ChangeFilter moved = ChangeFilter.of(px, py).orStructure();   // make once, keep
            int seen = particles.markVersion();             // every write so far is at or before seen

            particles.set(h, px, 5f);                       // stamps px in h's chunk (also chunk.set,
                                                            // writableColumn, add, remove, ...)
            particles.forEachChunk(moved, seen, chunk ->    // only the chunks changed since seen
                    uploaded.add(chunk.index()));           // [9]: h's chunk, 1 of 20
            seen = particles.markVersion();                 // the next pass sees what comes after
            // README:end
            assertEquals(List.of(9), uploaded);
            uploaded.clear();
            particles.forEachChunk(moved, seen, chunk -> uploaded.add(chunk.index()));
            assertEquals(List.of(), uploaded);
        }
    }

    @Test
    void readmeReferencesExample_remapsAndCountsDanglingReferences_andLoadsComponents(
            @org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path soundFile = dir.resolve("sounds.bulk");
        Path voiceFile = dir.resolve("voices.bulk");
        Path entityFile = dir.resolve("entities.bulk");
        Path positionFile = dir.resolve("positions.bulk");
        Schema position = Schema.builder("readmePositions").add(FieldType.FLOAT, "x").build();
        long moved;
        long dangling;
        int components;
        // README:begin
        Schema voices = Schema.builder("voices")
                .add(FieldType.FLOAT, "gain")
                .addHandle("sound", "sounds")               // holds handles of the table "sounds"
                .build();
        HandleField sound = voices.handleField("sound");
        BulkTable soundTable = BulkTable.of(Schema.builder("sounds").add(FieldType.FLOAT, "volume").build());
        BulkTable voiceTable = BulkTable.of(voices);
        long voice = voiceTable.add();
        voiceTable.set(voice, sound, soundTable.add());     // a handle, stored as a long
        Snapshots.save(soundTable, soundFile);              // the file records: sound -> "sounds"
        Snapshots.save(voiceTable, voiceFile);

        // Their tags are still taken: load copies under new tags, then mend the references.
        try (Table sounds2 = Snapshots.load(soundFile, Snapshots.LoadOption.NEW_TAG);
             Table voices2 = Snapshots.load(voiceFile, Snapshots.LoadOption.NEW_TAG)) {
            moved = Snapshots.remap(voices2, sounds2);                  // 1: now a handle of sounds2
            dangling = Snapshots.danglingReferences(voices2, sounds2);  // 0: it names a live sound
        }

        // A component table is saved on its own and loaded for its entity table.
        ComponentTable positions = ComponentTable.of(soundTable, position);
        positions.add(voiceTable.get(voice, sound));
        Snapshots.save(soundTable, entityFile);             // both at the same point
        Snapshots.save(positions, positionFile);
        positions.close();
        soundTable.close();
        try (Table entities = Snapshots.load(entityFile);
             ComponentTable loaded = Snapshots.loadComponents(positionFile, entities, position)) {
            components = loaded.size();                     // 1, for the same entity handle
        }
        voiceTable.close();
        // README:end
        assertEquals(1, moved);
        assertEquals(0, dangling);
        assertEquals(1, components);
    }

    @Test
    void readme_showsEveryExampleExactlyAsCompiled() throws IOException {
        String source = Files.readString(Path.of("src/test/java/dev/bulkdata/storage/ReadmeExampleTest.java"));
        String readme = Files.readString(Path.of("../README.md"));
        String begin = "// README" + ":begin";
        String end = "// README" + ":end";
        int snippets = 0;
        for (int at = source.indexOf(begin); at >= 0; at = source.indexOf(begin, at + 1)) {
            int lineStart = source.lastIndexOf('\n', at) + 1;
            int indent = at - lineStart;
            String body = source.substring(source.indexOf('\n', at) + 1, source.lastIndexOf('\n', source.indexOf(end, at)));
            String dedented = body.lines()
                    .map(line -> line.length() >= indent ? line.substring(indent) : line.strip())
                    .collect(Collectors.joining("\n"));
            assertTrue(readme.contains(dedented), "README.md must contain this example exactly:\n" + dedented);
            snippets++;
        }
        assertEquals(8, snippets);
    }

    @Test
    void ciScript_runsTheReadmeTestCommand() throws IOException {
        String ci = Files.readString(Path.of("../.ci/run"));
        String command = ci.lines().map(String::strip).filter(l -> l.startsWith("mvn ")).findFirst().orElseThrow();
        assertTrue(Files.readString(Path.of("../README.md")).contains(command),
                ".ci/run runs '" + command + "', which the README's quick start must show verbatim");
    }
}
