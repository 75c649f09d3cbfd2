    // @each-type
    /** Reads a {@code float} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    float get(long handle, FloatField field);

    /** Writes a {@code float} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, FloatField field, float value);
    // @end
