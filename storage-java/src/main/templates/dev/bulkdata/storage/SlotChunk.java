    // @each-type
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
    // @end
