    // @each-type
    @Override
    public final float get(long handle, FloatField field) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return FieldAccess.get(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask);
        }
        return FieldAccess.get(field, segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, FloatField field, float value) {
        SchemaAccess.check(schema, field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            FieldAccess.set(field, region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT,
                    record & recordMask, value);
        } else {
            FieldAccess.set(field, segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }
    // @end
