    // Fields by entity: O(1), allocation-free; the entity must be live and have a component

    // @each-type
    /** Reads a {@code float} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents them
    public float get(long entity, FloatField field) {
        SchemaAccess.check(schema, field);
        return getAt(rowOf(entity), field);
    }

    /** Writes a {@code float} field of an entity's component ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void set(long entity, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        setAt(rowOf(entity), field, value);
    }
    // @end

    // Fields by dense row: for joins and row loops; O(1), allocation-free

    // @each-type
    /** Reads a {@code float} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public float getAt(int row, FloatField field) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        return FieldAccess.get(field, rows.blockOf(checked), rows.slotOf(checked));
    }

    /** Writes a {@code float} field of the component in a dense row ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    public void setAt(int row, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        int checked = checkedRow(row);
        FieldAccess.set(field, rows.blockOf(checked), rows.slotOf(checked), value);
    }
    // @end
