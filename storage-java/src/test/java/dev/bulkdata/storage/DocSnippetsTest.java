package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.RecordOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.foreign.Linker;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Java code blocks of the README and of {@code docs/} that use storage-java alone, compiled
 * and run here, each followed by checks of what its comments say; and the checks that keep the
 * documents and the tests of every module in step.
 *
 * <p>A snippet is the lines between {@code // doc:begin <document>} and {@code // doc:end} in
 * a test source. The document must show it, dedented, as one of its {@code java} or
 * {@code kotlin} code blocks, exactly; and every {@code java} or {@code kotlin} block of the
 * README and of {@code docs/} must be a snippet of some module's tests, so that no block goes
 * uncompiled. Blocks that are not meant to compile use another fence language ({@code sh},
 * {@code xml}, {@code text}, {@code sql}).
 */
class DocSnippetsTest {
    /** The repository root: the tests run in storage-java/. */
    static final Path ROOT = Path.of("..");

    /**
     * Documents whose code blocks another module's tests own in another way: the SQL guide's
     * blocks elide their setup ({@code ... fill particles ...}) and storage-arrow's tests run
     * the programs they come from.
     */
    static final List<String> NOT_SNIPPETS = List.of("docs/sql-and-arrow.md");

    // ---------------------------------------------------------------------------------------
    // The snippets of storage-java

    @Test
    void aTablesLife_addSetIterateRemoveClose() {
        // doc:begin README.md
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
        // doc:end

        assertEquals("particles#1@0", particles.format(h));
        assertEquals(1.0f, x);
        assertFalse(alive);
        assertTrue(particles.isClosed());
        assertEquals(512, schema.slotsPerBlock());
        try (BulkTable again = BulkTable.of(schema)) {
            long g = again.add();
            again.remove(g);
            InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> again.get(g, px));
            assertTrue(e.getMessage().startsWith("stale handle particles#1@0 (table 'particles', slot 1): handle "
                    + "generation 0, slot generation 1, slot is free"), e.getMessage());
        }
    }

    @Test
    void resetEveryFrame_sameSlotsSameBlocks() {
        Schema schema = Schema.builder("particles").add(FieldType.FLOAT, "px").build();
        // doc:begin docs/tables-and-handles.md
        BulkTable particles = BulkTable.builder(schema)
                .handleLayout(HandleLayout.of(20, 21, 11))   // up to 1,048,575 records, 2^32 frames
                .build();
        long[] frame = new long[1000];
        particles.addAll(frame, 0, frame.length);
        long first = frame[0];
        // ... next frame:
        particles.reset();                                  // first is stale now
        particles.addAll(frame, 0, frame.length);           // the same slots, the same blocks
        // doc:end
        assertFalse(particles.contains(first));
        assertEquals(InvalidHandleException.Reason.STALE,
                assertThrows(InvalidHandleException.class, () -> particles.get(first, schema.floatField("px"))).reason());
        assertEquals(particles.handleLayout().slot(first), particles.handleLayout().slot(frame[0]));
        assertEquals(1, particles.stats().blocks());
        assertEquals(1_048_575, particles.handleLayout().maxSlot());
        particles.close();
    }

    @Test
    void addAllWithInit_writesEveryNewRecord() {
        Schema schema = particleSchema();
        FloatField PX = schema.floatField("px");
        FloatField VX = schema.floatField("vx");
        int count = 1500;
        float[] xs = new float[count];
        float[] vxs = new float[count];
        for (int i = 0; i < count; i++) {
            xs[i] = i;
            vxs[i] = -i;
        }
        try (BulkTable particles = BulkTable.of(schema)) {
            // doc:begin docs/tables-and-handles.md
            long[] spawned = new long[count];
            particles.addAll(spawned, 0, count, (chunk, slot, i) -> {   // a block's worth at a time
                chunk.set(slot, PX, xs[i]);                            // written while in cache,
                chunk.set(slot, VX, vxs[i]);                           // no handle looked up again
            });
            // doc:end
            assertEquals(count, particles.size());
            for (int i = 0; i < count; i++) {
                assertEquals(xs[i], particles.get(spawned[i], PX));
                assertEquals(vxs[i], particles.get(spawned[i], VX));
            }
        }
    }

    @Test
    void aChunkLoop_sumsTheLiveRecordsColumnByColumn() {
        Schema schema = particleSchema();
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
            // doc:begin docs/iteration-and-change-versions.md
            try (ChunkIteration chunks = particles.iterate()) {   // add/remove now fail fast (CME)
                for (Chunk chunk : chunks) {
                    MemorySegment t = chunk.column(T);             // SOA: one float per slot
                    int n = chunk.slotCount();
                    if (chunk.liveCount() == n) {                  // no hole: one loop from 0
                        for (int s = 0; s < n; s++) {
                            sum += t.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, s);
                        }
                        continue;
                    }
                    for (int w = 0; w < chunk.liveWordCount(); w++) {
                        long live = chunk.liveBits(w);             // 64 slots at a time; holes skipped
                        while (live != 0) {
                            int s = w * 64 + Long.numberOfTrailingZeros(live);
                            live &= live - 1;
                            sum += t.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, s);
                        }
                    }
                }
            }
            // doc:end
            assertEquals(expected, sum);
        }
    }

    @Test
    void aPackedTable_keepsRowsDense_andSortsThemWithinABudget() {
        Schema schema = particleSchema();
        FloatField px = schema.floatField("px");
        List<Long> rows = new ArrayList<>();
        // doc:begin docs/tables-and-handles.md
        PackedTable packed = PackedTable.of(schema);        // same handles; rows always dense
        long a = packed.add();
        long b = packed.add();
        long c = packed.add();
        packed.set(a, px, 3f);
        packed.set(b, px, 1f);
        packed.set(c, px, 2f);
        packed.remove(a);                                   // c's row moves into a's: rows b, c

        RecordOrder byPx = (h1, h2) -> Float.compare(packed.get(h1, px), packed.get(h2, px));
        long swaps = packed.defragment(1_000, byPx);        // once a frame: at most 1000 swaps
        packed.forEach((chunk, slot) -> rows.add(chunk.handle(slot)));   // b, c: px order
        float y = packed.get(c, px);                        // 2.0: handles survive every move
        packed.close();
        // doc:end

        assertEquals(1, swaps);
        assertEquals(List.of(b, c), rows);
        assertEquals(2f, y);
    }

    @Test
    void aJoin_visitsTheEntitiesThatHaveBoth_andStaleComponentsAreDropped() {
        // doc:begin docs/relations.md
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
        boolean stillMoving = velocities.contains(ship);    // false; get(ship, dx) throws STALE
        int swept = velocities.removeDead();                // 1: the stale row is dropped
        positions.close();
        velocities.close();
        entities.close();
        // doc:end

        assertEquals(1, visited);
        assertEquals(2f, shipX);
        assertFalse(stillMoving);
        assertEquals(1, swept);
    }

    @Test
    void aJoin_byRuns_updatesEveryMatchThroughChunkColumns() {
        BulkTable entities = BulkTable.of(Schema.builder("entities").add(FieldType.INT, "kind").build());
        Schema position = Schema.builder("position").add(FieldType.FLOAT, "x", "y").build();
        Schema velocity = Schema.builder("velocity").add(FieldType.FLOAT, "dx", "dy").build();
        FloatField x = position.floatField("x");
        FloatField dx = velocity.floatField("dx");
        ComponentTable positions = ComponentTable.of(entities, position);
        ComponentTable velocities = ComponentTable.of(entities, velocity);
        ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
        long[] ids = new long[3000];
        entities.addAll(ids);
        for (int i = ids.length - 1; i >= 0; i--) {          // rows out of entity order: runs are cut
            if (i % 3 == 0) {
                velocities.setAt(velocities.add(ids[i]), dx, i);
            }
        }
        for (long id : ids) {
            positions.add(id);
        }
        Join moving = Join.of(positions, velocities);
        // doc:begin docs/relations.md
        moving.forEachRun(run -> {                          // every frame; runs of matches
            Chunk p = run.chunk(0), v = run.chunk(1);       // members in Join.of's order
            MemorySegment px = p.writableColumn(x), vx = v.column(dx);
            for (int i = 0, n = run.count(); i < n; i++) {
                long ps = run.slot(0, i), vs = run.slot(1, i);  // match i's slot in each chunk
                px.setAtIndex(F, ps, px.getAtIndex(F, ps) + vx.getAtIndex(F, vs));
            }
        });                                                 // F = ValueLayout.JAVA_FLOAT_UNALIGNED
        // doc:end
        for (int i = 0; i < ids.length; i++) {
            assertEquals(i % 3 == 0 ? i : 0f, positions.get(ids[i], x));
        }
        positions.close();
        velocities.close();
        entities.close();
    }

    @Test
    void aGroup_walksBothTablesInLockstep_byRunsAndByEntity() {
        BulkTable entities = BulkTable.of(Schema.builder("entities").add(FieldType.INT, "kind").build());
        Schema position = Schema.builder("position").add(FieldType.FLOAT, "x", "y").build();
        Schema velocity = Schema.builder("velocity").add(FieldType.FLOAT, "dx", "dy").build();
        FloatField x = position.floatField("x");
        FloatField dx = velocity.floatField("dx");
        ComponentTable positions = ComponentTable.of(entities, position);
        ComponentTable velocities = ComponentTable.of(entities, velocity);
        ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
        long[] ids = new long[3000];
        entities.addAll(ids);
        for (int i = 0; i < ids.length; i++) {
            positions.add(ids[i]);
            if (i % 3 == 0) {
                velocities.setAt(velocities.add(ids[i]), dx, i);
            }
        }
        // doc:begin docs/relations.md
        Group moving = Group.of(positions, velocities);    // once; add and remove keep it from now on
        moving.forEachRun(run -> {                          // every frame
            Chunk p = run.chunk(0), v = run.chunk(1);       // members in Group.of's order
            MemorySegment px = p.writableColumn(x), vx = v.column(dx);
            long ps = run.slot(0), vs = run.slot(1);        // first slots, as long: the checks leave the loop
            for (int i = 0, n = run.count(); i < n; i++) {
                px.setAtIndex(F, ps + i, px.getAtIndex(F, ps + i) + vx.getAtIndex(F, vs + i));
            }
        });                                                 // F = ValueLayout.JAVA_FLOAT_UNALIGNED
        moving.forEach((entity, row) ->                     // or one entity at a time: one row in every member
                positions.setAt(row, x, positions.getAt(row, x) + velocities.getAt(row, dx)));
        // doc:end
        for (int i = 0; i < ids.length; i++) {
            assertEquals(i % 3 == 0 ? 2f * i : 0f, positions.get(ids[i], x));
        }
        assertEquals(1000, moving.size());
        positions.close();
        velocities.close();
        entities.close();
    }

    @Test
    void aSnapshot_reloadsTheTableWithItsHandlesAndFreeList(@TempDir Path dir) throws IOException {
        Schema schema = Schema.builder("ships").add(FieldType.FLOAT, "x").build();
        FloatField x = schema.floatField("x");
        Path file = dir.resolve("ships.bulk");
        float loadedX;
        boolean same;
        // doc:begin docs/saving-and-mapped-tables.md
        BulkTable ships = BulkTable.builder(schema).tag(4000).build();  // fixed tag: 3840..4095
        long ship = ships.add();
        ships.set(ship, x, 7f);
        Snapshots.save(ships, file);                        // a temporary file, then moved into place
        long next = ships.add();
        ships.close();

        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, schema)) {
            loadedX = loaded.get(ship, x);                  // 7.0: the handle from before the save
            same = loaded.add() == next;                    // true: free list and generations kept
        }
        // doc:end
        assertEquals(7f, loadedX);
        assertTrue(same);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no temporary file left");
        }
    }

    @Test
    void aComponentTable_isSavedOnItsOwn_andLoadedForItsEntityTable(@TempDir Path dir) throws IOException {
        Path entityFile = dir.resolve("entities.bulk");
        Path positionFile = dir.resolve("positions.bulk");
        Schema position = Schema.builder("docPositions").add(FieldType.FLOAT, "x").build();
        BulkTable entities = BulkTable.of(Schema.builder("docEntities").add(FieldType.INT, "kind").build());
        entities.add();
        long entity = entities.add();
        boolean found;
        // doc:begin docs/saving-and-mapped-tables.md
        ComponentTable positions = ComponentTable.of(entities, position);
        positions.add(entity);
        Snapshots.save(entities, entityFile);               // both at the same point
        Snapshots.save(positions, positionFile);
        positions.close();
        entities.close();
        try (Table loadedEntities = Snapshots.load(entityFile);
             ComponentTable loaded = Snapshots.loadComponents(positionFile, loadedEntities, position)) {
            found = loaded.contains(entity);                     // true: the same entity handle finds it
        }
        // doc:end
        assertTrue(found);
    }

    @Test
    void aSave_ofVersion1_loadsInVersion2_withTheFieldItAdded(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("particles.bulk");
        Path mappedFile = dir.resolve("particles.map");
        float health;
        float x;
        float mappedHealth;
        // doc:begin docs/saving-and-mapped-tables.md
        Schema v1 = Schema.builder("particles").add(FieldType.FLOAT, "x", "y").build();
        BulkTable particles = BulkTable.builder(v1).tag(4001).build();
        long p = particles.add();
        particles.set(p, v1.floatField("x"), 3f);
        Snapshots.save(particles, file);                    // last release's save
        particles.close();

        Schema v2 = Schema.builder("particles")             // this release: one more field
                .add(FieldType.FLOAT, "x", "y", "health")
                .loadDefault("health", 100)                 // what records saved without it get
                .build();
        try (BulkTable loaded = Snapshots.load(file, BulkTable.class, v2)) {
            x = loaded.get(p, v2.floatField("x"));          // 3.0: kept, and the handle still valid
            health = loaded.get(p, v2.floatField("health"));   // 100.0: the declared default
        }
        // doc:end
        assertEquals(3f, x);
        assertEquals(100f, health);
        long q;
        try (BulkTable t = BulkTable.builder(v1).tag(4001).mapped(mappedFile)) {
            q = t.add();
        }
        // doc:begin docs/saving-and-mapped-tables.md
        try (BulkTable migrated = BulkTable.builder(v2).tag(4001).mapped(mappedFile)) {   // a v1 file: rewritten
            mappedHealth = migrated.get(q, v2.floatField("health"));                    // 100.0
        }
        // doc:end
        assertEquals(100f, mappedHealth);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(2, files.count(), "no migration file left");
        }
    }

    @Test
    void aMappedTable_reopensAtTheLastCheckpoint(@TempDir Path dir) throws IOException {
        Schema schema = Schema.builder("ships").add(FieldType.FLOAT, "x").build();
        FloatField x = schema.floatField("x");
        Path file = dir.resolve("ships.map");
        float reopenedX;
        // doc:begin docs/saving-and-mapped-tables.md
        MappedBulkTable ships = BulkTable.builder(schema).tag(4000).mapped(file);   // created if absent
        long ship = ships.add();
        ships.set(ship, x, 7f);
        ships.checkpoint();                                 // durable: a crash now loses nothing
        ships.close();                                      // checkpoints too, then unmaps and unlocks

        try (BulkTable reopened = BulkTable.builder(schema).tag(4000).mapped(file)) {
            reopenedX = reopened.get(ship, x);              // 7.0: the handle from before
        }
        // doc:end
        assertEquals(7f, reopenedX);
    }

    @Test
    void aFilteredPass_visitsOnlyTheChunksWrittenSinceTheVersion() {
        Schema schema = particleSchema();
        FloatField px = schema.floatField("px");
        FloatField py = schema.floatField("py");
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[10_000];              // 20 chunks of 512
            particles.addAll(handles);
            long h = handles[5_000];                        // in chunk 9
            List<Integer> uploaded = new ArrayList<>();
            // doc:begin docs/iteration-and-change-versions.md
            ChangeFilter moved = ChangeFilter.of(px, py).orStructure();   // make once, keep
            int seen = particles.markVersion();             // every write so far is at or before seen

            particles.set(h, px, 5f);                       // stamps px in h's chunk (also chunk.set,
                                                            // writableColumn, add, remove, ...)
            particles.forEachChunk(moved, seen, chunk ->    // only the chunks changed since seen
                    uploaded.add(chunk.index()));           // [9]: h's chunk, 1 of 20
            seen = particles.markVersion();                 // the next pass sees what comes after
            // doc:end
            assertEquals(List.of(9), uploaded);
            assertEquals(20, particles.stats().blocks());
            uploaded.clear();
            particles.forEachChunk(moved, seen, chunk -> uploaded.add(chunk.index()));
            assertEquals(List.of(), uploaded);
        }
    }

    @Test
    void handleFields_areRemappedAfterALoadUnderNewTags_andDanglingOnesCounted(@TempDir Path dir)
            throws IOException {
        Path soundFile = dir.resolve("sounds.bulk");
        Path voiceFile = dir.resolve("voices.bulk");
        long moved;
        long dangling;
        // doc:begin docs/relations.md
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
        voiceTable.close();
        soundTable.close();
        // doc:end
        assertEquals(1, moved);
        assertEquals(0, dangling);
    }

    @Test
    void aBadHandle_saysWhy() {
        Schema schema = particleSchema();
        FloatField px = schema.floatField("px");
        InvalidHandleException.Reason reason = null;
        String owner = null;
        try (BulkTable particles = BulkTable.of(schema)) {
            // doc:begin docs/errors-and-threads.md
            long h = particles.add();
            particles.remove(h);
            boolean alive = particles.contains(h);              // false: contains never throws
            try {
                particles.get(h, px);
            } catch (InvalidHandleException e) {
                reason = e.reason();                            // STALE
                owner = e.table();                              // "particles"
            }
            // doc:end
            assertFalse(alive);
        }
        assertEquals(InvalidHandleException.Reason.STALE, reason);
        assertEquals("particles", owner);
    }

    @Test
    void aMemoryBudget_refusesTheAddThatPassesIt() {
        Schema schema = particleSchema();
        String full = null;
        int size;
        // doc:begin docs/errors-and-threads.md
        try (BulkTable cache = BulkTable.builder(schema).memoryBudget(64 << 10).build()) {   // 4 blocks
            try {
                while (true) {
                    cache.add();
                }
            } catch (CapacityExceededException e) {
                full = e.getMessage();   // "table 'particles' cannot take a block (16384 bytes): its
            }                            // memory budget (memoryBudget) is 65536 bytes and it holds ..."
            size = cache.size();         // 2047: every record added before the refusal, nothing more
        }
        // doc:end
        assertTrue(full.startsWith("table 'particles' cannot take a block (16384 bytes): its memory budget"
                + " (memoryBudget) is 65536 bytes and it holds 65536 bytes in blocks"), full);
        assertEquals(2047, size);
    }

    @Test
    void aParallelPass_updatesEveryRecordOnTwoThreads() throws InterruptedException {
        Schema schema = particleSchema();
        FloatField px = schema.floatField("px");
        FloatField vx = schema.floatField("vx");
        float dt = 0.5f;
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[5000];
            particles.addAll(handles, 0, handles.length);
            for (int i = 0; i < handles.length; i += 7) {
                particles.remove(handles[i]);
            }
            particles.forEach((chunk, slot) -> chunk.set(slot, vx, slot % 10));
            // doc:begin docs/errors-and-threads.md
            ExecutorService pool = Executors.newFixedThreadPool(2);   // or a ForkJoinPool; make once, keep
            particles.forEachChunk(pool, 2, chunk -> {                // this thread and one task of the pool
                for (int start = chunk.nextLive(0), end; start >= 0; start = chunk.nextLive(end)) {
                    end = chunk.nextHole(start);
                    for (int s = start; s < end; s++) {
                        chunk.set(s, px, chunk.get(s, px) + chunk.get(s, vx) * dt);
                    }
                }
            });
            // doc:end
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS));
            int[] checked = {0};
            particles.forEach((chunk, slot) -> {
                assertEquals((slot % 10) * dt, chunk.get(slot, px));
                checked[0]++;
            });
            assertEquals(particles.size(), checked[0]);
        }
    }

    @Test
    void changesDuringAPass_expireAndSpawn_appliedWhenThePassEnds() {
        Schema schema = particleSchema();
        FloatField T = schema.floatField("t");
        java.lang.foreign.ValueLayout.OfFloat F = java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
        float dt = 0.5f;
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[3000];
            particles.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                particles.set(handles[i], T, i % 3 == 0 ? 0.25f : 5f);
            }
            int capacity = particles.capacity();
            // doc:begin docs/iteration-and-change-versions.md
            particles.forEachChunk(chunk -> {
                MemorySegment t = chunk.writableColumn(T);
                for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                    float life = t.getAtIndex(F, s) - dt;
                    t.setAtIndex(F, s, life);
                    if (life <= 0f) {
                        chunk.removeLater(s);                                  // expired
                        chunk.addLater(h -> particles.set(h, T, 2f));          // and a new one
                    }
                }
            });                                                                // applied here
            // doc:end
            assertEquals(handles.length, particles.size());
            assertEquals(capacity, particles.capacity());
            for (int i = 0; i < handles.length; i += 3) {
                assertFalse(particles.contains(handles[i]));
            }
            int[] fresh = {0};
            particles.forEach((chunk, s) -> fresh[0] += chunk.get(s, T) == 2f ? 1 : 0);
            assertEquals(handles.length / 3, fresh[0]);
        }
    }

    @Test
    void aChunksColumn_goesToNativeCode_chunkByChunk() throws Throwable {
        Schema schema = particleSchema();
        FloatField PX = schema.floatField("px");
        float uploaded;
        try (BulkTable particles = BulkTable.of(schema)) {
            long[] handles = new long[3 * schema.slotsPerBlock()];
            particles.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                particles.set(handles[i], PX, i + 0.5f);
            }
            // doc:begin docs/iteration-and-change-versions.md
            Linker linker = Linker.nativeLinker();                 // C's memcpy, as any native function
            MethodHandle memcpy = linker.downcallHandle(linker.defaultLookup().find("memcpy").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
            try (Arena arena = Arena.ofConfined();
                 ChunkIteration chunks = particles.iterate()) {   // open while native code reads the columns
                long columnBytes = particles.schema().slotsPerBlock() * 4L;
                MemorySegment staging = arena.allocate(columnBytes * chunks.count());
                for (Chunk chunk : chunks) {
                    MemorySegment px = chunk.column(PX);           // this block's px values, holes included
                    MemorySegment to = staging.asSlice(chunk.index() * columnBytes, columnBytes);
                    MemorySegment copied = (MemorySegment) memcpy.invokeExact(to, px, columnBytes);
                }
                uploaded = staging.getAtIndex(ValueLayout.JAVA_FLOAT, 1);   // slot 1's px (slot 0 is never live)
            }
            // doc:end
        }
        assertEquals(0.5f, uploaded, "the first record's px, copied by C's memcpy");
    }

    private static Schema particleSchema() {
        return Schema.builder("particles")
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
    }

    // ---------------------------------------------------------------------------------------
    // The documents and the snippets of every module

    @Test
    void everySnippetOfThisModule_isACodeBlockOfItsDocument() {
        List<Snippet> snippets = snippets(Path.of("src/test"));
        assertFalse(snippets.isEmpty());
        for (Snippet s : snippets) {
            assertTrue(blocks(ROOT.resolve(s.doc())).contains(s.block()),
                    s.where() + ": " + s.doc() + " must show this " + s.block().language() + " block exactly:\n"
                            + s.block().text());
        }
    }

    @Test
    void everyJavaAndKotlinBlockOfTheDocs_isASnippetThatATestRuns() throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.filter(m -> Files.isDirectory(m.resolve("src/test")))
                    .forEach(m -> snippets.addAll(snippets(m.resolve("src/test"))));
        }
        int blocks = 0;
        for (String doc : documents()) {
            if (NOT_SNIPPETS.contains(doc)) {
                continue;
            }
            for (Block block : blocks(ROOT.resolve(doc))) {
                if (!block.language().equals("java") && !block.language().equals("kotlin")) {
                    continue;
                }
                blocks++;
                assertTrue(snippets.stream().anyMatch(s -> s.doc().equals(doc) && s.block().equals(block)),
                        doc + " shows a " + block.language() + " block that no test runs: put it between // doc:begin "
                                + doc + " and // doc:end in a test, or fence it as text if it is not code:\n"
                                + block.text());
            }
        }
        assertTrue(blocks >= 20, "found only " + blocks + " blocks");
    }

    @Test
    void theCiScript_runsTheTestCommandTheReadmeShows() throws IOException {
        String ci = Files.readString(ROOT.resolve(".ci/run"));
        String command = ci.lines().map(String::strip).filter(l -> l.startsWith("mvn ")).findFirst().orElseThrow();
        assertTrue(blocks(ROOT.resolve("README.md")).stream()
                        .anyMatch(b -> b.language().equals("sh") && b.text().lines().anyMatch(l -> l.startsWith(command + " "))),
                ".ci/run runs '" + command + "', which the README's quick start must show verbatim");
    }

    /** README.md and every document under docs/, as paths from the repository root. */
    static List<String> documents() throws IOException {
        List<String> docs = new ArrayList<>(List.of("README.md"));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.map(f -> "docs/" + f.getFileName()).filter(f -> f.endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** A fenced code block of a document: its language (the fence's first word) and its lines, dedented. */
    record Block(String language, String text) {
    }

    /** A snippet of a test source: where it is, the document that shows it, the block it must equal. */
    record Snippet(String where, String doc, Block block) {
    }

    /** The fenced code blocks of a markdown file, each dedented by its fence's indentation. */
    static List<Block> blocks(Path markdown) {
        List<String> lines;
        try {
            lines = Files.readAllLines(markdown);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String fence = lines.get(i).strip();
            if (!fence.startsWith("```")) {
                continue;
            }
            int indent = lines.get(i).indexOf('`');
            String language = fence.substring(3).strip().split("\\s+")[0];
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                String line = lines.get(j);
                text.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
                j++;
            }
            if (j == lines.size()) {
                fail(markdown + ": the code block at line " + (i + 1) + " is not closed");
            }
            blocks.add(new Block(language, text.toString()));
            i = j;
        }
        return blocks;
    }

    /** The snippets of every .java and .kt file under a test source root. */
    static List<Snippet> snippets(Path testRoot) {
        List<Snippet> snippets = new ArrayList<>();
        try (Stream<Path> files = Files.walk(testRoot)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".kt")).toList()) {
                List<String> lines = Files.readAllLines(file);
                String language = file.toString().endsWith(".kt") ? "kotlin" : "java";
                for (int i = 0; i < lines.size(); i++) {
                    String begin = lines.get(i).strip();
                    if (!begin.startsWith("// doc:begin")) {
                        continue;
                    }
                    String doc = begin.substring("// doc:begin".length()).strip();
                    int indent = lines.get(i).indexOf('/');
                    StringBuilder text = new StringBuilder();
                    int j = i + 1;
                    while (j < lines.size() && !lines.get(j).strip().equals("// doc:end")) {
                        String line = lines.get(j);
                        text.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
                        j++;
                    }
                    String where = file + ":" + (i + 1);
                    if (j == lines.size() || doc.isEmpty()) {
                        fail(where + ": a snippet needs '// doc:begin <document>' and '// doc:end'");
                    }
                    snippets.add(new Snippet(where, doc, new Block(language, text.toString())));
                    i = j;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return snippets;
    }
}
