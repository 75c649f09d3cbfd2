    // @each-type except Byte, Short, Char, Boolean, Handle
    // ---------------------------------------------------------------- float

    /** Sets the field of every live record of the chunk to {@code value}; holes are not written. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Chunk chunk, FloatField field, float value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /** Multiplies the field of every live record of the chunk by {@code k}. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Chunk chunk, FloatField field, float k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /** Adds {@code c} to the field of every live record of the chunk. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Chunk chunk, FloatField field, float c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk, each operation rounded as in Java (no
     * fused multiply-add); {@code b} may be {@code a}.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Chunk chunk, FloatField a, FloatField b, float k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            FloatVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /** {@return the sum of the field over the live records of the chunk}, 0 if none is live (see Sums). */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    // @only Float, Double
    public static double sum(Chunk chunk, FloatField field) {
    // @end-only
    // @only Int, Long
    public static long sum(Chunk chunk, FloatField field) {
    // @end-only
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.sum(chunk, chunk.column(field));
        }
        return Scalar.sum(chunk, field);
    }

    /**
     * {@return the least value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float min(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * {@return the greatest value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float max(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.max(chunk, chunk.column(field));
        }
        return Scalar.max(chunk, field);
    }

    /**
     * The slot mask of the live records of the chunk whose field is below {@code threshold}:
     * bit {@code b} of {@code mask[w]} is set iff slot {@code w * 64 + b} is live and its
     * value {@code < threshold} (a NaN is below nothing). Writes words
     * {@code 0 .. chunk.liveWordCount() - 1} of {@code mask}, leaves the rest. The mask names
     * slots of this iteration: turn it into handles ({@link Kernels#handles(Chunk, long[], long[], int)})
     * before the iteration ends, and remove by handle after (see Removing what a mask selects).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     * @param threshold the bound, exclusive
     * @param mask receives the mask; at least {@code chunk.liveWordCount()} long
     * @return the number of slots in the mask
     * @throws IllegalArgumentException if the field belongs to another schema or {@code mask}
     *     is too short (nothing written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int lessThan(Chunk chunk, FloatField field, float threshold, long[] mask) {
        check(chunk, field);
        checkMask(chunk, mask);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.lessThan(chunk, chunk.column(field), threshold, mask);
        }
        return Scalar.lessThan(chunk, field, threshold, mask);
    }

    /** {@link #fill(Chunk, FloatField, float) fill} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Table table, FloatField field, float value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /** {@link #scale(Chunk, FloatField, float) scale} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Table table, FloatField field, float k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /** {@link #add(Chunk, FloatField, float) add} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Table table, FloatField field, float c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, FloatField, FloatField, float) axpy} over every chunk of the table, in
     * one iteration: the update {@code p += v * dt} of every live record.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Table table, FloatField a, FloatField b, float k) {
        check(table, a);
        check(table, b);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                axpy(chunks.chunk(c), a, b, k);
            }
        }
    }

    /**
     * {@return the sum of the field over the live records of the table}: the chunk sums added up
     * (see Sums); 0 for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    // @only Float, Double
    public static double sum(Table table, FloatField field) {
        check(table, field);
        double sum = 0;
    // @end-only
    // @only Int, Long
    public static long sum(Table table, FloatField field) {
        check(table, field);
        long sum = 0;
    // @end-only
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                sum += sum(chunks.chunk(c), field);
            }
        }
        return sum;
    }

    /** {@return the least value of the field over the live records of the table}, the identity for an empty table. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float min(Table table, FloatField field) {
        check(table, field);
        float min = Scalar.FLOAT_MIN_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                min = Math.min(min, min(chunks.chunk(c), field));
            }
        }
        return min;
    }

    /**
     * {@return the greatest value of the field over the live records of the table}, the identity
     * for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float max(Table table, FloatField field) {
        check(table, field);
        float max = Scalar.FLOAT_MAX_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                max = Math.max(max, max(chunks.chunk(c), field));
            }
        }
        return max;
    }

    /**
     * Collects the handles of the live records whose field is below {@code threshold}, in
     * iteration order, into {@code handles[0 .. count - 1]}: pass them to
     * {@link Table#removeAll(long[], int, int) removeAll(handles, 0, count)} to remove them.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     * @param threshold the bound, exclusive (a NaN is below nothing)
     * @param handles receives the handles; at least {@code table.size()} long
     * @return the number of handles written
     * @throws IllegalArgumentException if the field belongs to another schema or
     *     {@code handles} is shorter than {@code table.size()} (nothing written)
     * @throws IllegalStateException if the table is closed
     */
    public static int handlesLessThan(Table table, FloatField field, float threshold, long[] handles) {
        check(table, field);
        checkRoom(table, handles);
        int count = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long bits = VECTOR && contiguous(field)
                            ? FloatVectors.lessThanWord(chunk, chunk.column(field), threshold, w)
                            : Scalar.lessThanWord(chunk, field, threshold, w);
                    count = handlesOf(chunk, w, bits, handles, count);
                }
            }
        }
        return count;
    }
    // @end
