package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.FieldAccess;
import dev.bulkdata.storage.internal.core.SchemaAccess;
import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;

import java.lang.foreign.MemorySegment;

/**
 * What both kinds of chunk share: one block's segment and its column views, and the typed slot accessors (generated for
 * every field type, at the end of this file). A subclass says whether its table is open and which slots hold records
 * ({@link #position(int)}); a {@link BulkChunk} of a {@link BulkTable} has holes, a {@link DenseChunk} of packed rows a
 * live prefix. Threads: as {@link Chunk}. Column views are made on first request; the race between two threads making
 * the same view is benign, since views of one column are interchangeable.
 */
abstract sealed class SlotChunk implements Chunk permits BulkChunk, DenseChunk {
    final Schema schema;
    /** The block's bytes: {@code slots} slots of {@link Schema#slotBytes()} each. */
    final MemorySegment data;
    /** The table's change versions; a {@code set} stamps its field in this chunk. */
    final ChangeVersions versions;
    /** The chunk's number ({@link Chunk#index()}): its row of {@link #versions}. */
    final int index;

    /** Slots of the block, live or not. */
    final int slots;
    // Views made on first request: field f's read-only column at [2 * f], its writable one at [2 * f + 1], data
    // read-only at the end (one array keeps a chunk object at 48 bytes; the index reads no field count: that was slow).
    private MemorySegment[] views;

    SlotChunk(Schema schema, MemorySegment data, int slots, ChangeVersions versions, int index) {
        this.schema = schema;
        this.data = data;
        this.versions = versions;
        this.index = index;
        this.slots = slots;
    }

    /** {@return the table's name, for messages} */
    abstract String tableName();

    /** Visits the live records of this chunk in slot order (a table's {@code forEach}), while an iteration is open. */
    abstract void forEachLive(RecordVisitor visitor);

    /** Throws {@link IllegalStateException} unless the chunk may be used: its table and an iteration of it are open. */
    abstract void checkAccess();

    // A writable view of the block is handed out: any of its bytes, a hole's too, may change. Nothing to do for packed
    // rows (a reused row is always zeroed); a BulkChunk drops its block's clean marks.
    void writing() {
    }

    @Override
    public final int slotCount() {
        checkAccess();
        return slots;
    }

    @Override
    public final Schema schema() {
        checkAccess();
        return schema;
    }

    @Override
    public final MemorySegment column(Field field) {
        return columnView(field, false);
    }

    @Override
    public final MemorySegment writableColumn(Field field) {
        MemorySegment view = columnView(field, true);
        writing();
        versions.stampField(index, field.index());
        return view;
    }

    private MemorySegment columnView(Field field, boolean writable) {
        checkAccess();
        SchemaAccess.check(schema, field);
        if (schema.layout() != RecordLayout.SOA) {
            throw new IllegalStateException("table '" + tableName() + "' uses the " + schema.layout()
                    + " layout, which has no columns; use records() and field.blockOffset()/slotStride()");
        }
        MemorySegment[] views = views();
        int at = 2 * field.index() + (writable ? 1 : 0);
        MemorySegment view = views[at];
        if (view == null) {
            view = data.asSlice(field.blockOffset(), (long) slots * field.type().byteSize());
            if (!writable) {
                view = view.asReadOnly();
            }
            views[at] = view;
        }
        return view;
    }

    @Override
    public final MemorySegment records() {
        checkAccess();
        MemorySegment[] views = views();
        int at = views.length - 1;
        MemorySegment view = views[at];
        if (view == null) {
            view = data.asReadOnly();
            views[at] = view;
        }
        return view;
    }

    private MemorySegment[] views() {
        MemorySegment[] v = views;
        if (v == null) {
            v = new MemorySegment[2 * schema.fields().size() + 1];
            views = v;
        }
        return v;
    }

    @Override
    public final MemorySegment writableRecords() {
        checkAccess();
        writing();
        versions.stampFields(index);
        return data;
    }

    @Override
    public final boolean changedSince(Field field, int version) {
        checkAccess();
        SchemaAccess.check(schema, field);
        checkVersioned();
        return versions.fieldChangedSince(index, field.index(), version);
    }

    @Override
    public final boolean structureChangedSince(int version) {
        checkAccess();
        checkVersioned();
        return versions.structureChangedSince(index, version);
    }

    private void checkVersioned() {
        if (versions.isUnused()) {
            throw new UnsupportedOperationException("table '" + tableName() + "' is a component table, which keeps"
                    + " no change versions; only BulkTable and PackedTable chunks answer changedSince");
        }
    }

    /**
     * Checks that the chunk may be used ({@code checkAccess()}) and that {@code slot} is in this chunk and holds a
     * record, and returns it; else throws {@link IndexOutOfBoundsException} (outside the chunk),
     * {@link IllegalArgumentException} (no record) or {@link IllegalStateException} (table closed, no iteration).
     */
    abstract int position(int slot);

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/SlotChunk.java by codegen/Generate.java: edit the template, not these lines
    @Override
    public final byte get(int slot, ByteField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, ByteField field, byte value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final short get(int slot, ShortField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, ShortField field, short value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final char get(int slot, CharField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, CharField field, char value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final int get(int slot, IntField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, IntField field, int value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final long get(int slot, LongField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, LongField field, long value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final float get(int slot, FloatField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final double get(int slot, DoubleField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, DoubleField field, double value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final boolean get(int slot, BooleanField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, BooleanField field, boolean value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }

    @Override
    public final long get(int slot, HandleField field) {
        SchemaAccess.check(schema, field);
        return FieldAccess.get(field, data, position(slot));
    }

    @Override
    public final void set(int slot, HandleField field, long value) {
        SchemaAccess.check(schema, field);
        FieldAccess.set(field, data, position(slot), value);
        versions.stampField(index, field.index());
    }
    // @end-generated
}
