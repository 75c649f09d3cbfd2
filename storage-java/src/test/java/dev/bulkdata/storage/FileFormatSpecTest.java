package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The file format specification, {@code docs/format.md}, against the files this library writes.
 *
 * <p>The test reads every table of the document with a {@code constant} column (name, value,
 * and for field types their width) and every table with a {@code field} column (a structure:
 * offset, name, type, condition), writes snapshots and mapped files through the public API,
 * walks their bytes with the document's structures (offsets, types, counts and conditions as
 * the document gives them) and checks every named value against what the library was asked to
 * store. Every constant and field of the document must be checked by name
 * ({@link #everyNameOfTheDocumentIsChecked}), so a value changed on either side, or a row added
 * without a check, fails.
 */
class FileFormatSpecTest {
    private static final Spec SPEC = Spec.read(Path.of("../docs/format.md"));

    @TempDir
    Path dir;

    /** Every constant and field name an assertion has compared with a written file. */
    private final Set<String> checked = new TreeSet<>();

    // -------------------------------------------------------------------------------------------
    // Scenarios

    /** A BulkTable of every field type: header, metadata, schema, meta words, links, blocks, trailer. */
    @Test
    void bulkTableSnapshot() throws IOException {
        Schema schema = Schema.builder("spec_bulk")
                .add(FieldType.BYTE, "b").add(FieldType.SHORT, "s").add(FieldType.CHAR, "c")
                .add(FieldType.INT, "i").add(FieldType.LONG, "l").add(FieldType.FLOAT, "f")
                .add(FieldType.DOUBLE, "d").add(FieldType.BOOLEAN, "z").addHandle("h", "spec_other")
                .build();
        try (BulkTable table = BulkTable.builder(schema).reuseOrder(ReuseOrder.FIFO).maxCapacity(100_000).build()) {
            HandleLayout layout = table.handleLayout();
            long[] handles = new long[601];
            for (int n = 1; n <= 600; n++) {
                long h = table.add();
                handles[(int) layout.slot(h)] = h;
                setAll(table, schema, h);
            }
            int[] removed = {10, 300, 5};
            for (int slot : removed) {
                table.remove(handles[slot]);
            }
            byte[] file = save(table);
            Values v = walkSnapshot(file);

            checkSnapshotHeader(file, v, "kind.bulk", table.stats().blocks());
            Values m = v.struct("meta");
            checkMetaCommon(m, layout, handles[1], "reuse.fifo", "layout.soa", 100_000);
            check("meta.floor", layout.generation(handles[1]), m);    // slot 1 was fresh
            check("meta.limit", 601, m);
            check("meta.size", 597, m);
            check("meta.retired", 0, m);
            check("meta.freeLength", 3, m);
            check("meta.freeTail", 5, m);
            check("meta.entryCount", 602, m);
            check("meta.reuseCursor", 0, m);
            check("meta.reuseEnd", 0, m);
            assertEquals(save(table).length, file.length);
            assertEquals(m.num("meta.identity"), walkSnapshot(save(table)).struct("meta").num("meta.identity"),
                    "the identity is the table's, the same in every snapshot");

            long[] words = m.longs("meta.metaWords");
            checked.add("meta.metaWords");
            assertEquals(0, words[0], "slot 0's meta word");
            assertEquals(0, words[601], "slot limit, never opened");
            for (int slot = 1; slot <= 600; slot++) {
                int generation = layout.generation(handles[slot]);
                boolean live = !contains(removed, slot);
                assertEquals(live ? liveWord(generation) : freeWord(generation + 1), words[slot], "slot " + slot);
            }
            checked.add("metaWord.live");
            checked.add("metaWord.generationShift");

            Values s = m.struct("meta.schema");
            List<Values> fields = checkSchema(s, schema, RecordLayout.SOA);
            for (Values f : fields) {
                FieldType type = FieldType.values()[(int) f.num("field.type")];
                checkConst("fieldType." + name(type) + "#width", f.num("field.slotStride"));   // SOA: the width
            }
            Blocks blocks = new Blocks(file, v.num("header.blocksOffset"), (int) s.num("schema.blockBytes"));
            for (int slot = 1; slot <= 600; slot++) {
                if (!contains(removed, slot)) {
                    checkValues(blocks, fields, slot, (int) s.num("schema.slotsPerBlock"));
                }
            }
            checkPadding(file, v, blocks);
            // The free list in the link words: the first declared field of 4 bytes or more is "i".
            Values link = fieldNamed(fields, "i");
            int spb = (int) s.num("schema.slotsPerBlock");
            assertEquals(List.of(10, 300, 5), chain(slot -> blocks.u32(link, slot, spb), 0));
            checkTrailer(file, v, blocks);
        }
    }

    /** A PackedTable (AOS): reuse code, payloads, back-links, rows in the blocks. */
    @Test
    void packedTableSnapshot() throws IOException {
        Schema schema = Schema.builder("spec_packed").layout(RecordLayout.AOS)
                .add(FieldType.SHORT, "s").add(FieldType.FLOAT, "x").add(FieldType.BYTE, "b").build();
        try (PackedTable table = PackedTable.builder(schema).build()) {
            HandleLayout layout = table.handleLayout();
            long[] handles = new long[11];
            for (int n = 1; n <= 10; n++) {
                long h = table.add();
                handles[(int) layout.slot(h)] = h;
                table.set(h, schema.floatField("x"), layout.slot(h) * 1.5f);
            }
            table.remove(handles[3]);
            table.remove(handles[7]);
            byte[] file = save(table);
            Values v = walkSnapshot(file);
            checkSnapshotHeader(file, v, "kind.packed", table.stats().blocks());
            Values m = v.struct("meta");
            checkMetaCommon(m, layout, handles[1], "reuse.fifo", "layout.aos", HandleLayout.MAX_SLOT);
            check("meta.limit", 11, m);
            check("meta.size", 8, m);
            check("meta.freeLength", 2, m);
            check("meta.freeTail", 7, m);
            check("meta.entryCount", 12, m);
            List<Values> fields = checkSchema(m.struct("meta.schema"), schema, RecordLayout.AOS);
            Values s = m.struct("meta.schema");
            long[] payloads = m.longs("meta.payloads");
            long[] back = m.longs("meta.backLinks");
            checked.add("meta.payloads");
            checked.add("meta.backLinks");
            assertEquals(List.of(3, 7), chain(slot -> (int) payloads[slot], 0), "the free list in the payloads");
            Blocks blocks = new Blocks(file, v.num("header.blocksOffset"), (int) s.num("schema.blockBytes"));
            int spb = (int) s.num("schema.slotsPerBlock");
            Values x = fieldNamed(fields, "x");
            Set<Long> rows = new TreeSet<>();
            for (int slot = 1; slot <= 10; slot++) {
                if (slot == 3 || slot == 7) {
                    continue;
                }
                int row = (int) payloads[slot];
                assertTrue(rows.add((long) row) && row < 8, "slot " + slot + "'s row " + row);
                assertEquals(slot, back[row], "back-link of row " + row);
                assertEquals(slot * 1.5f, Float.intBitsToFloat(blocks.u32(x, row, spb)), "row " + row + " holds slot "
                        + slot + "'s record");
            }
            checkTrailer(file, v, blocks);
        }
    }

    /** LIFO's code; SWEEP's cursor in the reuse cursor and its list in take order; a FIFO clear's cleared range. */
    @Test
    void reuseOrdersAndTheSweep() throws IOException {
        Schema schema = Schema.builder("spec_reuse").add(FieldType.INT, "n").build();
        try (BulkTable lifo = BulkTable.builder(schema).reuseOrder(ReuseOrder.LIFO).build()) {
            lifo.add();
            checkConst("reuse.lifo", walkSnapshot(save(lifo)).struct("meta").num("meta.reuseOrder"));
        }
        try (BulkTable sweep = BulkTable.builder(schema).reuseOrder(ReuseOrder.SWEEP).build()) {
            long[] handles = new long[21];
            for (int n = 1; n <= 20; n++) {
                long h = sweep.add();
                handles[(int) sweep.handleLayout().slot(h)] = h;
            }
            for (int slot : new int[] {15, 4, 9}) {
                sweep.remove(handles[slot]);
            }
            byte[] file = save(sweep);
            Values m = walkSnapshot(file).struct("meta");
            checkConst("reuse.sweep", m.num("meta.reuseOrder"));
            assertEquals(21, m.num("meta.reuseCursor"), "the cursor: after the last slot taken");
            assertEquals(0, m.num("meta.reuseEnd"));
            assertEquals(15, m.num("meta.freeTail"));
            assertEquals(List.of(4, 9, 15), links(file, "n"), "take order from the cursor, wrapping");
            long taken = sweep.add();
            assertEquals(4, sweep.handleLayout().slot(taken));
            file = save(sweep);
            m = walkSnapshot(file).struct("meta");
            assertEquals(5, m.num("meta.reuseCursor"));
            assertEquals(List.of(9, 15), links(file, "n"));
        }
        try (BulkTable fifo = BulkTable.builder(schema).reuseOrder(ReuseOrder.FIFO).build()) {
            for (int n = 0; n < 8; n++) {
                fifo.add();
            }
            fifo.clear();
            fifo.add();        // takes slot 1 from the sweep
            Values m = walkSnapshot(save(fifo)).struct("meta");
            assertEquals(2, m.num("meta.reuseCursor"));
            assertEquals(9, m.num("meta.reuseEnd"), "the limit when the table was cleared");
            assertEquals(0, m.num("meta.freeLength"));
            assertEquals(0, m.num("meta.freeTail"));
        }
    }

    /** The layout rule and the link word: a hidden link column (SOA, AOS), an 8-byte link field, AOS alignment. */
    @Test
    void blockLayoutAndLinkWord() throws IOException {
        Schema soaNarrow = Schema.builder("spec_narrow").add(FieldType.BYTE, "a").add(FieldType.SHORT, "b").build();
        Schema aosNarrow = Schema.builder("spec_narrow").layout(RecordLayout.AOS)
                .add(FieldType.BYTE, "a").add(FieldType.SHORT, "b").add(FieldType.BYTE, "c").build();
        Schema aosMixed = Schema.builder("spec_mixed").layout(RecordLayout.AOS).add(FieldType.BYTE, "a")
                .add(FieldType.DOUBLE, "d").add(FieldType.SHORT, "s").add(FieldType.INT, "i").build();
        Schema longLink = Schema.builder("spec_long").add(FieldType.BYTE, "a").add(FieldType.LONG, "l")
                .add(FieldType.INT, "i").add(FieldType.CHAR, "c").build();
        for (Schema schema : List.of(soaNarrow, aosNarrow, aosMixed, longLink)) {
            try (BulkTable table = BulkTable.builder(schema).reuseOrder(ReuseOrder.FIFO).build()) {
                long[] handles = new long[40];
                for (int n = 1; n < 40; n++) {
                    handles[n] = table.add();
                }
                table.remove(handles[7]);
                table.remove(handles[31]);
                byte[] file = save(table);
                Values m = walkSnapshot(file).struct("meta");
                checkSchema(m.struct("meta.schema"), schema, schema.layout());
                // The link word: the hidden column, or the first declared field of 4 bytes or more.
                Computed c = Computed.of(schema);
                Values v = walkSnapshot(file);
                Blocks blocks = new Blocks(file, v.num("header.blocksOffset"), c.slotBytes * c.slotsPerBlock);
                int at = c.link;
                List<Integer> list = chain(slot -> blocks.u32At(c.offsets[at]
                        + (long) (slot % c.slotsPerBlock) * c.strides[at], slot / c.slotsPerBlock), 0);
                assertEquals(List.of(7, 31), list, schema.toString());
            }
        }
    }

    /** A retired slot's meta word, and the retired count. */
    @Test
    void retiredSlot() throws IOException {
        Schema schema = Schema.builder("spec_retire").add(FieldType.INT, "n").build();
        try (BulkTable table = BulkTable.builder(schema).handleLayout(HandleLayout.of(8, 1))
                .reuseOrder(ReuseOrder.FIFO).build()) {
            while (table.stats().retired() == 0) {
                table.remove(table.add());
            }
            Values m = walkSnapshot(save(table)).struct("meta");
            check("meta.retired", 1, m);
            long max = table.handleLayout().maxGeneration();
            assertEquals(SPEC.constant("metaWord.retired") | max << generationShift(), m.longs("meta.metaWords")[1],
                    "a retired slot keeps the last generation");
            checked.add("metaWord.retired");
        }
    }

    /** A table that never opened a slot, and one whose only add was cancelled: entry counts 0 and 2. */
    @Test
    void neverOpenedSlots() throws IOException {
        Schema schema = Schema.builder("spec_empty").add(FieldType.FLOAT, "x").build();
        try (BulkTable table = BulkTable.of(schema)) {
            byte[] file = save(table);
            Values v = walkSnapshot(file);
            Values m = v.struct("meta");
            assertEquals(0, m.num("meta.limit"));
            assertEquals(0, m.num("meta.entryCount"));
            assertEquals(0, v.num("header.blockCount"));
            assertEquals(1, m.num("meta.reuseCursor"), "SWEEP's cursor before any add");
            long h = table.add();
            assertTrue(table.cancelAdd(h));
            m = walkSnapshot(save(table)).struct("meta");
            assertEquals(0, m.num("meta.limit"));
            assertEquals(2, m.num("meta.entryCount"));
            assertEquals(freeWord(table.handleLayout().generation(h) + 1), m.longs("meta.metaWords")[1],
                    "the generation the cancelled add left");
        }
    }

    /** A ComponentTable's snapshot: kind 3, its entity table's identity, keys, owners, rows. */
    @Test
    void componentTableSnapshot() throws IOException {
        Schema entitySchema = Schema.builder("spec_entities").add(FieldType.INT, "n").build();
        Schema schema = Schema.builder("spec_components").add(FieldType.FLOAT, "v").add(FieldType.BYTE, "k").build();
        try (BulkTable entities = BulkTable.builder(entitySchema).reuseOrder(ReuseOrder.FIFO).build();
             ComponentTable components = ComponentTable.of(entities, schema)) {
            HandleLayout layout = entities.handleLayout();
            long stale = entities.add();
            entities.remove(stale);
            List<Long> owners = new ArrayList<>();
            for (int n = 0; n < 5; n++) {
                owners.add(entities.add());    // the first reuses slot 1 at its next generation
            }
            for (long e : List.of(owners.get(3), owners.get(0), owners.get(4))) {
                components.add(e);
                components.set(e, schema.floatField("v"), layout.slot(e) + 0.25f);
            }
            Values entity = walkSnapshot(save(entities)).struct("meta");
            byte[] file = save(components);
            Values v = walkSnapshot(file);
            checkSnapshotHeader(file, v, "kind.components", 1);
            Values m = v.struct("cmeta");
            check("cmeta.identity", entity.num("meta.identity"), m);
            check("cmeta.tag", layout.tag(stale), m);
            check("cmeta.slotBits", layout.slotBits(), m);
            check("cmeta.generationBits", layout.generationBits(), m);
            check("cmeta.epochBits", layout.epochBits(), m);
            checkConst("layout.soa", m.num("cmeta.layout"));
            checked.add("cmeta.layout");
            check("cmeta.reserved14", 0, m);
            check("cmeta.rows", 3, m);
            check("cmeta.reserved20", 0, m);
            List<Values> fields = checkSchema(m.struct("cmeta.schema"), schema, RecordLayout.SOA);
            checked.add("cmeta.schema");
            long[] keys = m.longs("cmeta.keys");
            long[] gens = m.longs("cmeta.owners");
            checked.add("cmeta.keys");
            checked.add("cmeta.owners");
            Values s = m.struct("cmeta.schema");
            Blocks blocks = new Blocks(file, v.num("header.blocksOffset"), (int) s.num("schema.blockBytes"));
            long[] order = {owners.get(3), owners.get(0), owners.get(4)};
            for (int row = 0; row < 3; row++) {
                assertEquals(layout.slot(order[row]), keys[row], "row " + row + "'s entity slot");
                assertEquals(layout.generation(order[row]), gens[row], "row " + row + "'s owner generation");
                assertEquals(layout.slot(order[row]) + 0.25f, Float.intBitsToFloat(blocks.u32(fieldNamed(fields, "v"),
                        row, (int) s.num("schema.slotsPerBlock"))));
            }
            assertEquals(layout.generation(stale) + 1, gens[1], "slot 1 reused at its next generation");
            checkTrailer(file, v, blocks);
        }
    }

    /** A mapped BulkTable with block checksums: both header slots, commit records, metadata and its tail, blocks. */
    @Test
    void mappedFile() throws IOException {
        Schema schema = Schema.builder("spec_mapped").add(FieldType.LONG, "id").add(FieldType.FLOAT, "x")
                .add(FieldType.INT, "n").build();
        Path path = dir.resolve("mapped.bulk");
        BulkTable.Builder builder = BulkTable.builder(schema).reuseOrder(ReuseOrder.FIFO).blockChecksums(true);
        HandleLayout layout;
        long[] handles = new long[3001];
        try (MappedBulkTable table = builder.mapped(path)) {
            layout = table.handleLayout();
            for (int n = 1; n <= 3000; n++) {
                long h = table.add();
                handles[(int) layout.slot(h)] = h;
                table.set(h, schema.longField("id"), 1000L * layout.slot(h));
            }
            table.remove(handles[2000]);
            table.remove(handles[17]);
            table.checkpoint();                                   // checkpoint 2, slot A
            table.remove(handles[1500]);
            assertEquals(3, table.stats().blocks());
        }                                                         // checkpoint 3, slot B, by close()
        byte[] file = Files.readAllBytes(path);
        Values a = walkMappedSlot(file, "mapped.slotA");
        Values b = walkMappedSlot(file, "mapped.slotB");
        checkMappedHeader(file, a, "kind.bulk", true, 2, 3);
        checkMappedHeader(file, b, "kind.bulk", true, 3, 3);
        checked.add("mapped.slotA");
        checked.add("mapped.slotB");
        checkCommit(file, "mapped.commitA", a, "commitState.open");
        checkCommit(file, "mapped.commitB", b, "commitState.closed");

        Values m = b.struct("meta");
        checkMetaCommon(m, layout, 0, "reuse.fifo", "layout.soa", HandleLayout.MAX_SLOT);
        check("meta.freeLength", 3, m);
        Values tail = b.struct("tail");
        checked.add("tail.freeList");
        assertArrayEquals(new long[] {2000, 17, 1500}, tail.longs("tail.freeList"));
        check("tail.regionCount", 1, tail);                      // 3 blocks fit the first region
        List<Values> regions = tail.structs("tail.regions");
        checked.add("tail.regions");
        Values first = regions.get(0);
        long stride = SPEC.constant("blockStride");
        assertEquals(0, first.num("region.offset") % stride);
        checked.add("region.offset");
        checkConst("regionBlocks.first", first.num("region.blocks"));
        checked.add("region.blocks");
        check("tail.areaAOffset", a.num("slot.metadataOffset"), tail);
        check("tail.areaBOffset", b.num("slot.metadataOffset"), tail);
        for (Values slot : List.of(a, b)) {
            String area = slot == a ? "tail.areaACapacity" : "tail.areaBCapacity";
            long capacity = tail.num(area);
            assertTrue(capacity >= slot.num("header.metadataLength") && capacity % stride == 0, area + " " + capacity);
            checked.add(area);
        }
        // The file's first region or area starts where the data starts: the area of checkpoint 1.
        checkConst("mapped.dataStart", Math.min(first.num("region.offset"),
                Math.min(tail.num("tail.areaAOffset"), tail.num("tail.areaBOffset"))));
        // Block i: the i-th 16 KiB-strided block of the regions; its CRC32C in the metadata.
        Values s = m.struct("meta.schema");
        int blockBytes = (int) s.num("schema.blockBytes");
        long[] crcs = tail.longs("tail.blockCrcs");
        checked.add("tail.blockCrcs");
        Blocks blocks = new Blocks(file, first.num("region.offset"), blockBytes);
        assertEquals(3, crcs.length);
        for (int i = 0; i < crcs.length; i++) {
            assertEquals(crcs[i], crc(file, blocks.start(i), blockBytes), "block " + i + "'s CRC32C");
        }
        List<Values> fields = checkSchema(s, schema, RecordLayout.SOA);
        int spb = (int) s.num("schema.slotsPerBlock");
        for (int slot : new int[] {1, 999, 2048, 2999, 3000}) {
            assertEquals(1000L * slot, blocks.u64(fieldNamed(fields, "id"), slot, spb), "slot " + slot);
        }

        // Opening a checkpoint written by close() makes its record "open" before the table is handed out.
        try (MappedBulkTable reopened = builder.mapped(path)) {
            assertEquals(OpenedCheckpoint.State.CLOSED, reopened.openedCheckpoint().state());
            ByteBuffer record = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.nativeOrder());
            assertEquals(SPEC.constant("commitState.open"), record.getInt((int) SPEC.constant("mapped.commitB")
                    + SPEC.offset("commit.state")));
        }

        // regionBlocks.max is the reader's bound: one block more is malformed, exactly that many
        // is read (and found past the file's end).
        long maxBlocks = SPEC.constant("regionBlocks.max");
        int at = first.at("region.blocks");
        StorageFileException over = openPatched(path, file, b, at, maxBlocks + 1, builder);
        assertEquals(StorageFileException.Reason.MALFORMED, over.reason(), over.getMessage());
        assertTrue(over.getMessage().contains("1 to " + maxBlocks + " blocks"), over.getMessage());
        StorageFileException at4096 = openPatched(path, file, b, at, maxBlocks, builder);
        assertEquals(StorageFileException.Reason.TRUNCATED, at4096.reason(), at4096.getMessage());
        checked.add("regionBlocks.max");
    }

    /** A mapped PackedTable without block checksums: flags, no checksum or free-list section. */
    @Test
    void mappedPackedFile() throws IOException {
        Schema schema = Schema.builder("spec_mapped_packed").add(FieldType.FLOAT, "x").build();
        Path path = dir.resolve("packed.bulk");
        try (MappedPackedTable table = PackedTable.builder(schema).mapped(path)) {
            long h = table.add();
            table.add();
            table.remove(h);
        }                                                         // checkpoint 2, slot A
        byte[] file = Files.readAllBytes(path);
        Values a = walkMappedSlot(file, "mapped.slotA");
        checkMappedHeader(file, a, "kind.packed", false, 2, 1);
        Values m = a.struct("meta");
        assertEquals(1, m.num("meta.size"));
        assertEquals(List.of(1), chain(slot -> (int) m.longs("meta.payloads")[slot], 0));
        Values tail = a.struct("tail");
        assertEquals(null, tail.find("tail.blockCrcs"));
        assertEquals(null, tail.find("tail.freeList"));
        assertEquals(0, tail.num("tail.areaAOffset") % SPEC.constant("blockStride"));
    }

    /** The compatibility rule's cases, at the document's offsets. */
    @Test
    void compatibility() throws IOException {
        Schema plain = Schema.builder("spec_compat").add(FieldType.FLOAT, "x").build();
        Schema handles = Schema.builder("spec_compat_h").addHandle("h", "spec_compat").build();
        byte[] good;
        byte[] withHandle;
        try (BulkTable a = BulkTable.of(plain); BulkTable b = BulkTable.of(handles)) {
            a.add();
            b.add();
            good = save(a);
            withHandle = save(b);
        }
        int version = SPEC.offset("header.formatVersion");
        int flags = SPEC.offset("header.flags");
        int order = SPEC.offset("header.byteOrder");
        long current = SPEC.constant("formatVersion");
        assertReason(StorageFileException.Reason.NEWER_VERSION, patchU32(good, version, current + 1, false));
        assertReason(StorageFileException.Reason.NEWER_VERSION, patchU32(good, flags, 4, false));
        assertReason(StorageFileException.Reason.KIND_MISMATCH, patchU32(good, flags, SPEC.constant("flag.mapped"), false));
        assertReason(StorageFileException.Reason.NEWER_VERSION, patchU32(good, flags,
                SPEC.constant("flag.mapped") | SPEC.constant("flag.blockCrcs") | 4, false));
        byte[] other = good.clone();
        other[order] = (byte) (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
                ? SPEC.constant("byteOrder.big") : SPEC.constant("byteOrder.little"));
        assertReason(StorageFileException.Reason.BYTE_ORDER, other);
        checked.add("byteOrder.little");
        checked.add("byteOrder.big");
        // A version 1 file: read without handle fields; with one it is malformed.
        try (Table old = load(patchU32(good, version, 1, true))) {
            assertEquals(1, old.size());
        }
        assertReason(StorageFileException.Reason.MALFORMED, patchU32(withHandle, version, 1, true));
    }

    /** Every constant and field of the document is compared with a written file by some scenario. */
    @Test
    void everyNameOfTheDocumentIsChecked() throws IOException {
        bulkTableSnapshot();
        packedTableSnapshot();
        reuseOrdersAndTheSweep();
        blockLayoutAndLinkWord();
        retiredSlot();
        neverOpenedSlots();
        componentTableSnapshot();
        mappedFile();
        mappedPackedFile();
        compatibility();
        Set<String> missing = new TreeSet<>(SPEC.names());
        missing.removeAll(checked);
        assertEquals(Set.of(), missing, "named in docs/format.md but checked by no scenario of this test");
        Set<String> unknown = new TreeSet<>(checked);
        unknown.removeAll(SPEC.names());
        assertEquals(Set.of(), unknown, "checked by this test but not in docs/format.md");
    }

    // -------------------------------------------------------------------------------------------
    // Checks shared by the scenarios

    private void checkSnapshotHeader(byte[] file, Values v, String kind, int blockCount) {
        checkCommonHeader(file, v, 0, kind, 0);
        check("header.blockCount", blockCount, v);
        long metaLength = v.num("header.metadataLength");
        long stride = checkConst("blockStride", v.num("header.blockStride"));
        checked.add("header.blockStride");
        long headerBytes = SPEC.constant("headerBytes");
        check("header.blocksOffset", (headerBytes + metaLength + stride - 1) / stride * stride, v);
        check("header.metadataCrc", crc(file, headerBytes, (int) metaLength), v);
        checked.add("headerBytes");          // the metadata, which the CRC32C covers, starts there
        check("header.fileLength", file.length, v);
        assertEquals(v.num("header.blocksOffset") + blockCount * (stride + 4) + 4, file.length, "section 3's length");
        // The metadata holds exactly what the walk of its structure read.
        assertEquals(metaLength, v.num("metadataEnd") - headerBytes, "the metadata's length");
        check("header.metadataLength", metaLength, v);
    }

    /** The fields of a header at {@code base} that snapshots and mapped files share. */
    private void checkCommonHeader(byte[] file, Values v, int base, String kind, long flags) {
        byte[] magic = v.bytes("header.magic");
        assertArrayEquals(SPEC.bytes("magic"), magic);
        checked.add("header.magic");
        checked.add("magic");
        String order = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? "byteOrder.little" : "byteOrder.big";
        checkConst(order, v.num("header.byteOrder"));
        checked.add("header.byteOrder");
        checkConst(kind, v.num("header.kind"));
        checked.add("header.kind");
        check("header.reserved10", 0, v);
        checkConst("formatVersion", v.num("header.formatVersion"));
        checked.add("header.formatVersion");
        check("header.flags", flags, v);
        byte[] header = Arrays.copyOfRange(file, base, base + (int) SPEC.constant("headerBytes"));
        int at = SPEC.offset("header.headerCrc");
        ByteBuffer.wrap(header).order(ByteOrder.nativeOrder()).putInt(at, 0);
        check("header.headerCrc", crc(header, 0, header.length), v);
        check("header.reserved52", 0, v);
    }

    private void checkMappedHeader(byte[] file, Values v, String kind, boolean checksums, long sequence, int blocks) {
        long flags = SPEC.constant("flag.mapped") | (checksums ? SPEC.constant("flag.blockCrcs") : 0);
        checkCommonHeader(file, v, (int) v.num("slotBase"), kind, flags);
        checked.add("flag.mapped");
        checked.add(checksums ? "flag.blockCrcs" : "flag.mapped");
        check("slot.sequence", sequence, v);
        assertEquals(sequence % 2, "mapped.slotB".equals(v.text("slotName")) ? 1 : 0, "slot A even, B odd");
        long stride = SPEC.constant("blockStride");
        long offset = v.num("slot.metadataOffset");
        assertTrue(offset >= SPEC.constant("mapped.dataStart") && offset % stride == 0, "metadata offset " + offset);
        checked.add("slot.metadataOffset");
        long length = v.num("header.metadataLength");
        assertEquals(length, v.num("metadataEnd") - offset, "the metadata's length");
        check("header.metadataLength", length, v);
        check("header.metadataCrc", crc(file, offset, (int) length), v);
        check("header.blockCount", blocks, v);
        assertEquals(stride, v.num("header.blockStride"));
    }

    private void checkCommit(byte[] file, String where, Values slot, String state) {
        int at = (int) SPEC.constant(where);
        checked.add(where);
        Values c = walk("commit", ByteBuffer.wrap(file).order(ByteOrder.nativeOrder()), at, null);
        checkConst("commitMagic", c.num("commit.magic"));
        checked.add("commit.magic");
        checkConst(state, c.num("commit.state"));
        checked.add("commit.state");
        check("commit.sequence", slot.num("slot.sequence"), c);
        check("commit.headerCrc", slot.num("header.headerCrc"), c);
        check("commit.crc", crc(file, at, SPEC.offset("commit.crc")), c);
        assertEquals(at + SPEC.offset("commit.crc") + 4, c.num("end"), "a commit record's length");
    }

    /** The metadata fields kinds 1 and 2 share; {@code handle} one of the table's handles, or 0. */
    private void checkMetaCommon(Values m, HandleLayout handles, long handle, String reuse, String layout,
                                 long maxSlot) {
        long identity = m.num("meta.identity");
        assertNotEquals(0, identity);
        checked.add("meta.identity");
        check("meta.slotBits", handles.slotBits(), m);
        check("meta.generationBits", handles.generationBits(), m);
        if (handle != 0) {
            check("meta.tag", handles.tag(handle), m);
            assertEquals(handle >>> (64 - checkConst("handle.tagBits", HandleLayout.TAG_BITS)), m.num("meta.tag"));
        }
        checkConst("handle.maxSlotBits", HandleLayout.MAX_SLOT_BITS);
        checkConst("metaWord.generationBits", HandleLayout.MAX_GENERATION_BITS);
        checkConst("tag.max", HandleLayout.MAX_TAG);
        checkConst(reuse, m.num("meta.reuseOrder"));
        checked.add("meta.reuseOrder");
        checkConst(layout, m.num("meta.layout"));
        checked.add("meta.layout");
        check("meta.epoch", handles.epochBits() << 11, m);     // epoch 0: the tables here are never emptied
        checkConst("handle.maxEpochBits", HandleLayout.MAX_EPOCH_BITS);
        check("meta.maxSlot", maxSlot, m);
        checked.add("meta.schema");
    }

    /**
     * Checks a schema section against {@code schema} and against the document's layout rule
     * (section 6), computed here from the declared types; returns its fields.
     */
    private List<Values> checkSchema(Values s, Schema schema, RecordLayout layout) {
        byte[] name = schema.name().getBytes(StandardCharsets.UTF_8);
        check("schema.nameLength", name.length, s);
        assertArrayEquals(name, s.bytes("schema.name"));
        checked.add("schema.name");
        List<Values> fields = s.structs("schema.fields");
        check("schema.fieldCount", schema.fields().size(), s);
        checked.add("schema.fields");
        Computed c = Computed.of(schema);
        for (int i = 0; i < fields.size(); i++) {
            Values f = fields.get(i);
            Field declared = schema.fields().get(i);
            checkConst("fieldType." + name(declared.type()), f.num("field.type"));
            checked.add("field.type");
            check("field.nameLength", declared.name().length(), f);
            assertEquals(declared.name(), new String(f.bytes("field.name"), StandardCharsets.US_ASCII));
            checked.add("field.name");
            if (declared instanceof HandleField h) {
                check("field.targetLength", h.target().length(), f);
                assertEquals(h.target(), new String(f.bytes("field.target"), StandardCharsets.US_ASCII));
                checked.add("field.target");
            } else {
                assertEquals(null, f.find("field.target"), "no target but for a handle field");
            }
            check("field.blockOffset", c.offsets[i], f);
            check("field.slotStride", c.strides[i], f);
        }
        check("schema.slotBytes", c.slotBytes, s);
        check("schema.slotsPerBlock", c.slotsPerBlock, s);
        check("schema.blockBytes", (long) c.slotsPerBlock * c.slotBytes, s);
        assertEquals(schema.slotBytes(), c.slotBytes);
        assertEquals(schema.slotsPerBlock(), c.slotsPerBlock);
        assertEquals(schema.blockBytes(), c.slotsPerBlock * c.slotBytes);
        assertEquals(layout, schema.layout());
        return fields;
    }

    /** Every field of the record in {@code slot} holds what {@link #setAll} wrote. */
    private void checkValues(Blocks blocks, List<Values> fields, int slot, int spb) {
        for (Values f : fields) {
            FieldType type = FieldType.values()[(int) f.num("field.type")];
            long at = blocks.start(slot / spb) + f.num("field.blockOffset") + (long) (slot % spb) * f.num("field.slotStride");
            ByteBuffer b = blocks.buffer;
            long expected = value(type, slot);
            long got = switch ((int) checkWidth(type)) {
                case 1 -> b.get((int) at);
                case 2 -> b.getShort((int) at);
                case 4 -> b.getInt((int) at);
                default -> b.getLong((int) at);
            };
            assertEquals(expected, got, "field " + type + " of slot " + slot);
        }
    }

    private void checkPadding(byte[] file, Values v, Blocks blocks) {
        long stride = SPEC.constant("blockStride");
        for (int i = 0; i < v.num("header.blockCount"); i++) {
            for (long at = blocks.start(i) + blocks.blockBytes; at < blocks.start(i) + stride; at++) {
                if (file[(int) at] != 0) {
                    fail("block " + i + "'s padding holds " + file[(int) at] + " at " + at);
                }
            }
        }
    }

    private void checkTrailer(byte[] file, Values v, Blocks blocks) {
        Values t = v.struct("trailer");
        long[] crcs = t.longs("trailer.blockCrcs");
        assertEquals(v.num("header.blockCount"), crcs.length);
        for (int i = 0; i < crcs.length; i++) {
            assertEquals(crcs[i], crc(file, blocks.start(i), blocks.blockBytes), "block " + i + "'s CRC32C");
        }
        checked.add("trailer.blockCrcs");
        check("trailer.crc", crc(file, t.at("trailer.blockCrcs"), 4 * crcs.length), t);
        assertEquals(file.length, t.num("end"), "the trailer ends the file");
    }

    private long checkWidth(FieldType type) {
        long width = SPEC.constant("fieldType." + name(type) + "#width");
        checked.add("fieldType." + name(type) + "#width");
        return width;
    }

    private void check(String name, long expected, Values v) {
        assertEquals(expected, v.num(name), name);
        checked.add(name);
    }

    /** Asserts that a constant of the document has the value the file or the code shows; returns it. */
    private long checkConst(String name, long actual) {
        long value = SPEC.constant(name);
        assertEquals(value, actual, "constant " + name);
        checked.add(name);
        return value;
    }

    private static long liveWord(int generation) {
        return (long) generation << generationShift() | SPEC.constant("metaWord.live");
    }

    private static long freeWord(int generation) {
        return (long) generation << generationShift();
    }

    private static int generationShift() {
        return (int) SPEC.constant("metaWord.generationShift");
    }

    // -------------------------------------------------------------------------------------------
    // Files

    private static byte[] save(Table table) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            Snapshots.save(table, Channels.newChannel(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static byte[] save(ComponentTable table) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            Snapshots.save(table, Channels.newChannel(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static Table load(byte[] bytes) throws IOException {
        return Snapshots.load(Channels.newChannel(new ByteArrayInputStream(bytes)), "bytes", Table.class, null);
    }

    private static void assertReason(StorageFileException.Reason reason, byte[] bytes) {
        StorageFileException e = assertThrows(StorageFileException.class, () -> load(bytes).close());
        assertEquals(reason, e.reason(), e.getMessage());
    }

    /** A copy with a u32 of the header changed, its header CRC32C recomputed if {@code reseal}. */
    private static byte[] patchU32(byte[] file, int at, long value, boolean reseal) {
        byte[] copy = file.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder());
        b.putInt(at, (int) value);
        if (reseal) {
            int crcAt = SPEC.offset("header.headerCrc");
            b.putInt(crcAt, 0);
            b.putInt(crcAt, (int) crc(copy, 0, (int) SPEC.constant("headerBytes")));
        }
        return copy;
    }

    /**
     * Opens a copy of a mapped file whose newest metadata has a u32 changed, its metadata and
     * header CRC32C recomputed; returns what the open throws.
     */
    private static StorageFileException openPatched(Path path, byte[] file, Values slot, int at, long value,
                                                 BulkTable.Builder builder) throws IOException {
        byte[] copy = file.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder());
        b.putInt(at, (int) value);
        int base = (int) slot.num("slotBase");
        long offset = slot.num("slot.metadataOffset");
        b.putInt(base + SPEC.offset("header.metadataCrc"), (int) crc(copy, offset,
                (int) slot.num("header.metadataLength")));
        b.putInt(base + SPEC.offset("header.headerCrc"), 0);
        b.putInt(base + SPEC.offset("header.headerCrc"), (int) crc(copy, base, (int) SPEC.constant("headerBytes")));
        Path patched = path.resolveSibling("patched-" + value + ".bulk");
        Files.write(patched, copy);
        return assertThrows(StorageFileException.class, () -> builder.mapped(patched).close());
    }

    private static long crc(byte[] bytes, long from, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, (int) from, length);
        return crc.getValue();
    }

    /** The free list of a BulkTable snapshot, read from the link words in field {@code linkField}'s place. */
    private static List<Integer> links(byte[] file, String linkField) {
        Values v = walkSnapshot(file);
        Values s = v.struct("meta").struct("meta.schema");
        Values link = fieldNamed(s.structs("schema.fields"), linkField);
        Blocks blocks = new Blocks(file, v.num("header.blocksOffset"), (int) s.num("schema.blockBytes"));
        int spb = (int) s.num("schema.slotsPerBlock");
        return chain(slot -> blocks.u32(link, slot, spb), 0);
    }

    /** Follows links from {@code start} until a link is 0; at most 1,000 steps. */
    private static List<Integer> chain(java.util.function.IntUnaryOperator link, int start) {
        List<Integer> slots = new ArrayList<>();
        for (int slot = link.applyAsInt(start); slot != 0; slot = link.applyAsInt(slot)) {
            slots.add(slot);
            assertTrue(slots.size() < 1000, () -> "a free list that does not end: " + slots.subList(0, 10));
        }
        return slots;
    }

    private static Values fieldNamed(List<Values> fields, String name) {
        for (Values f : fields) {
            if (new String(f.bytes("field.name"), StandardCharsets.US_ASCII).equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no field " + name);
    }

    /** Blocks at {@code start + i * blockStride}, {@code blockBytes} long. */
    private static final class Blocks {
        final ByteBuffer buffer;
        final long start;
        final int blockBytes;

        Blocks(byte[] file, long start, int blockBytes) {
            this.buffer = ByteBuffer.wrap(file).order(ByteOrder.nativeOrder());
            this.start = start;
            this.blockBytes = blockBytes;
        }

        long start(int block) {
            return start + block * SPEC.constant("blockStride");
        }

        /** The u32 at byte {@code at} of block {@code block}. */
        int u32At(long at, int block) {
            return buffer.getInt((int) (start(block) + at));
        }

        int u32(Values field, int record, int spb) {
            return u32At(field.num("field.blockOffset") + (long) (record % spb) * field.num("field.slotStride"),
                    record / spb);
        }

        long u64(Values field, int record, int spb) {
            return buffer.getLong((int) (start(record / spb) + field.num("field.blockOffset")
                    + (long) (record % spb) * field.num("field.slotStride")));
        }
    }

    // -------------------------------------------------------------------------------------------
    // Values written by setAll: one per type and slot, each fitting its type's width

    private static void setAll(Table table, Schema schema, long h) {
        int slot = (int) table.handleLayout().slot(h);
        table.set(h, schema.byteField("b"), (byte) value(FieldType.BYTE, slot));
        table.set(h, schema.shortField("s"), (short) value(FieldType.SHORT, slot));
        table.set(h, schema.charField("c"), (char) value(FieldType.CHAR, slot));
        table.set(h, schema.intField("i"), (int) value(FieldType.INT, slot));
        table.set(h, schema.longField("l"), value(FieldType.LONG, slot));
        table.set(h, schema.floatField("f"), Float.intBitsToFloat((int) value(FieldType.FLOAT, slot)));
        table.set(h, schema.doubleField("d"), Double.longBitsToDouble(value(FieldType.DOUBLE, slot)));
        table.set(h, schema.booleanField("z"), value(FieldType.BOOLEAN, slot) == 1);
        table.set(h, schema.handleField("h"), value(FieldType.HANDLE, slot));
    }

    /** The value of a field of type {@code type} in {@code slot}, as the signed number its bytes read as. */
    private static long value(FieldType type, int slot) {
        return switch (type) {
            case BYTE -> (byte) (slot * 7 + 1);
            case SHORT -> (short) (slot * 301 - 5);
            case CHAR -> (short) (slot * 13 + 40000);
            case INT -> slot * 100_003 + 11;
            case LONG -> slot * 0x1_0000_0001L - 3;
            case FLOAT -> Float.floatToRawIntBits(slot * 0.5f + 1);
            case DOUBLE -> Double.doubleToRawLongBits(slot * -0.25 - 1);
            case BOOLEAN -> slot % 3 == 0 ? 1 : 0;
            case HANDLE -> 0x7FF0_0000_0000_0000L | slot;
        };
    }

    private static boolean contains(int[] values, int value) {
        return Arrays.stream(values).anyMatch(x -> x == value);
    }

    private static String name(FieldType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }

    // -------------------------------------------------------------------------------------------
    // The layout rule of section 6, computed from the declared types

    /** Block offsets and slot strides of the declared fields, and the link column. */
    private record Computed(int[] offsets, int[] strides, int slotBytes, int slotsPerBlock, int link) {
        static Computed of(Schema schema) {
            List<Integer> widths = new ArrayList<>();
            for (Field f : schema.fields()) {
                widths.add((int) SPEC.constant("fieldType." + name(f.type()) + "#width"));
            }
            int declared = widths.size();
            boolean hidden = widths.stream().allMatch(w -> w < 4);
            if (hidden) {
                widths.add(4);
            }
            int n = widths.size();
            int[] offsets = new int[n];
            int[] strides = new int[n];
            int slotBytes;
            int spb;
            int block = (int) SPEC.constant("blockStride");
            if (schema.layout() == RecordLayout.SOA) {
                slotBytes = widths.stream().mapToInt(Integer::intValue).sum();
                spb = Integer.highestOneBit(block / slotBytes);
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    order.add(i);
                }
                order.sort((x, y) -> Integer.compare(widths.get(y), widths.get(x)));    // stable
                int column = 0;
                for (int i : order) {
                    offsets[i] = column;
                    strides[i] = widths.get(i);
                    column += spb * widths.get(i);
                }
            } else {
                int end = 0;
                int widest = 1;
                for (int i = 0; i < n; i++) {
                    int w = widths.get(i);
                    offsets[i] = (end + w - 1) / w * w;
                    end = offsets[i] + w;
                    widest = Math.max(widest, w);
                }
                slotBytes = (end + widest - 1) / widest * widest;
                spb = Integer.highestOneBit(block / slotBytes);
                Arrays.fill(strides, slotBytes);
            }
            int link = hidden ? declared : -1;
            for (int i = 0; i < declared && link < 0; i++) {
                if (widths.get(i) >= 4) {
                    link = i;
                }
            }
            return new Computed(offsets, strides, slotBytes, spb, link);
        }
    }

    // -------------------------------------------------------------------------------------------
    // Walking a file with the document's structures

    /** Walks a snapshot: header, metadata (by kind), trailer. */
    private static Values walkSnapshot(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.nativeOrder());
        Values v = walk("header", b, 0, null);
        long metaLength = v.num("header.metadataLength");
        int headerBytes = (int) SPEC.constant("headerBytes");
        ByteBuffer meta = b.slice(0, headerBytes + (int) metaLength).order(ByteOrder.nativeOrder());
        String struct = v.num("header.kind") == SPEC.constant("kind.components") ? "cmeta" : "meta";
        Values m = walk(struct, meta, headerBytes, v);
        v.put(struct, m);
        v.put("metadataEnd", m.num("end"));
        Values t = walk("trailer", b, (int) (v.num("header.blocksOffset")
                + v.num("header.blockCount") * SPEC.constant("blockStride")), v);
        v.put("trailer", t);
        return v;
    }

    /** Walks a mapped file's header slot and its metadata (section 11). */
    private static Values walkMappedSlot(byte[] file, String slotName) {
        int base = (int) SPEC.constant(slotName);
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.nativeOrder());
        Values v = walk("header", b, base, null);
        Values slot = walk("slot", b, base, v);     // the two fields a slot changes, at their offsets
        v.putAll(slot);
        v.put("slotBase", base);
        v.put("slotName", slotName);
        long offset = v.num("slot.metadataOffset");
        ByteBuffer meta = b.slice(0, (int) (offset + v.num("header.metadataLength"))).order(ByteOrder.nativeOrder());
        Values m = walk("meta", meta, (int) offset, v);
        v.put("meta", m);
        Values tail = walk("tail", meta, (int) m.num("end"), m);
        v.put("tail", tail);
        v.put("metadataEnd", tail.num("end"));
        return v;
    }

    private static final Pattern TYPE = Pattern.compile("(\\w+)(?:\\[([\\w.]+)\\])?");

    /**
     * Walks structure {@code struct} of the document from byte {@code at}: each row in order,
     * a row whose condition does not hold left out, a numeric offset checked against the walk's.
     * The values are recorded by name (numbers, arrays, nested structures), and {@code end} is
     * the first byte after it.
     */
    private static Values walk(String struct, ByteBuffer b, int at, Values parent) {
        Values v = new Values(parent);
        List<Spec.Row> rows = SPEC.struct(struct);
        int pos = at;
        for (Spec.Row row : rows) {
            if (!holds(row.when(), v)) {
                continue;
            }
            if (row.offset() != null) {
                if (struct.equals("slot")) {
                    pos = at + row.offset();        // a header slot lists only the fields it changes
                }
                assertEquals(row.offset().intValue(), pos - at, "offset of " + row.name());
            }
            Matcher m = TYPE.matcher(row.type());
            assertTrue(m.matches(), "type " + row.type() + " of " + row.name());
            String base = m.group(1);
            String count = m.group(2);
            int n = count == null ? -1 : count.matches("\\d+") ? Integer.parseInt(count) : Math.toIntExact(v.num(count));
            v.put(row.name() + "@", pos);
            int width = switch (base) {
                case "u8" -> 1;
                case "u16" -> 2;
                case "u32" -> 4;
                case "u64" -> 8;
                default -> 0;
            };
            if (width == 0) {
                assertNotNull(SPEC.structs.get(base), "structure " + base + " of " + row.name());
                if (n < 0) {
                    Values inner = walk(base, b, pos, v);
                    v.put(row.name(), inner);
                    pos = (int) inner.num("end");
                } else {
                    List<Values> list = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        Values inner = walk(base, b, pos, v);
                        list.add(inner);
                        pos = (int) inner.num("end");
                    }
                    v.put(row.name(), list);
                }
            } else if (n < 0) {
                v.put(row.name(), read(b, pos, width));
                pos += width;
            } else {
                assertTrue((long) n * width <= b.limit() - pos, row.name() + ": " + n + " values past the end");
                if (width == 1) {
                    byte[] bytes = new byte[n];
                    b.get(pos, bytes);
                    v.put(row.name(), bytes);
                } else {
                    long[] values = new long[n];
                    for (int i = 0; i < n; i++) {
                        values[i] = read(b, pos + i * width, width);
                    }
                    v.put(row.name(), values);
                }
                pos += n * width;
            }
        }
        v.put("end", pos);
        return v;
    }

    private static long read(ByteBuffer b, int at, int width) {
        return switch (width) {
            case 1 -> Byte.toUnsignedLong(b.get(at));
            case 2 -> Short.toUnsignedLong(b.getShort(at));
            case 4 -> Integer.toUnsignedLong(b.getInt(at));
            default -> b.getLong(at);
        };
    }

    /** Section 1's conditions. */
    private static boolean holds(String when, Values v) {
        return switch (when) {
            case "" -> true;
            case "kind 1" -> v.num("header.kind") == SPEC.constant("kind.bulk");
            case "kind 2" -> v.num("header.kind") == SPEC.constant("kind.packed");
            case "type HANDLE" -> v.num("field.type") == SPEC.constant("fieldType.handle");
            case "flag blockCrcs" -> (v.num("header.flags") & SPEC.constant("flag.blockCrcs")) != 0;
            default -> throw new AssertionError("unknown condition '" + when + "'");
        };
    }

    /** Values read by a walk, by name; a name not found here is looked up in the enclosing walk. */
    private static final class Values {
        private final Values parent;
        private final Map<String, Object> values = new HashMap<>();

        Values(Values parent) {
            this.parent = parent;
        }

        void put(String name, Object value) {
            values.put(name, value);
        }

        void putAll(Values other) {
            values.putAll(other.values);
        }

        Object find(String name) {
            Object value = values.get(name);
            return value != null || parent == null ? value : parent.find(name);
        }

        private Object get(String name) {
            Object value = find(name);
            assertNotNull(value, name + " was not read");
            return value;
        }

        long num(String name) {
            return ((Number) get(name)).longValue();
        }

        int at(String name) {
            return (int) num(name + "@");
        }

        String text(String name) {
            return (String) get(name);
        }

        byte[] bytes(String name) {
            return (byte[]) get(name);
        }

        long[] longs(String name) {
            return (long[]) get(name);
        }

        Values struct(String name) {
            return (Values) get(name);
        }

        @SuppressWarnings("unchecked")
        List<Values> structs(String name) {
            return (List<Values>) get(name);
        }
    }

    // -------------------------------------------------------------------------------------------
    // The document

    /** The constants and structures of {@code docs/format.md}. */
    private record Spec(Map<String, String> constants, Map<String, List<Row>> structs) {
        /** One row of a structure's table. */
        record Row(Integer offset, String name, String type, String when) {
        }

        static Spec read(Path path) {
            List<String> lines;
            try {
                lines = Files.readAllLines(path);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, String> constants = new LinkedHashMap<>();
            Map<String, List<Row>> structs = new LinkedHashMap<>();
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (!lines.get(i).startsWith("|") || !lines.get(i + 1).startsWith("| ---")) {
                    continue;
                }
                List<String> header = cells(lines.get(i));
                int j = i + 2;
                for (; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                    List<String> row = cells(lines.get(j));
                    if (header.contains("constant")) {
                        String name = row.get(header.indexOf("constant"));
                        put(constants, name, row.get(header.indexOf("value")));
                        if (header.contains("width")) {
                            put(constants, name + "#width", row.get(header.indexOf("width")));
                        }
                    } else if (header.contains("field")) {
                        String name = row.get(header.indexOf("field"));
                        String offset = header.contains("offset") ? row.get(header.indexOf("offset")) : "—";
                        String when = header.contains("when") ? row.get(header.indexOf("when")) : "";
                        String struct = name.substring(0, name.indexOf('.'));
                        for (List<Row> rows : structs.values()) {
                            assertTrue(rows.stream().noneMatch(r -> r.name().equals(name)), "field " + name + " twice");
                        }
                        structs.computeIfAbsent(struct, k -> new ArrayList<>()).add(new Row(
                                offset.equals("—") ? null : Integer.valueOf(offset), name, row.get(header.indexOf("type")),
                                when));
                    }
                }
                i = j - 1;
            }
            assertTrue(constants.size() > 30 && structs.size() >= 9, "docs/format.md's tables were not found: "
                    + constants.keySet() + " " + structs.keySet());
            return new Spec(constants, structs);
        }

        private static void put(Map<String, String> constants, String name, String value) {
            assertEquals(null, constants.put(name, value), "constant " + name + " twice");
        }

        private static List<String> cells(String line) {
            String[] parts = line.trim().split("\\|", -1);
            List<String> cells = new ArrayList<>();
            for (int k = 1; k < parts.length - 1; k++) {
                cells.add(parts[k].trim().replace("`", ""));
            }
            return cells;
        }

        List<Row> struct(String name) {
            List<Row> rows = structs.get(name);
            assertNotNull(rows, "docs/format.md has no structure " + name);
            return rows;
        }

        long constant(String name) {
            String value = constants.get(name);
            assertNotNull(value, "docs/format.md has no constant " + name);
            return value.startsWith("0x") ? Long.parseLong(value.substring(2), 16) : Long.parseLong(value);
        }

        byte[] bytes(String name) {
            String[] hex = constants.get(name).split(" ");
            byte[] bytes = new byte[hex.length];
            for (int i = 0; i < hex.length; i++) {
                bytes[i] = (byte) Integer.parseInt(hex[i], 16);
            }
            return bytes;
        }

        /** The offset of a fixed field. */
        int offset(String field) {
            for (List<Row> rows : structs.values()) {
                for (Row r : rows) {
                    if (r.name().equals(field)) {
                        return r.offset();
                    }
                }
            }
            throw new AssertionError("docs/format.md has no field " + field);
        }

        /** Every constant (field types' widths as {@code name#width}) and field of the document. */
        Set<String> names() {
            Set<String> names = new TreeSet<>(constants.keySet());
            structs.values().forEach(rows -> rows.forEach(r -> names.add(r.name())));
            return names;
        }
    }
}
