package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.ChangeVersions;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.Schema;

/**
 * Which changes a filtered pass looks for: writes to any of some fields, records added to or removed from a chunk (its
 * structure), or both. Made once and kept; a pass takes it with the version to compare against
 * ({@link Table#forEachChunk(ChangeFilter, int, ChunkVisitor)}, {@link Table#iterate(ChangeFilter, int)},
 * {@link Table#forEach(ChangeFilter, int, RecordVisitor)}) and visits only chunks {@link #test(Chunk, int)} accepts.
 *
 * <p>See {@link Table#markVersion()} for what versions are and when they move. Immutable and safe to share between
 * threads; {@link #test} is O(fields of the filter) and allocation-free. Example:
 * docs/iteration-and-change-versions.md, "Change versions: visit only what changed".
 */
public final class ChangeFilter {
    private static final ChangeFilter STRUCTURE = new ChangeFilter(null, new Field[0], true);

    /** The schema of the fields; null for a filter on structure only. */
    private final Schema schema;
    private final Field[] fields;
    private final int[] indexes;
    private final boolean structure;

    private ChangeFilter(Schema schema, Field[] fields, boolean structure) {
        this.schema = schema;
        this.fields = fields;
        this.structure = structure;
        this.indexes = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            indexes[i] = fields[i].index();
        }
    }

    /**
     * {@return a filter for chunks where any of {@code fields} was written}
     *
     * @param fields one or more fields of one schema
     * @throws IllegalArgumentException if no field is given, a field is null, or the fields belong to different schemas
     */
    public static ChangeFilter of(Field... fields) {
        if (fields == null || fields.length == 0) {
            throw new IllegalArgumentException("ChangeFilter.of needs at least one field; for records added or"
                    + " removed only, use ChangeFilter.structure()");
        }
        Field[] copy = fields.clone();
        for (Field f : copy) {
            if (f == null) {
                throw new IllegalArgumentException("ChangeFilter.of: a field is null");
            }
            if (f.schema() != copy[0].schema()) {
                throw new IllegalArgumentException("ChangeFilter.of: field '" + f.name() + "' belongs to schema '"
                        + f.schema().name() + "', field '" + copy[0].name() + "' to schema '"
                        + copy[0].schema().name() + "'; a filter is for the fields of one table");
            }
        }
        return new ChangeFilter(copy[0].schema(), copy, false);
    }

    /** {@return a filter for chunks whose records changed: added, removed or moved (its structure)} */
    public static ChangeFilter structure() {
        return STRUCTURE;
    }

    /** {@return this filter, also accepting chunks whose structure changed} */
    public ChangeFilter orStructure() {
        return structure ? this : new ChangeFilter(schema, fields, true);
    }

    /**
     * {@return whether the chunk has a change this filter looks for after version {@code since}}: one of its fields
     * was written ({@link Chunk#changedSince(Field, int)}) or, if the filter includes structure, a record was added,
     * removed or moved ({@link Chunk#structureChangedSince(int)}).
     *
     * @param chunk a chunk of a table of the filter's schema, during its iteration
     * @param since a version from {@link Table#markVersion()}
     * @throws IllegalArgumentException if the filter's fields belong to another schema
     * @throws UnsupportedOperationException for a chunk of a {@link ComponentTable}
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public boolean test(Chunk chunk, int since) {
        if (structure && chunk.structureChangedSince(since)) {
            return true;
        }
        for (Field f : fields) {
            if (chunk.changedSince(f, since)) {
                return true;
            }
        }
        return false;
    }

    /** @throws IllegalArgumentException if {@code changes} is null or names fields of another schema than {@code tableSchema} */
    static void check(ChangeFilter changes, Schema tableSchema, String table) {
        if (changes == null) {
            throw new IllegalArgumentException("change filter is null (table '" + table + "'); pass"
                    + " ChangeFilter.of(fields...) or ChangeFilter.structure(), or use the unfiltered pass");
        }
        changes.check(tableSchema, table);
    }

    void check(Schema tableSchema, String table) {
        if (schema != null && schema != tableSchema) {
            throw new IllegalArgumentException("change filter on fields of schema '" + schema.name()
                    + "' used with table '" + table + "' of schema '" + tableSchema.name() + "'");
        }
    }

    /** {@link #test} on the table's versions directly, for passes that checked the schema. */
    boolean selects(ChangeVersions versions, int chunk, int since) {
        if (structure && versions.structureChangedSince(chunk, since)) {
            return true;
        }
        for (int f : indexes) {
            if (versions.fieldChangedSince(chunk, f, since)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ChangeFilter[");
        for (int i = 0; i < fields.length; i++) {
            b.append(i == 0 ? "" : " or ").append(fields[i].name());
        }
        if (structure) {
            b.append(fields.length == 0 ? "" : " or ").append("structure");
        }
        return b.append(']').toString();
    }
}
