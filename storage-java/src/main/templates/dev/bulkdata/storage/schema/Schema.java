    // @each-type
    /** {@return the {@code float} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public FloatField floatField(String fieldName) {
        return typed(fieldName, FloatField.class, FieldType.FLOAT);
    }
    // @end
