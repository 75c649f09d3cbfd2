    // @each-type
    /**
     * {@return the {@code float} field named {@code fieldName}}; O(1). Throws
     * {@link IllegalArgumentException} if there is none or it is not a {@code float}.
     */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public FloatField floatField(String fieldName) {
        return typed(fieldName, FloatField.class, FieldType.FLOAT);
    }
    // @end
