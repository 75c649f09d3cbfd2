package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * A file saved under one schema read under another ({@code docs/format.md}, section 13): which changes are accepted,
 * and the copy of each record between the two block layouts. Slots keep their numbers, so handles stay valid.
 */
final class SchemaChange {
    /** The file's schema, whose block layout the file's blocks have. */
    final Schema from;
    /** The program's schema, which the loaded table has. */
    final Schema to;
    private final Engine engine;
    private final int[] width;
    private final int[] fromOffset;
    private final int[] fromStride;
    private final int[] toOffset;
    private final int[] toStride;
    /** Per field of {@link #to}: whether the file has it. */
    private final boolean[] kept;
    private final long[] defaults;

    private SchemaChange(Schema from, Schema to, Engine engine) {
        this.from = from;
        this.to = to;
        this.engine = engine;
        int n = to.fields().size();
        width = new int[n];
        fromOffset = new int[n];
        fromStride = new int[n];
        toOffset = new int[n];
        toStride = new int[n];
        kept = new boolean[n];
        defaults = new long[n];
        for (int i = 0; i < n; i++) {
            Field t = to.fields().get(i);
            width[i] = t.type().byteSize();
            toOffset[i] = t.blockOffset();
            toStride[i] = t.slotStride();
            defaults[i] = engine.loadDefault(t);
            if (from.hasField(t.name())) {
                Field f = from.field(t.name());
                kept[i] = true;
                fromOffset[i] = f.blockOffset();
                fromStride[i] = f.slotStride();
            }
        }
    }

    /**
     * {@return the change that reads a file of schema {@code file} under {@code expected}, the program's; null if the
     * two are the same (name, layout, fields in order, their types and targets) or {@code expected} is null} Throws
     * {@link StorageFileException} {@code SCHEMA_MISMATCH} if the name differs, a field of both changed its type or
     * target, or {@code exact} and anything differs.
     */
    static SchemaChange of(SnapshotReader r, Schema file, Schema expected, boolean exact) throws StorageFileException {
        if (expected == null) {
            return null;
        }
        String difference = MetadataReader.difference(expected, file);
        if (difference == null) {
            return null;
        }
        if (!expected.name().equals(file.name())) {
            throw r.fail(Reason.SCHEMA_MISMATCH, difference);
        }
        for (Field e : expected.fields()) {
            if (file.hasField(e.name())) {
                Field f = file.field(e.name());
                if (f.type() != e.type()
                        || e instanceof HandleField he && !he.target().equals(((HandleField) f).target())) {
                    throw r.fail(Reason.SCHEMA_MISMATCH, "field '" + e.name() + "' changed its type: the file"
                            + " has " + MetadataReader.describe(f) + ", expected " + MetadataReader.describe(e)
                            + "; a field keeps its type from one version of a schema to the next (give the new"
                            + " one another name) (file " + file + ", expected " + expected + ")");
                }
            }
        }
        if (exact) {
            throw r.fail(Reason.SCHEMA_MISMATCH, difference + "; the exact schema was asked for (without that"
                    + " option, added, dropped and reordered fields are accepted)");
        }
        return new SchemaChange(file, expected, r.engine);
    }

    /** {@return what the change does, for messages: the fields added and dropped} */
    String summary() {
        StringBuilder added = new StringBuilder();
        for (Field t : to.fields()) {
            if (!from.hasField(t.name())) {
                added.append(added.isEmpty() ? "" : ", ").append(t.name());
            }
        }
        StringBuilder dropped = new StringBuilder();
        for (Field f : from.fields()) {
            if (!to.hasField(f.name())) {
                dropped.append(dropped.isEmpty() ? "" : ", ").append(f.name());
            }
        }
        return "added [" + added + "], dropped [" + dropped + "], layout " + from.layout()
                + (from.layout() == to.layout() ? "" : " -> " + to.layout());
    }

    /** {@return the blocks the program's layout needs for {@code slots} slots or rows} */
    int blocksFor(long slots) {
        int spb = to.slotsPerBlock();
        return (int) ((slots + spb - 1) / spb);
    }

    /** The restored table's blocks, allocated in order as the copy reaches them; zero where the copy writes nothing. */
    static final class Targets {
        private final IntFunction<MemorySegment> restoreBlock;
        private MemorySegment[] blocks = new MemorySegment[16];
        private int count;

        Targets(IntFunction<MemorySegment> restoreBlock) {
            this.restoreBlock = restoreBlock;
        }

        MemorySegment get(int b) {
            while (count <= b) {
                if (count == blocks.length) {
                    blocks = Arrays.copyOf(blocks, 2 * count);
                }
                MemorySegment block = restoreBlock.apply(count);
                block.fill((byte) 0);
                blocks[count++] = block;
            }
            return blocks[b];
        }

        /** Allocates the blocks up to {@code n}, if the copy did not reach them. */
        void ensure(int n) {
            if (n > 0) {
                get(n - 1);
            }
        }
    }

    /**
     * Copies the records of slots (or rows) {@code [first, end)} from the file's blocks into the program's, field by
     * field, added fields at their load defaults; with {@code links}, each other slot's free-list link word (from
     * {@code table}) too.
     */
    void copy(IntFunction<MemorySegment> source, Targets targets, int first, int end, IntPredicate live,
              boolean links, StoredTable table) {
        int fromSpb = from.slotsPerBlock();
        int toSpb = to.slotsPerBlock();
        for (int slot = first; slot < end; slot++) {
            MemorySegment s = source.apply(slot / fromSpb);
            int sp = slot % fromSpb;
            MemorySegment d = targets.get(slot / toSpb);
            int dp = slot % toSpb;
            if (live.test(slot)) {
                for (int i = 0; i < width.length; i++) {
                    long at = toOffset[i] + (long) dp * toStride[i];
                    if (kept[i]) {
                        MemorySegment.copy(s, fromOffset[i] + (long) sp * fromStride[i], d, at, width[i]);
                    } else if (defaults[i] != 0) {
                        put(d, at, width[i], defaults[i]);
                    }
                }
            } else if (links) {
                table.setLink(slot, engine.link(from, s, sp));
            }
        }
    }

    /** Stores the low {@code width} bytes of {@code bits} at {@code at}, in native byte order, as a field does. */
    private static void put(MemorySegment block, long at, int width, long bits) {
        switch (width) {
            case 8 -> block.set(ValueLayout.JAVA_LONG_UNALIGNED, at, bits);
            case 4 -> block.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) bits);
            case 2 -> block.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) bits);
            default -> block.set(ValueLayout.JAVA_BYTE, at, (byte) bits);
        }
    }
}
