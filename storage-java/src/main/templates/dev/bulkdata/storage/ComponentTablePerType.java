package dev.bulkdata.storage;

/**
 * The typed accessors of {@link ComponentTable}: one {@code get} and one {@code set} per field
 * type by entity, and one {@code getAt} and one {@code setAt} by dense row. {@code
 * ComponentTable} extends this class, so users see them as its own (Typed access, in its
 * documentation). Generated from this template (ARCHITECTURE.md, Per-type code); everything
 * else is in {@link ComponentTable}.
 */
abstract sealed class ComponentTablePerType permits ComponentTable {
    final Schema schema;
    /** The component records in dense rows; assigned once, by {@link ComponentTable}'s constructor. */
    DenseRows rows;

    ComponentTablePerType(Schema schema) {
        this.schema = schema;
    }

    /** The row of an entity's component; throws the reason it has none. */
    abstract int rowOf(long entity);

    /** {@return {@code row}, checked against the rows in use} */
    abstract int checkedRow(int row);

    // ---------------------------------------------------------------------------------------
    // Fields by entity: O(1), allocation-free; the entity must be live and have a component

    // @each-type
    /**
     * Reads a {@code float} field (Typed access, in the class documentation).
     * @param entity a live entity that has a component here
     * @param field a field of this table's schema
     * @return the value
     */
    public float get(long entity, FloatField field) {
        schema.check(field);
        int row = rowOf(entity);
        return field.get(rows.blockOf(row), rows.slotOf(row));
    }

    /**
     * Writes a {@code float} field (Typed access, in the class documentation).
     * @param entity a live entity that has a component here
     * @param field a field of this table's schema
     * @param value the new value
     */
    public void set(long entity, FloatField field, float value) {
        schema.check(field);
        int row = rowOf(entity);
        field.set(rows.blockOf(row), rows.slotOf(row), value);
    }
    // @end

    // ---------------------------------------------------------------------------------------
    // Fields by dense row: for joins and row loops; O(1), allocation-free

    // @each-type
    /**
     * Reads a {@code float} field (Typed access, in the class documentation).
     * @param row a row, {@code 0 <= row < size()}
     * @param field a field of this table's schema
     * @return the value
     */
    public float getAt(int row, FloatField field) {
        schema.check(field);
        int checked = checkedRow(row);
        return field.get(rows.blockOf(checked), rows.slotOf(checked));
    }

    /**
     * Writes a {@code float} field (Typed access, in the class documentation).
     * @param row a row, {@code 0 <= row < size()}
     * @param field a field of this table's schema
     * @param value the new value
     */
    public void setAt(int row, FloatField field, float value) {
        schema.check(field);
        int checked = checkedRow(row);
        field.set(rows.blockOf(checked), rows.slotOf(checked), value);
    }
    // @end
}
