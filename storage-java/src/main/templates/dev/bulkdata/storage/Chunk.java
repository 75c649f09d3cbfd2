    // @each-type
    /** Reads a {@code float} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    float get(int slot, FloatField field);

    /** Writes a {@code float} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, FloatField field, float value);
    // @end
