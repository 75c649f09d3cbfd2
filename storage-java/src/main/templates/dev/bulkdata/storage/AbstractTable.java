    // @each-type
    @Override
    public final float get(long handle, FloatField field) {
        schema.check(field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return field.get(region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT, record & recordMask);
        }
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, FloatField field, float value) {
        schema.check(field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            field.set(region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT, record & recordMask, value);
        } else {
            field.set(segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }
    // @end
