    // @each-type
    @Override
    public final float get(int slot, FloatField field) {
        schema.check(field);
        return field.get(data, position(slot));
    }

    @Override
    public final void set(int slot, FloatField field, float value) {
        schema.check(field);
        field.set(data, position(slot), value);
        versions.stampField(index, field.index());
    }
    // @end
