package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;

/**
 * The scalar kernels: the same operations as the vector classes, one live slot at a time
 * through the chunk's typed accessors. {@link Kernels} runs them on AOS tables and whenever the
 * Vector API is not resolved. The caller has checked the fields.
 */
final class Scalar {
    private Scalar() {
    }

    // @each-type except Byte, Short, Char, Boolean, Handle
    // ---------------------------------------------------------------- float

    // @only Float, Double
    /** What every {@code min} and {@code max} of the module return without a live value. */
    static final float FLOAT_MIN_IDENTITY = Float.POSITIVE_INFINITY;
    static final float FLOAT_MAX_IDENTITY = Float.NEGATIVE_INFINITY;
    // @end-only
    // @only Int, Long
    /** What every {@code min} and {@code max} of the module return without a live value (the extremes of the type). */
    static final float FLOAT_MIN_IDENTITY = Float.MAX_VALUE;
    static final float FLOAT_MAX_IDENTITY = Float.MIN_VALUE;
    // @end-only

    static void fill(Chunk chunk, FloatField field, float value) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, value);
        }
    }

    static void scale(Chunk chunk, FloatField field, float k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) * k);
        }
    }

    static void add(Chunk chunk, FloatField field, float c) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) + c);
        }
    }

    static void axpy(Chunk chunk, FloatField a, FloatField b, float k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, a, chunk.get(s, a) + chunk.get(s, b) * k);
        }
    }

    // @only Float, Double
    static float sum(Chunk chunk, FloatField field) {
        float sum = 0;
    // @end-only
    // @only Int, Long
    static long sum(Chunk chunk, FloatField field) {
        long sum = 0;
    // @end-only
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            sum += chunk.get(s, field);
        }
        return sum;
    }

    static float min(Chunk chunk, FloatField field) {
        float min = FLOAT_MIN_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static float max(Chunk chunk, FloatField field) {
        float max = FLOAT_MAX_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            max = Math.max(max, chunk.get(s, field));
        }
        return max;
    }

    static long lessThanWord(Chunk chunk, FloatField field, float threshold, int w) {
        long word = 0;
        for (long bits = chunk.liveBits(w); bits != 0; bits &= bits - 1) {
            int b = Long.numberOfTrailingZeros(bits);
            if (chunk.get((w << 6) + b, field) < threshold) {
                word |= 1L << b;
            }
        }
        return word;
    }

    static int lessThan(Chunk chunk, FloatField field, float threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            mask[w] = lessThanWord(chunk, field, threshold, w);
            count += Long.bitCount(mask[w]);
        }
        return count;
    }
    // @end
}
