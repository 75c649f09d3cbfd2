// Generated from storage-vector/src/main/templates/dev/bulkdata/storage/vector/Scalar.java by codegen/Generate.java: edit the template, not this file.
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

    // ---------------------------------------------------------------- int

    /** What every {@code min} and {@code max} of the module return without a live value (the extremes of the type). */
    static final int INT_MIN_IDENTITY = Integer.MAX_VALUE;
    static final int INT_MAX_IDENTITY = Integer.MIN_VALUE;

    static void fill(Chunk chunk, IntField field, int value) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, value);
        }
    }

    static void scale(Chunk chunk, IntField field, int k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) * k);
        }
    }

    static void add(Chunk chunk, IntField field, int c) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) + c);
        }
    }

    static void axpy(Chunk chunk, IntField a, IntField b, int k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, a, chunk.get(s, a) + chunk.get(s, b) * k);
        }
    }

    static long sum(Chunk chunk, IntField field) {
        long sum = 0;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            sum += chunk.get(s, field);
        }
        return sum;
    }

    static int min(Chunk chunk, IntField field) {
        int min = INT_MIN_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static int max(Chunk chunk, IntField field) {
        int max = INT_MAX_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            max = Math.max(max, chunk.get(s, field));
        }
        return max;
    }

    static long lessThanWord(Chunk chunk, IntField field, int threshold, int w) {
        long word = 0;
        for (long bits = chunk.liveBits(w); bits != 0; bits &= bits - 1) {
            int b = Long.numberOfTrailingZeros(bits);
            if (chunk.get((w << 6) + b, field) < threshold) {
                word |= 1L << b;
            }
        }
        return word;
    }

    static int lessThan(Chunk chunk, IntField field, int threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            mask[w] = lessThanWord(chunk, field, threshold, w);
            count += Long.bitCount(mask[w]);
        }
        return count;
    }

    // ---------------------------------------------------------------- long

    /** What every {@code min} and {@code max} of the module return without a live value (the extremes of the type). */
    static final long LONG_MIN_IDENTITY = Long.MAX_VALUE;
    static final long LONG_MAX_IDENTITY = Long.MIN_VALUE;

    static void fill(Chunk chunk, LongField field, long value) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, value);
        }
    }

    static void scale(Chunk chunk, LongField field, long k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) * k);
        }
    }

    static void add(Chunk chunk, LongField field, long c) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) + c);
        }
    }

    static void axpy(Chunk chunk, LongField a, LongField b, long k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, a, chunk.get(s, a) + chunk.get(s, b) * k);
        }
    }

    static long sum(Chunk chunk, LongField field) {
        long sum = 0;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            sum += chunk.get(s, field);
        }
        return sum;
    }

    static long min(Chunk chunk, LongField field) {
        long min = LONG_MIN_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static long max(Chunk chunk, LongField field) {
        long max = LONG_MAX_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            max = Math.max(max, chunk.get(s, field));
        }
        return max;
    }

    static long lessThanWord(Chunk chunk, LongField field, long threshold, int w) {
        long word = 0;
        for (long bits = chunk.liveBits(w); bits != 0; bits &= bits - 1) {
            int b = Long.numberOfTrailingZeros(bits);
            if (chunk.get((w << 6) + b, field) < threshold) {
                word |= 1L << b;
            }
        }
        return word;
    }

    static int lessThan(Chunk chunk, LongField field, long threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            mask[w] = lessThanWord(chunk, field, threshold, w);
            count += Long.bitCount(mask[w]);
        }
        return count;
    }

    // ---------------------------------------------------------------- float

    /** What every {@code min} and {@code max} of the module return without a live value. */
    static final float FLOAT_MIN_IDENTITY = Float.POSITIVE_INFINITY;
    static final float FLOAT_MAX_IDENTITY = Float.NEGATIVE_INFINITY;

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

    static float sum(Chunk chunk, FloatField field) {
        float sum = 0;
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

    // ---------------------------------------------------------------- double

    /** What every {@code min} and {@code max} of the module return without a live value. */
    static final double DOUBLE_MIN_IDENTITY = Double.POSITIVE_INFINITY;
    static final double DOUBLE_MAX_IDENTITY = Double.NEGATIVE_INFINITY;

    static void fill(Chunk chunk, DoubleField field, double value) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, value);
        }
    }

    static void scale(Chunk chunk, DoubleField field, double k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) * k);
        }
    }

    static void add(Chunk chunk, DoubleField field, double c) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, field, chunk.get(s, field) + c);
        }
    }

    static void axpy(Chunk chunk, DoubleField a, DoubleField b, double k) {
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            chunk.set(s, a, chunk.get(s, a) + chunk.get(s, b) * k);
        }
    }

    static double sum(Chunk chunk, DoubleField field) {
        double sum = 0;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            sum += chunk.get(s, field);
        }
        return sum;
    }

    static double min(Chunk chunk, DoubleField field) {
        double min = DOUBLE_MIN_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static double max(Chunk chunk, DoubleField field) {
        double max = DOUBLE_MAX_IDENTITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            max = Math.max(max, chunk.get(s, field));
        }
        return max;
    }

    static long lessThanWord(Chunk chunk, DoubleField field, double threshold, int w) {
        long word = 0;
        for (long bits = chunk.liveBits(w); bits != 0; bits &= bits - 1) {
            int b = Long.numberOfTrailingZeros(bits);
            if (chunk.get((w << 6) + b, field) < threshold) {
                word |= 1L << b;
            }
        }
        return word;
    }

    static int lessThan(Chunk chunk, DoubleField field, double threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            mask[w] = lessThanWord(chunk, field, threshold, w);
            count += Long.bitCount(mask[w]);
        }
        return count;
    }
}
