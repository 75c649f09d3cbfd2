package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.format.FileFormat.Header;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;

import static dev.bulkdata.storage.internal.format.FileFormat.*;

/**
 * Parses and checks a metadata section on its own ({@code docs/format.md}, section 10, checks 3 to 5): a table's
 * fixed fields, schema and slot sections, or a component table's rows against its entity table. Every failure is a
 * {@link StorageFileException} of the reader's source.
 */
final class MetadataReader {
    private final SnapshotReader r;
    /** Whether the file's schema must be the expected one exactly ({@link SchemaChange#of}). */
    private final boolean exact;
    /** How the file's records become the expected schema's; null if they need not. */
    private SchemaChange change;

    MetadataReader(SnapshotReader r, boolean exact) {
        this.r = r;
        this.exact = exact;
    }

    /**
     * Parses the metadata; with {@code more}, the buffer may go on past it (a mapped table's sections). Its state holds
     * the schema {@link #matched} picks; the metadata, the {@link SchemaChange} to the expected one.
     */
    Metadata metadata(ByteBuffer b, Header header, Schema expected, boolean more) throws StorageFileException {
        try {
            TableState s = fixedFields(b, header, expected);
            checkSlotSections(b, header.kind(), s, more);
            MetaWords metas = new MetaWords(s.entryCount());
            IntBuffer words = b.asIntBuffer();
            b.position(b.position() + 4 * s.entryCount());
            checkClearedRange(s);
            Counts counts = metaWords(words, metas, header.kind(), s);
            int swept = checkCounts(metas, s, counts);
            int[] payloads = new int[0];
            int[] backLinks = new int[0];
            if (header.kind() == KIND_PACKED) {
                payloads = ints(b, s.entryCount());
                backLinks = ints(b, s.size());
                checkBackLinks(s, metas, payloads, backLinks);
            }
            checkBlockCount(header, s);
            return new Metadata(s, metas, swept, counts.liveWords, payloads, backLinks, counts.peak, change);
        } catch (BufferUnderflowException e) {
            throw r.fail(Reason.MALFORMED, "the metadata ends before the sections it announces");
        }
    }

    /** Reads the fixed fields and the schema, each checked on its own and against the others. */
    private TableState fixedFields(ByteBuffer b, Header header, Schema expected) throws StorageFileException {
        long identity = b.getLong();
        int tag = Short.toUnsignedInt(b.getShort());
        int slotBits = b.get();
        int generationBits = b.get();
        int reuseCode = b.get();
        int layoutCode = b.get();
        int epochWord = Short.toUnsignedInt(b.getShort());
        int epoch = epochWord & ((1 << SnapshotWriter.EPOCH_BITS_SHIFT) - 1);
        int maxSlot = b.getInt();
        int floor = b.getInt();
        int limit = b.getInt();
        int size = b.getInt();
        int retired = b.getInt();
        int freeLength = b.getInt();
        int freeTail = b.getInt();
        int entries = b.getInt();
        int reuseCursor = b.getInt();
        int reuseEnd = b.getInt();
        if (tag < 1 || tag > HandleLayout.MAX_TAG) {
            throw r.fail(Reason.MALFORMED, "tag " + tag + " is outside [1, " + HandleLayout.MAX_TAG + "]");
        }
        HandleLayout handles = handles(slotBits, generationBits, epochWord >>> SnapshotWriter.EPOCH_BITS_SHIFT);
        if (reuseCode < 0 || reuseCode >= REUSE_CODES.size() || layoutCode < 0 || layoutCode > 1) {
            throw r.fail(Reason.MALFORMED, "reuse order " + reuseCode + " or layout " + layoutCode + " is unknown");
        }
        if (header.kind() != KIND_BULK && reuseCode != 0) {
            throw r.fail(Reason.MALFORMED, "a " + kindName(header.kind()) + " reuses its slots in FIFO order (code 0);"
                    + " the file says " + REUSE_CODES.get(reuseCode));
        }
        ReuseOrder reuse = REUSE_CODES.get(reuseCode);
        if (reuse == ReuseOrder.SWEEP && (reuseEnd != 0 || reuseCursor < 1 || reuseCursor > Math.max(1, limit))) {
            throw r.fail(Reason.MALFORMED, "a table that reuses in SWEEP order lists every free slot and saves where"
                    + " the next add looks first, a slot in [1, limit]; the file has " + reuseCursor + " and "
                    + reuseEnd + " (limit " + limit + ")");
        }
        Schema schema = matched(schema(b, RecordLayout.values()[layoutCode], header.formatVersion()), expected);
        int largest = Math.min(handles.maxSlot(), maxSlot);
        if (maxSlot < 1 || floor < 0 || floor > handles.maxGeneration() || limit < 0
                || limit > largest + 1L || entries != (limit > 0 ? limit + 1 : entries == 2 ? 2 : 0)) {
            throw r.fail(Reason.MALFORMED, "max slot " + maxSlot + ", floor " + floor + ", limit " + limit
                    + " or entry count " + entries + " is out of range for " + handles);
        }
        if (epoch > handles.maxEpoch()) {
            throw r.fail(Reason.MALFORMED, "epoch " + epoch + " is out of range for " + handles);
        }
        return new TableState(header.kind(), identity, tag, handles, reuse, schema, maxSlot, floor, limit, size,
                retired, freeLength, freeTail, entries, reuseCursor, reuseEnd, epoch);
    }

    private HandleLayout handles(int slotBits, int generationBits, int epochBits) throws StorageFileException {
        try {
            return HandleLayout.of(slotBits, generationBits, epochBits);
        } catch (IllegalArgumentException e) {
            throw r.fail(Reason.MALFORMED, "handle layout: " + e.getMessage());
        }
    }

    /** Checks that the slot sections are as long as the counters say. */
    private void checkSlotSections(ByteBuffer b, byte kind, TableState s, boolean more) throws StorageFileException {
        int size = s.size();
        long need = 4L * s.entryCount() + (kind == KIND_PACKED ? 4L * s.entryCount() + 4L * Math.max(0, size) : 0);
        if (size < 0 || size > Math.max(0, s.limit() - 1) || (more ? b.remaining() < need : b.remaining() != need)) {
            throw r.fail(Reason.MALFORMED, "size " + size + " or the slot sections (" + b.remaining()
                    + " bytes, expected " + need + ") do not fit limit " + s.limit());
        }
    }

    /** Checks that FIFO's and LIFO's range a clear freed, if any, is a range of opened slots. */
    private void checkClearedRange(TableState s) throws StorageFileException {
        int from = s.reuseCursor();
        int end = s.reuseEnd();
        if (s.reuse() != ReuseOrder.SWEEP && !(from == 0 && end == 0) && !(from >= 1 && from <= end && end <= s.limit())) {
            throw r.fail(Reason.MALFORMED, "the range a clear freed [" + from + ", " + end + ") is not a range of"
                    + " opened slots (limit " + s.limit() + ")");
        }
    }

    /** What the pass over the meta words counted. */
    private static final class Counts {
        int live;
        int retired;
        int peak = -1;
        long[] liveWords;
    }

    /** One pass: each page of meta words is copied, checked and (BulkTable) turned into live words while in cache. */
    private Counts metaWords(IntBuffer words, MetaWords metas, byte kind, TableState s) throws StorageFileException {
        int floor = s.floor();
        int spb = s.schema().slotsPerBlock();
        int opened = Math.min(s.limit(), s.entryCount());
        int step = MetaWords.liveStep(spb);
        Counts c = new Counts();
        c.liveWords = new long[kind == KIND_BULK ? (opened + step - 1) / step : 0];
        int maxGeneration = s.handles().maxGeneration();
        int allowed = MetaWords.LIVE | MetaWords.RETIRED | MetaWords.free(MetaWords.GENERATION_MASK);
        int live = 0;
        int retiredSlots = 0;
        int peak = -1;
        for (int p = 0; p < metas.pages().length; p++) {
            int[] page = metas.copyPage(p, words);
            int base = p << MetaWords.PAGE_SHIFT;
            if (base >= opened) {
                continue;
            }
            int from = p == 0 ? 1 : 0;
            int end = Math.min(page.length, opened - base);
            // Branch-free for C2 to vectorise: a bad word makes a rule negative or non-zero; rescanned for its message.
            int negative = 0;
            int nonZero = 0;
            int liveBefore = live;
            for (int i = from; i < end; i++) {
                int meta = page[i];
                int generation = MetaWords.generation(meta);
                int isLive = meta & MetaWords.LIVE;
                int isRetired = meta >>> 31;
                negative |= (generation - floor) | (maxGeneration - generation);
                nonZero |= (meta & ~allowed) | (isLive & isRetired) | (-isRetired & (generation ^ maxGeneration));
                live += isLive;
                retiredSlots += isRetired;
                peak = Math.max(peak, generation);
            }
            if (negative < 0 || nonZero != 0) {
                for (int i = from; i < end; i++) {
                    int meta = page[i];
                    int generation = MetaWords.generation(meta);
                    int isRetired = meta >>> 31;
                    if (generation < floor || generation > maxGeneration || (meta & ~allowed) != 0
                            || ((meta & MetaWords.LIVE) & isRetired) != 0
                            || (isRetired != 0 && generation != maxGeneration)) {
                        throw badMeta(base + i, meta, s);
                    }
                }
            }
            if (c.liveWords.length > 0) {
                MetaWords.liveWords(page, base, end, live - liveBefore, spb, c.liveWords);
            }
        }
        c.live = live;
        c.retired = retiredSlots;
        c.peak = peak;
        return c;
    }

    /**
     * Checks slot 0, the entry past limit and a clear's range on their own, then the counters against the counts of
     * the meta words. {@return the free slots in a clear's range}
     */
    private int checkCounts(MetaWords metas, TableState s, Counts c) throws StorageFileException {
        int maxGeneration = s.handles().maxGeneration();
        if (s.entryCount() > 0 && metas.get(0) != 0) {
            throw badMeta(0, metas.get(0), s);
        }
        for (int slot = Math.max(1, s.limit()); slot < s.entryCount(); slot++) {
            int meta = metas.get(slot);
            int generation = MetaWords.generation(meta);
            if (meta != 0 && !(MetaWords.isFree(meta) && generation >= s.floor() && generation <= maxGeneration)) {
                throw badMeta(slot, meta, s);
            }
            if (meta != 0) {
                c.peak = Math.max(c.peak, generation);
            }
        }
        int free = Math.max(0, s.limit() - 1) - c.live - c.retired;
        int swept = 0;
        int end = s.reuse() == ReuseOrder.SWEEP ? 0 : s.reuseEnd();
        for (int slot = s.reuseCursor(); slot < end; slot++) {
            if (MetaWords.isLive(metas.get(slot))) {
                throw badMeta(slot, metas.get(slot), s);
            }
            swept += MetaWords.isFree(metas.get(slot)) ? 1 : 0;
        }
        int freeLength = s.freeLength();
        int freeTail = s.freeTail();
        if (c.live != s.size() || c.retired != s.retired() || free != freeLength + swept
                || (freeLength == 0 ? freeTail != 0 : freeTail <= 0 || freeTail >= s.limit())) {
            throw r.fail(Reason.MALFORMED, "the counts (size " + s.size() + ", retired " + s.retired() + ", free "
                    + freeLength + " linked + " + swept + " swept, tail " + freeTail + ") do not match the meta"
                    + " words (live " + c.live + ", retired " + c.retired + ", free " + free + ")");
        }
        return swept;
    }

    private static int[] ints(ByteBuffer b, int count) {
        int[] ints = new int[count];
        b.asIntBuffer().get(ints);
        b.position(b.position() + 4 * count);
        return ints;
    }

    /** Checks that each of a PackedTable's rows links back to a live slot that names it. */
    private void checkBackLinks(TableState s, MetaWords metas, int[] payloads, int[] backLinks)
            throws StorageFileException {
        for (int row = 0; row < s.size(); row++) {
            int slot = backLinks[row];
            if (slot <= 0 || slot >= s.limit() || !MetaWords.isLive(metas.get(slot)) || payloads[slot] != row) {
                throw r.fail(Reason.MALFORMED, "row " + row + " links back to slot " + slot
                        + ", which is not a live slot naming it");
            }
        }
    }

    /** Checks the header's block count against the blocks the counters need and allow. */
    private void checkBlockCount(Header header, TableState s) throws StorageFileException {
        int spb = s.schema().slotsPerBlock();
        long neededBlocks;
        long maxBlocks;
        if (header.kind() == KIND_PACKED) {
            neededBlocks = (s.size() + spb - 1L) / spb;
            maxBlocks = ((long) s.maxSlot() + spb - 1) / spb;
        } else {
            neededBlocks = s.limit() == 0 ? 0 : (s.limit() - 1L) / spb + 1;
            maxBlocks = s.maxSlot() / spb + 1L;
        }
        if (header.blockCount() < neededBlocks || header.blockCount() > maxBlocks) {
            throw r.fail(Reason.MALFORMED, header.blockCount() + " blocks for " + neededBlocks + " needed (at most "
                    + maxBlocks + ")");
        }
    }

    private StorageFileException badMeta(int slot, int meta, TableState s) {
        return r.fail(Reason.MALFORMED, "slot " + slot + "'s meta word 0x" + Integer.toHexString(meta)
                + " is not a valid state for floor " + s.floor() + " and " + s.handles());
    }

    // ---- A component table's metadata

    /** A component table's metadata, parsed and checked against its entity table. */
    record Components(Schema schema, int[] keys, int[] owners, SchemaChange change) {
    }

    Components components(ByteBuffer b, Header header, Schema expected, StoredTable entities)
            throws StorageFileException {
        try {
            long identity = b.getLong();
            int tag = Short.toUnsignedInt(b.getShort());
            int slotBits = b.get();
            int generationBits = b.get();
            int epochBits = b.get();
            int layoutCode = b.get();
            b.getShort();
            int rows = b.getInt();
            b.getInt();
            HandleLayout handles = handles(slotBits, generationBits, epochBits);
            if (layoutCode < 0 || layoutCode > 1) {
                throw r.fail(Reason.MALFORMED, "layout " + layoutCode + " is unknown");
            }
            Schema schema = matched(schema(b, RecordLayout.values()[layoutCode], header.formatVersion()), expected);
            if (rows < 0 || b.remaining() != 8L * rows) {
                throw r.fail(Reason.MALFORMED, "row count " + rows + " does not fit the row sections ("
                        + b.remaining() + " bytes)");
            }
            int[] keys = ints(b, rows);
            int[] owners = ints(b, rows);
            StoredTable.Entities e = entities.entities();
            int spb = schema.slotsPerBlock();
            if (header.blockCount() < (rows + spb - 1L) / spb
                    || header.blockCount() > ((long) e.maxSlot() + spb - 1) / spb) {
                throw r.fail(Reason.MALFORMED, header.blockCount() + " blocks for " + rows + " rows");
            }
            int shift = entityShift(e, identity, tag, handles);
            checkOwners(entities, e, handles, keys, owners, shift);
            return new Components(schema, keys, owners, change);
        } catch (BufferUnderflowException e) {
            throw r.fail(Reason.MALFORMED, "the metadata ends before the sections it announces");
        }
    }

    /** {@return by how much the entity table's generations moved since the rows were saved} */
    private int entityShift(StoredTable.Entities e, long identity, int tag, HandleLayout handles)
            throws StorageFileException {
        String owner = "table '" + e.name() + "'";
        int shift;
        if (identity == e.identity()) {
            shift = 0;
        } else if (e.savedIdentity() != 0 && identity == e.savedIdentity()) {
            shift = e.generationShift();      // the entity table was loaded under a new tag
        } else {
            throw r.fail(Reason.ENTITY_MISMATCH, "its components belong to the entities of another table (saved"
                    + " with tag " + tag + " and identity " + Long.toHexString(identity) + "), not to " + owner
                    + " (identity " + Long.toHexString(e.identity()) + "); load them for the entity"
                    + " table they were saved with, or a snapshot of it");
        }
        if (!handles.equals(e.handles())) {
            throw r.fail(Reason.ENTITY_MISMATCH, "its entity handles are " + handles + ", " + owner + "'s are "
                    + e.handles());
        }
        return shift;
    }

    /** Checks that each row's entity is one the entity table has reached; moves the owners by {@code shift}. */
    private void checkOwners(StoredTable entities, StoredTable.Entities e, HandleLayout handles, int[] keys,
                             int[] owners, int shift) throws StorageFileException {
        String owner = "table '" + e.name() + "'";
        int limit = e.limit();
        BitSet seen = new BitSet();
        for (int row = 0; row < keys.length; row++) {
            int key = keys[row];
            int stamp = owners[row];
            int generation = HandleBits.stampGeneration(handles, stamp);
            int epoch = HandleBits.stampEpoch(handles, stamp);
            if (key <= 0 || key > handles.maxSlot() || seen.get(key) || epoch > handles.maxEpoch()) {
                throw r.fail(Reason.MALFORMED, "row " + row + "'s entity (slot " + key + ", generation "
                        + generation + ") is not a valid, distinct entity of " + handles);
            }
            seen.set(key);
            boolean ok;
            int meta = key < limit ? entities.savedMeta(key) : 0;
            if (key >= limit || epoch > e.epoch()) {
                ok = false;
            } else if (MetaWords.isRetired(meta) || epoch < e.epoch()) {
                ok = true;                                     // a retired slot is never live again, nor an old epoch's
            } else {
                generation += shift;
                ok = generation < MetaWords.generation(meta)
                        || generation == MetaWords.generation(meta) && MetaWords.isLive(meta);
                owners[row] = HandleBits.ownerStamp(handles, epoch, generation);
            }
            if (!ok) {
                throw r.fail(Reason.ENTITY_MISMATCH, "row " + row + " belongs to the entity in slot " + key
                        + " at generation " + generation + ", which " + owner + " has not reached ("
                        + (key >= limit ? "slot never opened" : "slot at generation "
                        + MetaWords.generation(meta) + (MetaWords.isLive(meta) ? ", live" : ", free"))
                        + "): the components were saved after the entity table's snapshot");
            }
        }
    }

    // ---- The schema

    /**
     * {@return the schema the table is read with: {@code expected} if the file holds the same, else the file's (the
     * blocks' layout), with {@link #change} set to the expected one}
     */
    private Schema matched(Schema file, Schema expected) throws StorageFileException {
        change = SchemaChange.of(r, file, expected, exact);
        return expected != null && change == null ? expected : file;
    }

    private Schema schema(ByteBuffer b, RecordLayout layout, int formatVersion) throws StorageFileException {
        String name = string(b, Short.toUnsignedInt(b.getShort()), StandardCharsets.UTF_8);
        int count = Short.toUnsignedInt(b.getShort());
        if (count == 0 || count * 10L > b.remaining()) {
            throw r.fail(Reason.MALFORMED, "field count " + count + " does not fit the metadata");
        }
        int[] offsets = new int[count * 2];
        Schema.Builder builder;
        try {
            builder = Schema.builder(name).layout(layout);
            for (int i = 0; i < count; i++) {
                int type = b.get();
                if (type < 0 || type >= FieldType.values().length
                        || (formatVersion < 2 && type == FieldType.HANDLE.ordinal())) {
                    throw r.fail(Reason.MALFORMED, "field " + i + " has unknown type " + type
                            + " for format version " + formatVersion);
                }
                String fieldName = string(b, Byte.toUnsignedInt(b.get()), StandardCharsets.US_ASCII);
                if (FieldType.values()[type] == FieldType.HANDLE) {
                    builder.addHandle(fieldName, string(b, Byte.toUnsignedInt(b.get()), StandardCharsets.US_ASCII));
                } else {
                    builder.add(FieldType.values()[type], fieldName);
                }
                offsets[2 * i] = b.getInt();
                offsets[2 * i + 1] = b.getInt();
            }
        } catch (IllegalArgumentException e) {
            throw r.fail(Reason.MALFORMED, "schema: " + e.getMessage());
        }
        int slotBytes = b.getInt();
        int slotsPerBlock = b.getInt();
        int blockBytes = b.getInt();
        Schema schema;
        try {
            schema = builder.build();
        } catch (IllegalArgumentException e) {
            throw r.fail(Reason.MALFORMED, "schema: " + e.getMessage());
        }
        boolean same = schema.slotBytes() == slotBytes && schema.slotsPerBlock() == slotsPerBlock
                && schema.blockBytes() == blockBytes;
        for (int i = 0; i < count; i++) {
            Field f = schema.fields().get(i);
            same &= f.blockOffset() == offsets[2 * i] && f.slotStride() == offsets[2 * i + 1];
        }
        if (!same) {
            throw r.fail(Reason.MALFORMED, "the block layout stored for " + schema
                    + " is not the one this library computes for it");
        }
        return schema;
    }

    private static String string(ByteBuffer b, int length, Charset charset) {
        byte[] bytes = new byte[length];
        b.get(bytes);
        return new String(bytes, charset);
    }

    static String describe(Field f) {
        return f == null ? "missing" : f.name() + ":" + f.type() + (f instanceof HandleField h ? "(" + h.target() + ")" : "");
    }

    /** {@return what differs between the expected schema and the file's, or null if nothing does} */
    static String difference(Schema expected, Schema found) {
        if (!expected.name().equals(found.name())) {
            return "it holds table '" + found.name() + "', not '" + expected.name() + "'";
        }
        if (expected.layout() != found.layout()) {
            return "its layout is " + found.layout() + ", not " + expected.layout();
        }
        for (int i = 0; i < Math.max(expected.fields().size(), found.fields().size()); i++) {
            Field e = i < expected.fields().size() ? expected.fields().get(i) : null;
            Field f = i < found.fields().size() ? found.fields().get(i) : null;
            if (e == null || f == null || !e.name().equals(f.name()) || e.type() != f.type()
                    || (e instanceof HandleField he && !he.target().equals(((HandleField) f).target()))) {
                return "field " + i + " is " + describe(f) + ", expected " + (e == null ? "no field" : describe(e))
                        + " (file " + found + ", expected " + expected + ")";
            }
        }
        return null;
    }
}
