package dev.bulkdata.storage;

/**
 * Generated from a template: the typed {@code get} and {@code set} of {@link ComponentTable},
 * by entity and by dense row, one of each per field type; what they check, cost and throw is
 * {@linkplain ComponentTable##typed Typed access}. Sealed: {@link ComponentTable} (final) is its
 * only subtype, and every other member of a component table is declared there; each method works
 * on that class's state, so a call is bound to it as a call of the class's own method is.
 */
public sealed interface GeneratedComponentTableAccessors permits ComponentTable {
    // Fields by entity: O(1), allocation-free; the entity must be live and have a component

    // @each-type
    /**
     * Reads a {@code float} field ({@linkplain ComponentTable##typed Typed access}).
     * @param entity a live entity that has a component here
     * @param field a field of this table's schema
     * @return the value
     */
    default float get(long entity, FloatField field) {
        ComponentTable table = (ComponentTable) this;
        table.schema.check(field);
        return table.getAt(table.rowOf(entity), field);
    }

    /**
     * Writes a {@code float} field ({@linkplain ComponentTable##typed Typed access}).
     * @param entity a live entity that has a component here
     * @param field a field of this table's schema
     * @param value the new value
     */
    default void set(long entity, FloatField field, float value) {
        ComponentTable table = (ComponentTable) this;
        table.schema.check(field);
        table.setAt(table.rowOf(entity), field, value);
    }
    // @end

    // Fields by dense row: for joins and row loops; O(1), allocation-free

    // @each-type
    /**
     * Reads a {@code float} field ({@linkplain ComponentTable##typed Typed access}).
     * @param row a row, {@code 0 <= row < size()}
     * @param field a field of this table's schema
     * @return the value
     */
    default float getAt(int row, FloatField field) {
        ComponentTable table = (ComponentTable) this;
        table.schema.check(field);
        int checked = table.checkedRow(row);
        return field.get(table.rows.blockOf(checked), table.rows.slotOf(checked));
    }

    /**
     * Writes a {@code float} field ({@linkplain ComponentTable##typed Typed access}).
     * @param row a row, {@code 0 <= row < size()}
     * @param field a field of this table's schema
     * @param value the new value
     */
    default void setAt(int row, FloatField field, float value) {
        ComponentTable table = (ComponentTable) this;
        table.schema.check(field);
        int checked = table.checkedRow(row);
        field.set(table.rows.blockOf(checked), table.rows.slotOf(checked), value);
    }
    // @end
}
