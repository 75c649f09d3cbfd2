package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.DoubleField;
import dev.bulkdata.storage.FloatField;
import dev.bulkdata.storage.IntField;
import dev.bulkdata.storage.LongField;

/**
 * The scalar kernels: the same operations as the vector classes, one live slot at a time
 * through the chunk's typed accessors. {@link Kernels} runs them on AOS tables and whenever the
 * Vector API is not resolved. The caller has checked the fields.
 */
final class Scalar {
    private Scalar() {
    }

    // ---------------------------------------------------------------- float

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
        float min = Float.POSITIVE_INFINITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static float max(Chunk chunk, FloatField field) {
        float max = Float.NEGATIVE_INFINITY;
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
        double min = Double.POSITIVE_INFINITY;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static double max(Chunk chunk, DoubleField field) {
        double max = Double.NEGATIVE_INFINITY;
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

    // ---------------------------------------------------------------- int

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
        int min = Integer.MAX_VALUE;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static int max(Chunk chunk, IntField field) {
        int max = Integer.MIN_VALUE;
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
        long min = Long.MAX_VALUE;
        for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
            min = Math.min(min, chunk.get(s, field));
        }
        return min;
    }

    static long max(Chunk chunk, LongField field) {
        long max = Long.MIN_VALUE;
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

}
