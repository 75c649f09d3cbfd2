package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.format.FileFormat;

import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.Snapshots.LoadOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Handle fields ({@link FieldType#HANDLE}): declaration, typed access, snapshots that record
 * the target table, {@link Snapshots#remap} after a load under a new tag and
 * {@link Snapshots#danglingReferences}, against a model of which records are live.
 */
class HandleFieldTest {
    @TempDir
    Path dir;

    private static Schema sounds(String name) {
        return Schema.builder(name).add(FieldType.FLOAT, "volume").build();
    }

    /** Voices refer to a sound and to another voice (their own table). */
    private static Schema voices(String name, String soundTable) {
        return Schema.builder(name).add(FieldType.FLOAT, "gain").addHandle("sound", soundTable)
                .addHandle("next", name).build();
    }

    @Test
    void schema_declaresHandleFieldsWithTheirTarget_andRefusesHandleWithoutOne() {
        Schema s = voices("voices", "sounds");
        HandleField sound = s.handleField("sound");
        assertEquals("sounds", sound.target());
        assertEquals("voices", s.handleField("next").target());
        assertEquals(FieldType.HANDLE, sound.type());
        assertEquals(8, FieldType.HANDLE.byteSize());
        assertTrue(s.toString().contains("sound:HANDLE(sounds)"), s.toString());
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class, () -> s.longField("sound"));
        assertTrue(wrongType.getMessage().contains("handleField(\"sound\")"), wrongType.getMessage());

        Schema.Builder b = Schema.builder("t").add(FieldType.INT, "a");
        IllegalArgumentException noTarget = assertThrows(IllegalArgumentException.class,
                () -> b.add(FieldType.HANDLE, "h"));
        assertTrue(noTarget.getMessage().contains("addHandle"), noTarget.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.addHandle("h", "not a name"));
        assertThrows(IllegalArgumentException.class, () -> b.addHandle("h", null));
        assertThrows(IllegalArgumentException.class, () -> b.addHandle("a", "sounds"));  // name taken
        assertThrows(IllegalArgumentException.class, () -> b.addHandle("bad name", "sounds"));
        Schema built = b.build();                                                         // unchanged by the failures
        assertEquals(1, built.fields().size());
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void getAndSet_byHandleChunkEntityAndRow(TableKind kind) {
        Schema s = voices("voices", "sounds");
        HandleField sound = s.handleField("sound");
        try (Table t = kind.of(s)) {
            long a = t.add();
            assertEquals(Handles.NULL, t.get(a, sound), "a new record holds the null handle");
            t.set(a, sound, 0x1234_5678_9ABC_DEF0L);
            assertEquals(0x1234_5678_9ABC_DEF0L, t.get(a, sound));
            t.forEachChunk(chunk -> {
                int slot = chunk.nextLive(0);
                assertEquals(0x1234_5678_9ABC_DEF0L, chunk.get(slot, sound));
                chunk.set(slot, sound, -1L);
            });
            assertEquals(-1L, t.get(a, sound));
            try (ComponentTable c = ComponentTable.of(t, voices("extra", "sounds"))) {
                HandleField extra = c.schema().handleField("sound");
                int row = c.add(a);
                c.set(a, extra, 42L);
                assertEquals(42L, c.getAt(row, extra));
                c.setAt(row, extra, 43L);
                assertEquals(43L, c.get(a, extra));
            }
        }
    }

    /** A model: sounds and voices with references, some of them to removed records. */
    private static final class World {
        final Table sounds;
        final Table voices;
        final HandleField sound;
        final HandleField next;
        final FloatField gain;
        final Set<Long> liveSounds = new HashSet<>();
        final List<Long> everySound = new ArrayList<>();
        /** Live voice -> {sound, next, gain bits}. */
        final Map<Long, long[]> model = new LinkedHashMap<>();

        World(TableKind kind, long seed) {
            sounds = BulkTable.of(sounds("sounds"));
            voices = kind.of(voices("voices", "sounds"));
            sound = voices.schema().handleField("sound");
            next = voices.schema().handleField("next");
            gain = voices.schema().floatField("gain");
            SplittableRandom random = new SplittableRandom(seed);
            for (int step = 0; step < 3_000; step++) {
                int op = random.nextInt(10);
                if (op < 3 || everySound.isEmpty()) {
                    long h = sounds.add();
                    liveSounds.add(h);
                    everySound.add(h);
                } else if (op < 4 && !liveSounds.isEmpty()) {
                    long h = new ArrayList<>(liveSounds).get(random.nextInt(liveSounds.size()));
                    sounds.remove(h);
                    liveSounds.remove(h);
                } else if (op < 8 || model.isEmpty()) {
                    long v = voices.add();
                    long s = random.nextInt(8) == 0 ? Handles.NULL : everySound.get(random.nextInt(everySound.size()));
                    List<Long> keys = new ArrayList<>(model.keySet());
                    long n = keys.isEmpty() || random.nextBoolean() ? Handles.NULL : keys.get(random.nextInt(keys.size()));
                    float g = random.nextFloat();
                    voices.set(v, sound, s);
                    voices.set(v, next, n);
                    voices.set(v, gain, g);
                    model.put(v, new long[] {s, n, Float.floatToRawIntBits(g)});
                } else {
                    List<Long> keys = new ArrayList<>(model.keySet());
                    long v = keys.get(random.nextInt(keys.size()));
                    voices.remove(v);
                    model.remove(v);
                }
            }
        }

        /** References of live voices that name no live record. */
        long dangling() {
            long n = 0;
            for (long[] refs : model.values()) {
                n += refs[0] != Handles.NULL && !liveSounds.contains(refs[0]) ? 1 : 0;
                n += refs[1] != Handles.NULL && !model.containsKey(refs[1]) ? 1 : 0;
            }
            return n;
        }

        long nonNull(int field) {
            return model.values().stream().filter(r -> r[field] != Handles.NULL).count();
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void saveAndLoad_keepsEveryReference_andTheDanglingCountIsTheModels(TableKind kind) throws IOException {
        long seed = Seeds.seed("HandleFieldTest", 0x4A4D_1E00L);
        World w = new World(kind, seed);
        String why = Seeds.replay(seed);
        long dangling = w.dangling();
        assertTrue(dangling > 0 && dangling < w.nonNull(0) + w.nonNull(1), why);
        assertEquals(dangling, Snapshots.danglingReferences(w.voices, w.sounds, w.voices), why);

        Path soundsFile = dir.resolve("sounds.bulk");
        Path voicesFile = dir.resolve("voices.bulk");
        Snapshots.save(w.sounds, soundsFile);
        Snapshots.save(w.voices, voicesFile);
        w.sounds.close();
        w.voices.close();
        try (Table sounds = Snapshots.load(soundsFile); Table voices = Snapshots.load(voicesFile)) {
            HandleField sound = voices.schema().handleField("sound");
            assertEquals("sounds", sound.target(), "the target is in the file");
            for (Map.Entry<Long, long[]> e : w.model.entrySet()) {
                assertEquals(e.getValue()[0], voices.get(e.getKey(), sound), why);
                assertEquals(w.liveSounds.contains(e.getValue()[0]), sounds.contains(voices.get(e.getKey(), sound)), why);
            }
            assertEquals(dangling, Snapshots.danglingReferences(voices, sounds, voices), why);
            assertEquals(w.nonNull(0) + w.nonNull(1), Snapshots.danglingReferences(voices), "no target: all absent");
            assertEquals(0, Snapshots.remap(voices, sounds), "loaded under its own tag: nothing to remap");

            // The same files again, under new tags (the tags are held): references need the remap.
            try (Table sounds2 = Snapshots.load(soundsFile, LoadOption.NEW_TAG);
                 Table voices2 = Snapshots.load(voicesFile, LoadOption.NEW_TAG)) {
                assertEquals(w.nonNull(0) + w.nonNull(1), Snapshots.danglingReferences(voices2, sounds2, voices2),
                        "before the remap every reference names the old tables");
                assertEquals(w.nonNull(0), Snapshots.remap(voices2, sounds2), why);
                assertEquals(w.nonNull(1), Snapshots.remap(voices2, voices2), why);
                TableSnapshot remapped = TableSnapshot.of(voices2);
                assertEquals(0, Snapshots.remap(voices2, sounds2), "a second run of a pair changes nothing");
                assertEquals(0, Snapshots.remap(voices2, voices2), "a second run of a pair changes nothing");
                assertEquals(remapped, TableSnapshot.of(voices2), "a second run of a pair changes nothing");
                assertEquals(dangling, Snapshots.danglingReferences(voices2, sounds2, voices2), why);
                HandleField sound2 = voices2.schema().handleField("sound");
                for (Map.Entry<Long, long[]> e : w.model.entrySet()) {
                    long v = moved(voices2, e.getKey());
                    long[] refs = e.getValue();
                    assertEquals(moved(sounds2, refs[0]), voices2.get(v, sound2), why);
                    assertEquals(moved(voices2, refs[1]), voices2.get(v, voices2.schema().handleField("next")), why);
                    assertEquals(w.liveSounds.contains(refs[0]), sounds2.contains(voices2.get(v, sound2)), why);
                    assertEquals(refs[2], Float.floatToRawIntBits(voices2.get(v, voices2.schema().floatField("gain"))));
                }
                // A referrer other than the loaded table's own: the first loaded voices point at
                // the first sounds; remapping them to sounds2 makes them valid there instead.
                assertEquals(w.nonNull(0), Snapshots.remap(voices, sounds2), "voices' sound tag is sounds2's saved one");
                assertEquals(dangling, Snapshots.danglingReferences(voices, sounds2, voices));
            }
        }
    }

    /** {@code h} as the table loaded under a new tag names it: its tag, the generation moved up. */
    static long moved(Table loaded, long h) {
        if (h == Handles.NULL) {
            return h;
        }
        AbstractTable t = (AbstractTable) loaded;
        HandleLayout l = t.handles;
        return l.pack(t.slots.tag(), l.generation(h) + t.generationShift, l.slot(h));
    }

    @Test
    void remap_movesGenerationsUp_andAHandleAheadOfEveryGenerationBecomesNull() throws IOException {
        Schema s = Schema.builder("shifted").add(FieldType.INT, "x").build();
        Schema refs = Schema.builder("refs").addHandle("to", "shifted").build();
        HandleLayout layout = HandleLayout.of(12, 2);
        try (Table original = BulkTable.builder(s).handleLayout(layout).build();
             Table referrer = BulkTable.builder(refs).handleLayout(layout).build()) {
            long a = original.add();
            long r1 = referrer.add();
            long r2 = referrer.add();
            long r3 = referrer.add();
            HandleField to = refs.handleField("to");
            referrer.set(r1, to, a);
            referrer.set(r2, to, layout.pack(layout.tag(a), 3, 5));   // generation 3, the layout's last
            referrer.set(r3, to, layout.pack(layout.tag(a) == 1 ? 2 : 1, 0, 1)); // another table's tag
            byte[] bytes = SnapshotBytes.save(original);
            try (Table loaded = SnapshotBytes.load(bytes, s, LoadOption.NEW_TAG)) {
                // A fresh JVM's free tags all have floor 0: set the shift a worn tag would give.
                AbstractTable impl = (AbstractTable) loaded;
                impl.generationShift = 2;
                long other = referrer.get(r3, to);
                assertEquals(2, Snapshots.remap(referrer, loaded));
                long expected = layout.generation(a) + 2 > layout.maxGeneration() ? Handles.NULL
                        : layout.pack(impl.slots.tag(), layout.generation(a) + 2, layout.slot(a));
                assertEquals(expected, referrer.get(r1, to));
                assertEquals(Handles.NULL, referrer.get(r2, to), "3 + 2 does not fit two generation bits");
                assertEquals(other, referrer.get(r3, to), "another tag is left alone");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void componentTableReferrer_remapsEveryRow_andCountsOnlyLiveEntitiesComponents(TableKind kind) throws IOException {
        Schema soundSchema = sounds("csounds");
        Schema emitter = Schema.builder("emitter").addHandle("sound", "csounds").build();
        HandleField sound = emitter.handleField("sound");
        try (Table entities = kind.of(Schema.builder("things").add(FieldType.INT, "k").build());
             Table sounds = BulkTable.of(soundSchema);
             ComponentTable emitters = ComponentTable.of(entities, emitter)) {
            long live = sounds.add();
            long gone = sounds.add();
            sounds.remove(gone);
            long e1 = entities.add();
            long e2 = entities.add();
            long e3 = entities.add();
            long e4 = entities.add();
            emitters.add(e1);
            emitters.add(e2);
            emitters.add(e3);
            emitters.add(e4);
            emitters.set(e1, sound, live);
            emitters.set(e2, sound, gone);
            emitters.set(e3, sound, gone);
            entities.remove(e3);                        // its component is stale: not counted
            assertEquals(1, Snapshots.danglingReferences(emitters, sounds));
            assertEquals(2, Snapshots.danglingReferences(emitters), "sounds absent: e1's and e2's; e4's is null");

            byte[] bytes = SnapshotBytes.save(sounds);
            try (Table sounds2 = SnapshotBytes.load(bytes, soundSchema, LoadOption.NEW_TAG)) {
                assertEquals(2, Snapshots.danglingReferences(emitters, sounds2));
                assertEquals(3, Snapshots.remap(emitters, sounds2), "every row, the stale one too");
                long remapped = emitters.get(e1, sound);
                assertEquals(0, Snapshots.remap(emitters, sounds2), "a second run of a pair changes nothing");
                assertEquals(remapped, emitters.get(e1, sound));
                assertEquals(1, Snapshots.danglingReferences(emitters, sounds2));
                assertTrue(sounds2.contains(emitters.get(e1, sound)));
            }
        }
    }

    @Test
    void snapshot_schemaMismatchNamesTheTarget() throws IOException {
        Path file = dir.resolve("v.bulk");
        try (Table t = BulkTable.of(voices("mismatch", "sounds"))) {
            t.add();
            Snapshots.save(t, file);
        }
        StorageFileException e = assertThrows(StorageFileException.class,
                () -> Snapshots.load(file, voices("mismatch", "music")));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("sound:HANDLE(sounds), expected sound:HANDLE(music)"), e.getMessage());
        Schema asLong = Schema.builder("mismatch").add(FieldType.FLOAT, "gain").add(FieldType.LONG, "sound")
                .addHandle("next", "mismatch").build();
        e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, asLong));
        assertEquals(Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("expected sound:LONG"), e.getMessage());
        try (Table ok = Snapshots.load(file, voices("mismatch", "sounds"))) {
            assertEquals(1, ok.size());
        }
    }

    @Test
    void version1Files_load_butCannotHoldHandleFields() throws IOException {
        byte[] plain;
        byte[] withHandles;
        try (Table t = BulkTable.of(sounds("v1")); Table h = BulkTable.of(voices("v1h", "v1"))) {
            t.set(t.add(), t.schema().floatField("volume"), 3f);
            h.add();
            plain = SnapshotBytes.save(t);
            withHandles = SnapshotBytes.save(h);
        }
        for (byte[] bytes : List.of(plain, withHandles)) {
            ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putInt(FileFormat.AT_FORMAT_VERSION, 1);
            SnapshotBytes.reseal(bytes);
        }
        try (Table t = SnapshotBytes.load(plain, null)) {
            assertEquals(3f, t.get(firstHandle(t), t.schema().floatField("volume")));
        }
        StorageFileException e = assertThrows(StorageFileException.class, () -> SnapshotBytes.load(withHandles, null));
        assertEquals(Reason.MALFORMED, e.reason());
        assertTrue(e.getMessage().contains("format version 1"), e.getMessage());
        ByteBuffer.wrap(plain).order(ByteOrder.nativeOrder()).putInt(FileFormat.AT_FORMAT_VERSION, FileFormat.FORMAT_VERSION + 1);
        SnapshotBytes.reseal(plain);
        e = assertThrows(StorageFileException.class, () -> SnapshotBytes.load(plain, null));
        assertEquals(Reason.NEWER_VERSION, e.reason());
        assertTrue(e.getMessage().contains("format version 3 is newer than this library's 2"), e.getMessage());
    }

    private static long firstHandle(Table t) {
        long[] found = new long[1];
        t.forEachChunk(chunk -> found[0] = chunk.handle(chunk.nextLive(0)));
        assertNotEquals(Handles.NULL, found[0]);
        return found[0];
    }

    @Test
    void danglingReferences_refusesANullTarget_andNeedsAnOpenReferrer() {
        Table t = BulkTable.of(voices("closedref", "sounds"));
        t.set(t.add(), t.schema().handleField("sound"), 99L);
        assertThrows(IllegalArgumentException.class, () -> Snapshots.danglingReferences(t, (Table) null));
        t.close();
        assertThrows(IllegalStateException.class, () -> Snapshots.danglingReferences(t));
        assertFalse(t.contains(99L));
    }

    /** danglingReferences counts and changes nothing: neither table, nor the referrer's iteration guard. */
    @Test
    void danglingReferences_countsWithoutChangingAnything() {
        Schema sounds = Schema.builder("d_sounds").add(FieldType.FLOAT, "volume").build();
        Schema voices = Schema.builder("d_voices").addHandle("sound", "d_sounds").build();
        HandleField sound = voices.handleField("sound");
        try (BulkTable s = BulkTable.of(sounds); BulkTable v = BulkTable.of(voices)) {
            long live = s.add();
            long gone = s.add();
            s.remove(gone);
            v.set(v.add(), sound, live);
            v.set(v.add(), sound, gone);
            v.add();                                                  // the null handle: never dangling
            TableSnapshot before = TableSnapshot.of(v);
            TableSnapshot soundsBefore = TableSnapshot.of(s);
            assertEquals(1, Snapshots.danglingReferences(v, s));
            assertEquals(2, Snapshots.danglingReferences(v), "no target given: both non-null values");
            assertEquals(before, TableSnapshot.of(v));
            assertEquals(soundsBefore, TableSnapshot.of(s));
            assertTrue(v.add() != 0, "no iteration guard left held");
        }
    }
}
