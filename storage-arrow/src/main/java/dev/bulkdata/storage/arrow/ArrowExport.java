package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.Table;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * What to export of a table as an
 * <a href="https://arrow.apache.org/docs/format/CStreamInterface.html">Arrow C stream</a>:
 * which fields (all by default), and whether to add the record's handle as a column. Immutable
 * and reusable: make it once, {@linkplain #open() open} a stream from it whenever a consumer
 * wants the table's current state, or only the chunks changed since a version
 * ({@link #open(ChangeFilter, int)}).
 *
 * <pre>{@code
 * ArrowExport export = ArrowExport.of(particles).withHandles("id");
 * try (ArrowStream stream = export.open()) {          // the table refuses add/remove from here
 *     consumer.read(stream.address());                // ... until the consumer releases it
 * }
 * }</pre>
 *
 * <p><b>The stream</b> holds one struct {@code ArrowArray} per chunk that holds a live record, in
 * chunk order; its rows are the chunk's slots up to the last live one, a hole a row of nulls.
 * Columns bear the field names; a handle is int64 with metadata {@code bulkdata.handle.target}.
 * An {@link dev.bulkdata.storage.schema.RecordLayout#SOA SOA} table's columns other than booleans are
 * never copied; the live bitmap of a chunk with holes, booleans, the handle column and AOS
 * columns are, as {@link ArrowStream#bytesCopied()} counts. Guide: docs/sql-and-arrow.md,
 * "What is exported".
 *
 * <p>Threads: an {@code ArrowExport} is immutable and may be shared; {@code open} takes the
 * table's iteration guard and must be called on a thread allowed to read the table.
 */
public final class ArrowExport {
    private final Table table;
    private final Field[] fields;
    private final String handleColumn;

    private ArrowExport(Table table, Field[] fields, String handleColumn) {
        this.table = table;
        this.fields = fields;
        this.handleColumn = handleColumn;
    }

    /**
     * An export of every field of the table, in schema order, without the handle column.
     * O(fields).
     *
     * @param table a {@link dev.bulkdata.storage.BulkTable} or
     *     {@link dev.bulkdata.storage.PackedTable}, open or not (a closed table fails at
     *     {@link #open()})
     * @return the export
     * @throws IllegalArgumentException if {@code table} is null
     */
    public static ArrowExport of(Table table) {
        if (table == null) {
            throw new IllegalArgumentException("ArrowExport.of: table is null");
        }
        return new ArrowExport(table, table.schema().fields().toArray(new Field[0]), null);
    }

    /**
     * The same export with only these fields, in this order. O(fields).
     *
     * @param fields one or more distinct fields of the table's schema
     * @return a new export
     * @throws IllegalArgumentException if no field is given, a field is null, belongs to another
     *     schema or is given twice
     */
    public ArrowExport fields(Field... fields) {
        if (fields == null || fields.length == 0) {
            throw new IllegalArgumentException("ArrowExport.fields: give at least one field of table '"
                    + table.name() + "'");
        }
        Field[] copy = fields.clone();
        List<Field> seen = new ArrayList<>();
        for (Field f : copy) {
            if (f == null) {
                throw new IllegalArgumentException("ArrowExport.fields: a field is null (table '" + table.name() + "')");
            }
            if (f.schema() != table.schema()) {
                throw new IllegalArgumentException("ArrowExport.fields: field '" + f.name() + "' belongs to schema '"
                        + f.schema().name() + "', not to the schema of table '" + table.name() + "'");
            }
            if (seen.contains(f)) {
                throw new IllegalArgumentException("ArrowExport.fields: field '" + f.name() + "' is given twice");
            }
            seen.add(f);
            if (f.name().equals(handleColumn)) {
                throw new IllegalArgumentException("ArrowExport.fields: field '" + f.name()
                        + "' has the name of the handle column");
            }
        }
        return new ArrowExport(table, copy, handleColumn);
    }

    /**
     * The same export with the record's handle as its first column, an int64 named
     * {@code name} (null at holes).
     *
     * @param name the column's name; not the name of an exported field
     * @return a new export
     * @throws IllegalArgumentException if {@code name} is null or empty, or an exported field has
     *     that name
     */
    public ArrowExport withHandles(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("ArrowExport.withHandles: the column needs a name (table '"
                    + table.name() + "')");
        }
        for (Field f : fields) {
            if (f.name().equals(name)) {
                throw new IllegalArgumentException("ArrowExport.withHandles: '" + name + "' is the name of an"
                        + " exported field of table '" + table.name() + "'; choose another name");
            }
        }
        return new ArrowExport(table, fields, name);
    }

    /** {@return the exported table} */
    public Table table() {
        return table;
    }

    /** {@return the exported fields, in column order (after the handle column, if any)} */
    public List<Field> fields() {
        return List.of(fields);
    }

    /** {@return the name of the handle column, or null if the export has none} */
    public String handleColumn() {
        return handleColumn;
    }

    /**
     * Opens a stream of every chunk that holds a live record. From now until the consumer has
     * released the stream and every array and schema it produced, the table refuses structural
     * changes ({@link java.util.ConcurrentModificationException}) and {@link Table#close()}
     * throws {@link IllegalStateException} (see {@link ArrowStream}). O(fields); the chunks are
     * visited as the consumer asks for arrays.
     *
     * @return the open stream, in memory the stream owns (see {@link ArrowStream#address()})
     * @throws IllegalStateException if the table is closed or corrupt
     */
    public ArrowStream open() {
        return ArrowStream.open(this, null, 0, null);
    }

    /**
     * Opens a stream of the chunks that changed after {@code since} in a way {@code changes}
     * looks for (an incremental export: with {@code since} from the table's
     * {@link Table#markVersion()} at the last export, only what changed since). Each chunk is
     * tested when the consumer reaches it. A version that never came from this table counts
     * every chunk as changed, as everywhere in the library.
     *
     * @param changes what counts as a change
     * @param since a version from {@link Table#markVersion()}
     * @return the open stream
     * @throws IllegalArgumentException if {@code changes} is null or names fields of another schema
     * @throws IllegalStateException if the table is closed or corrupt
     */
    public ArrowStream open(ChangeFilter changes, int since) {
        if (changes == null) {
            throw new IllegalArgumentException("ArrowExport.open: change filter is null (table '" + table.name()
                    + "'); use open() for every chunk");
        }
        return ArrowStream.open(this, changes, since, null);
    }

    /**
     * Opens a stream, as {@link #open()} or {@link #open(ChangeFilter, int)} (if
     * {@code changes} is not null), written into a {@code struct ArrowArrayStream} the caller
     * owns, as a C consumer passes its own struct to a producer. The caller keeps that memory
     * alive as long as any consumer may read it.
     *
     * @param struct at least 40 bytes, 8-byte aligned, writable
     * @param changes what counts as a change, or null for every chunk
     * @param since a version from {@link Table#markVersion()}; ignored without {@code changes}
     * @return the open stream
     * @throws IllegalArgumentException if {@code struct} is null, too small, read-only or
     *     misaligned, or {@code changes} names fields of another schema
     * @throws IllegalStateException if the table is closed or corrupt
     */
    public ArrowStream openInto(MemorySegment struct, ChangeFilter changes, int since) {
        if (struct == null || struct.byteSize() < CData.STREAM.byteSize() || struct.isReadOnly()
                || struct.address() % 8 != 0) {
            throw new IllegalArgumentException("ArrowExport.openInto: the struct ArrowArrayStream must be a writable"
                    + " segment of at least " + CData.STREAM.byteSize() + " bytes at an 8-byte aligned address, not "
                    + struct);
        }
        return ArrowStream.open(this, changes, since, struct);
    }

    Field[] fieldArray() {
        return fields;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ArrowExport[table '").append(table.name()).append("', columns ");
        if (handleColumn != null) {
            b.append(handleColumn).append(" (handle), ");
        }
        for (int i = 0; i < fields.length; i++) {
            b.append(i == 0 ? "" : ", ").append(fields[i].name());
        }
        return b.append(']').toString();
    }
}
