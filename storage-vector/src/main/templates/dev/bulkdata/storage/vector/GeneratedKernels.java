package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.DoubleField;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.IntField;
import dev.bulkdata.storage.LongField;
import dev.bulkdata.storage.Table;

import static dev.bulkdata.storage.vector.Kernels.VECTOR;
import static dev.bulkdata.storage.vector.Kernels.check;
import static dev.bulkdata.storage.vector.Kernels.checkMask;
import static dev.bulkdata.storage.vector.Kernels.checkRoom;
import static dev.bulkdata.storage.vector.Kernels.contiguous;
import static dev.bulkdata.storage.vector.Kernels.handlesOf;

/**
 * Generated from a template: the typed kernels of {@link Kernels} ({@code fill} ..
 * {@code handlesLessThan}, one of each per chunk and per table for each lane type), written
 * once for {@code float}; call them through {@link Kernels}, which extends this class and
 * declares everything else (the checks and {@code VECTOR} these methods use included). Sealed,
 * with {@link Kernels} its only subclass; public so that reflection reaches the methods too. A
 * call {@code Kernels.sum(chunk, field)} compiles to {@code invokestatic Kernels.sum}, resolved
 * here.
 */
public abstract sealed class GeneratedKernels permits Kernels {
    GeneratedKernels() {
    }

    // @each-type except Byte, Short, Char, Boolean, Handle
    // ---------------------------------------------------------------- float

    /**
     * Sets the field of every live record of the chunk to {@code value}; holes are not written.
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     * @param value the value
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static void fill(Chunk chunk, FloatField field, float value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /**
     * Multiplies the field of every live record of the chunk by {@code k}.
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     * @param k the factor
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static void scale(Chunk chunk, FloatField field, float k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /**
     * Adds {@code c} to the field of every live record of the chunk.
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     * @param c the addend
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static void add(Chunk chunk, FloatField field, float c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk (the multiplication and the
     * addition each rounded, as in Java's {@code a += b * k}; no fused multiply-add).
     *
     * @param chunk a chunk of an open iteration
     * @param a the field written, of the chunk's schema
     * @param b the field read, of the chunk's schema (may be {@code a})
     * @param k the factor
     * @throws IllegalArgumentException if a field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static void axpy(Chunk chunk, FloatField a, FloatField b, float k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            FloatVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /**
     * Adds up the field over the live records of the chunk.
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     // @only Float, Double
     * @return the sum of the live values, added in {@code float} lanes in an unspecified order (see Sums), as a
     *     {@code double} as the whole-table sum returns it; 0 if none is live
     // @end-only
     // @only Int
     * @return the sum of the live values as a {@code long} (each value widened: no overflow); 0 if none is live
     // @end-only
     // @only Long
     * @return the sum of the live values as a {@code long} (wrapping on overflow, as {@code long} addition); 0 if none is live
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
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
     * The least value of the field over the live records of the chunk (see Minimum and maximum).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     // @only Float, Double
     * @return the least live value, or {@code Float.POSITIVE_INFINITY} if none is live
     // @end-only
     // @only Int, Long
     * @return the least live value, or {@code Float.MAX_VALUE} if none is live
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static float min(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * The greatest value of the field over the live records of the chunk (see Minimum and
     * maximum).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     // @only Float, Double
     * @return the greatest live value, or {@code Float.NEGATIVE_INFINITY} if none is live
     // @end-only
     // @only Int, Long
     * @return the greatest live value, or {@code Float.MIN_VALUE} if none is live
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the chunk's iteration has ended
     */
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

    /**
     * {@link #fill(Chunk, FloatField, float) fill(Chunk, FloatField, float)} over every chunk of the table, in one iteration.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     * @param value the value
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     * @throws java.util.ConcurrentModificationException if another thread changes the table's
     *     structure meanwhile
     */
    public static void fill(Table table, FloatField field, float value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /**
     * {@link #scale(Chunk, FloatField, float) scale(Chunk, FloatField, float)} over every chunk of the table, in one iteration.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     * @param k the factor
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
    public static void scale(Table table, FloatField field, float k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /**
     * {@link #add(Chunk, FloatField, float) add(Chunk, FloatField, float)} over every chunk of the table, in one iteration.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     * @param c the addend
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
    public static void add(Table table, FloatField field, float c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, FloatField, FloatField, float) axpy(Chunk, FloatField, FloatField, float)} over every chunk of the table, in one iteration:
     * the update {@code p += v * dt} of every live record.
     *
     * @param table an open table
     * @param a the field written, of the table's schema
     * @param b the field read, of the table's schema
     * @param k the factor
     * @throws IllegalArgumentException if a field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
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
     * Adds up the field over the live records of the table.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     // @only Float, Double
     * @return the sum of the live values: each chunk's sum (as {@link #sum(Chunk, FloatField) sum(Chunk, FloatField)}) added up in {@code double}; 0 for an empty table
     // @end-only
     // @only Int
     * @return the sum of the live values as a {@code long} (each value widened: no overflow); 0 for an empty table
     // @end-only
     // @only Long
     * @return the sum of the live values as a {@code long} (wrapping on overflow); 0 for an empty table
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
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

    /**
     * The least value of the field over the live records of the table.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     // @only Float, Double
     * @return the least live value, or {@code Float.POSITIVE_INFINITY} for an empty table
     // @end-only
     // @only Int, Long
     * @return the least live value, or {@code Float.MAX_VALUE} for an empty table
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
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
     * The greatest value of the field over the live records of the table.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     // @only Float, Double
     * @return the greatest live value, or {@code Float.NEGATIVE_INFINITY} for an empty table
     // @end-only
     // @only Int, Long
     * @return the greatest live value, or {@code Float.MIN_VALUE} for an empty table
     // @end-only
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table is closed
     */
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
}
