package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.format.Engine;
import dev.bulkdata.storage.internal.format.FileFormat;
import dev.bulkdata.storage.internal.format.MappedOpen;
import dev.bulkdata.storage.internal.format.MappedStore;
import dev.bulkdata.storage.internal.format.MetaWords;
import dev.bulkdata.storage.internal.format.SnapshotReader;
import dev.bulkdata.storage.internal.format.SnapshotWriter;
import dev.bulkdata.storage.internal.format.StoredComponents;
import dev.bulkdata.storage.internal.format.StoredTable;
import dev.bulkdata.storage.internal.format.TableState;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.IntBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The engine's side of the seam to the file format ({@code internal.format}): adapts a table to {@link StoredTable}
 * (its {@link TableState}, slot map and blocks, read and restored through the package-private members here only) and a
 * component table to {@link StoredComponents}, makes tables of a kind and the library's {@link StorageFileException}s
 * ({@link Engine}), and is the engine's one route into the format: {@link Snapshots}, {@link TableBuilder#mapped},
 * {@link ComponentTable} and a mapped table's checkpoints call the format through it.
 */
final class StoredTables implements Engine {
    static final StoredTables ENGINE = new StoredTables();

    private StoredTables() {
    }

    /** Writes a snapshot of {@code table}; the caller holds its iteration guard. */
    static void write(AbstractTable table, WritableByteChannel out) throws IOException {
        SnapshotWriter.write(new Stored(table), out);
    }

    /** Writes a snapshot of {@code table}; the caller holds its join guard. */
    static void write(ComponentTable table, WritableByteChannel out) throws IOException {
        SnapshotWriter.write(new Components(table), out);
    }

    /** Reads a snapshot of a BulkTable or PackedTable ({@link SnapshotReader#read}). */
    static AbstractTable read(ReadableByteChannel in, long fileSize, String source, Schema expected, int kind,
                              boolean newTag, boolean exact) throws IOException {
        return ((Stored) SnapshotReader.read(in, fileSize, source, expected, kind, newTag, exact, ENGINE)).table;
    }

    /** Reads a component table's snapshot for {@code entities} ({@link SnapshotReader#readComponents}). */
    static ComponentTable readComponents(ReadableByteChannel in, long fileSize, String source, AbstractTable entities,
                                         Schema expected, boolean exact) throws IOException {
        return ((Components) SnapshotReader.readComponents(in, fileSize, source, new Stored(entities), expected,
                exact, ENGINE)).table;
    }

    /** Opens a mapped table ({@link MappedOpen#open}), made by {@code create} if the file is new. */
    static AbstractTable openMapped(Path path, MappedOpen.Expected expected, Supplier<AbstractTable> create)
            throws IOException {
        return ((Stored) MappedOpen.open(path, expected, () -> new Stored(create.get()), ENGINE)).table;
    }

    @Override
    public StoredTable create(TableState s, TagLease lease, boolean mapped) {
        if (s.kind() == FileFormat.KIND_BULK) {
            return new Stored(mapped ? new MappedBulkTableImpl(s.schema(), s.reuse(), s.handles(), s.maxSlot(), lease)
                    : new BulkTableImpl(s.schema(), s.reuse(), s.handles(), s.maxSlot(), lease));
        }
        return new Stored(mapped ? new MappedPackedTableImpl(s.schema(), s.handles(), s.maxSlot(), lease)
                : new PackedTableImpl(s.schema(), s.handles(), s.maxSlot(), lease));
    }

    @Override
    public StoredComponents createComponents(StoredTable entities, Schema schema) {
        return new Components(new ComponentTable(((Stored) entities).table, schema));
    }

    @Override
    public long loadDefault(Field field) {
        return SchemaAccess.loadDefaultBits(field);
    }

    @Override
    public int link(Schema schema, MemorySegment block, int position) {
        return FieldAccess.get(SchemaAccess.link(schema), block, position);
    }

    @Override
    public StorageFileException failure(String source, StorageFileException.Reason reason, String what, Throwable cause) {
        return cause == null ? new StorageFileException(source, reason, what)
                : new StorageFileException(source, reason, what, cause);
    }

    /** A BulkTable or PackedTable as the format sees it. */
    private static final class Stored implements StoredTable {
        final AbstractTable table;
        private final SlotMap slots;

        Stored(AbstractTable table) {
            this.table = table;
            this.slots = table.slots;
        }

        private boolean bulk() {
            return table instanceof BulkTableImpl;
        }

        @Override
        public TableState state() {
            int limit = slots.limit;
            int entries = limit > 0 ? limit + 1 : slots.savedMeta(1) != 0 ? 2 : 0;
            return new TableState(bulk() ? FileFormat.KIND_BULK : FileFormat.KIND_PACKED, table.lease.identity,
                    slots.tag(), table.handles, table instanceof BulkTable b ? b.reuseOrder() : ReuseOrder.FIFO,
                    table.schema, slots.maxSlot, slots.floor, limit, table.size, slots.retired, slots.listLength(),
                    slots.tail(), entries, slots.reuseCursor(), slots.reopen.end, slots.epoch);
        }

        @Override
        public void writeLinks() {
            slots.writeLinks();
        }

        @Override
        public void putSlots(IntBuffer out, int entryCount) {
            slots.putSaved(out, entryCount, false);
            if (table instanceof PackedTableImpl packed) {
                slots.putSaved(out, entryCount, true);
                packed.putSlotsOfRows(out);
            }
        }

        @Override
        public MemorySegment[] segments() {
            return table.segments;
        }

        @Override
        public int blockCount() {
            return table.blockCount();
        }

        @Override
        public int[] listedSlots() {
            return slots.listedSlots();
        }

        @Override
        public BlockArena arena() {
            return table.arena;
        }

        @Override
        public MemorySegment restoreBlock(int b) {
            return table instanceof BulkTableImpl bulk ? bulk.restoreBlock(b) : ((PackedTableImpl) table).restoreBlock(b);
        }

        @Override
        public int link(int slot) {
            return FieldAccess.get(SchemaAccess.link(table.schema), table.segments[slot >>> table.recordShift],
                    slot & table.recordMask);
        }

        @Override
        public void setLink(int slot, int next) {
            FieldAccess.set(SchemaAccess.link(table.schema), table.segments[slot >>> table.recordShift],
                    slot & table.recordMask, next);
        }

        @Override
        public void restore(TableState s, int[] list, int swept, MetaWords metas, int[] payloads, long[] liveWords,
                            int[] backLinks) {
            if (table instanceof BulkTableImpl bulk) {
                // A dead slot may keep a removed record's bytes (an add zeroes a reused record), but a slot never
                // opened must read zero, since an add hands it out as it is: make it so. (A PackedTable's rows past the
                // last may keep removed records' bytes: DenseRows zeroes them on reuse.)
                int spb = s.schema().slotsPerBlock();
                for (long slot = s.limit(), end = (long) table.blockCount() * spb; slot < end; slot++) {
                    SchemaAccess.wipe(s.schema(), table.segments[(int) (slot / spb)], (int) (slot % spb));
                }
                restoreIndex(s, list, swept, metas, payloads);
                bulk.restoreLive(liveWords);
            } else {
                restoreIndex(s, list, swept, metas, payloads);
                ((PackedTableImpl) table).restoreRows(s.size(), backLinks);
            }
        }

        // Sets the restored slot map's counters, its free list (list, head to tail, checked by the reader), a clear's
        // reopen range (reopened free slots in [reuseCursor, reuseEnd); ReuseOrder.SWEEP: the reuse cursor is the
        // cursor, see SlotMap.reuseCursor()) and its entries. Only on a new slot map, before its table is used.
        private void restoreIndex(TableState s, int[] list, int reopened, MetaWords metas, int[] payloads) {
            slots.restoreEpoch(s.epoch());
            table.lease.epoch(s.epoch());
            slots.limit = s.limit();
            slots.settled = s.limit();
            slots.retired = s.retired();
            for (int slot : list) {
                if (slots.sweepOrder) {
                    slots.freeBits.add(slot);
                } else {
                    slots.ring.append(slot);
                }
            }
            if (slots.sweepOrder) {
                slots.cursor = s.reuseCursor();
            } else {
                slots.reopen.open(s.reuseCursor(), s.reuseEnd(), reopened);
            }
            slots.restoreEntries(metas.pages(), metas.length(), payloads);
            slots.restoreTop();
        }

        @Override
        public void loadedFrom(long identity, int tag, int generationShift) {
            table.savedIdentity = identity;
            table.savedTag = tag;
            table.generationShift = generationShift;
        }

        @Override
        public void close() {
            table.close();
        }

        @Override
        public void attach(MappedStore store) {
            table.mapped = store;
        }

        @Override
        public int markVersion() {
            return table.versions.mark();
        }

        @Override
        public boolean changedSince(int block, int version) {
            return table.versions.anyChangedSince(block, version);
        }

        @Override
        public Entities entities() {
            return new Entities(table.name(), table.lease.identity, slots.tag(), table.handles, slots.maxSlot,
                    slots.limit, table.savedIdentity, table.generationShift, slots.epoch);
        }

        @Override
        public int savedMeta(int slot) {
            return slots.savedMeta(slot);
        }

        @Override
        public Schema schema() {
            return table.schema;
        }
    }

    /** A ComponentTable as the format sees it. */
    private static final class Components implements StoredComponents {
        final ComponentTable table;

        Components(ComponentTable table) {
            this.table = table;
        }

        @Override
        public StoredTable entities() {
            return new Stored(table.entities);
        }

        @Override
        public Schema schema() {
            return table.schema();
        }

        @Override
        public int rows() {
            return table.set.size();
        }

        @Override
        public void putRows(IntBuffer out) {
            int rows = table.set.size();
            for (int row = 0; row < rows; row++) {
                out.put(table.set.keyAtUnchecked(row));
            }
            for (int row = 0; row < rows; row++) {
                out.put(table.generation(row));
            }
        }

        @Override
        public MemorySegment[] segments() {
            return table.rows.segments();
        }

        @Override
        public int blockCount() {
            return table.rows.blockCount();
        }

        @Override
        public BlockArena arena() {
            return table.arena;
        }

        @Override
        public MemorySegment restoreBlock(int b) {
            return table.restoreBlock(b);
        }

        @Override
        public void restoreRows(int[] keys, int[] owners) {
            table.restoreRows(keys, owners);
        }

        @Override
        public void close() {
            table.close();
        }
    }
}
