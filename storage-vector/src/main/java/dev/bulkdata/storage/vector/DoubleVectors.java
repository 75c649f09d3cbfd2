// Generated from storage-vector/src/main/templates/dev/bulkdata/storage/vector/FloatVectors.java by codegen/Generate.java: edit the template, not this file.
package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The vectorised {@code double} kernels over SOA columns (the caller, {@link Kernels}, has
 * checked the fields and taken the columns). Every kernel walks a chunk the same way: a chunk
 * whose slots are all live is one run; otherwise each 64-slot word of the live bitmap is
 * skipped (0), taken as a run (all ones) or taken lane-masked by its bits, so no hole is read
 * into a result or written. A run is full vectors and one masked tail.
 *
 * <p>Each kernel is two methods: the chunk walk, which holds the masked-word loop, and a run,
 * which both a whole chunk and a full word call. Both shapes are for the JIT. Every vector
 * stays inside one method and the loops call the Vector API directly, because a vector that
 * crosses a call C2 did not inline is boxed on the heap. And no method holds more than two
 * vector loops: one holding four outgrew C1's register allocator on some types, so it never
 * reached C2 and ran boxed (megabytes per table pass). The masked loop stays in the walk, which
 * every chunk calls, so C2 compiles it early, however rare partial words are.
 * {@code KernelsAllocationTest} guards both.
 *
 * <p>Loaded only when the Vector API is present ({@link Kernels#vectorized()}).
 */
final class DoubleVectors {
    static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final int BYTES = Double.BYTES;
    /**
     * A vector's size in bytes. The run loops step a {@code long} byte offset by it: indexed by
     * an {@code int} slot instead, C2 widens and scales the index for every access (twice the
     * instructions per vector in the AVX2 code of {@code axpy}).
     */
    private static final long VECTOR_BYTES = (long) L * BYTES;
    private static final ByteOrder O = ByteOrder.nativeOrder();

    private DoubleVectors() {
    }

    static void fill(Chunk chunk, MemorySegment a, double value) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            fill(a, value, 0, n);
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                fill(a, value, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                DoubleVector v = DoubleVector.broadcast(S, value);
                for (int i = base; i < end; i += L) {
                    v.intoMemorySegment(a, (long) i * BYTES, O, VectorMask.fromLong(S, bits >>> (i - base)));
                }
            }
        }
    }

    private static void fill(MemorySegment a, double value, int from, int to) {
        DoubleVector v = DoubleVector.broadcast(S, value);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            v.intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            v.intoMemorySegment(a, (long) tail * BYTES, O, S.indexInRange(tail, to));
        }
    }

    static void scale(Chunk chunk, MemorySegment a, double k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            scale(a, k, 0, n);
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                scale(a, k, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                for (int i = base; i < end; i += L) {
                    VectorMask<Double> m = VectorMask.fromLong(S, bits >>> (i - base));
                    DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).mul(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void scale(MemorySegment a, double k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            DoubleVector.fromMemorySegment(S, a, off, O).mul(k).intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Double> m = S.indexInRange(tail, to);
            DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m).mul(k).intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    static void add(Chunk chunk, MemorySegment a, double k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            add(a, k, 0, n);
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                add(a, k, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                for (int i = base; i < end; i += L) {
                    VectorMask<Double> m = VectorMask.fromLong(S, bits >>> (i - base));
                    DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).add(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void add(MemorySegment a, double k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            DoubleVector.fromMemorySegment(S, a, off, O).add(k).intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Double> m = S.indexInRange(tail, to);
            DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m).add(k).intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    static void axpy(Chunk chunk, MemorySegment a, MemorySegment b, double k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            axpy(a, b, k, 0, n);
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                axpy(a, b, k, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                for (int i = base; i < end; i += L) {
                    VectorMask<Double> m = VectorMask.fromLong(S, bits >>> (i - base));
                    DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m)
                            .add(DoubleVector.fromMemorySegment(S, b, (long) i * BYTES, O, m).mul(k))
                            .intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void axpy(MemorySegment a, MemorySegment b, double k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            DoubleVector.fromMemorySegment(S, a, off, O)
                    .add(DoubleVector.fromMemorySegment(S, b, off, O).mul(k))
                    .intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Double> m = S.indexInRange(tail, to);
            DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m)
                    .add(DoubleVector.fromMemorySegment(S, b, (long) tail * BYTES, O, m).mul(k))
                    .intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    /** The sum of the live values, each run and masked word summed lane by lane, then its lanes. */
    static double sum(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return sum(a, 0, n);
        }
        double sum = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                sum += sum(a, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                DoubleVector acc = DoubleVector.zero(S);
                for (int i = base; i < end; i += L) {
                    acc = acc.add(DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, VectorMask.fromLong(S, bits >>> (i - base))));
                }
                sum += acc.reduceLanes(VectorOperators.ADD);
            }
        }
        return sum;
    }

    private static double sum(MemorySegment a, int from, int to) {
        DoubleVector acc = DoubleVector.zero(S);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.add(DoubleVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            acc = acc.add(DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, S.indexInRange(tail, to)));
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    // min and max are written out each: as one reduction taking a VectorOperators argument, the
    // operator would be a constant to C2 only where the call is inlined (see ARCHITECTURE).

    /** The least live value, or the identity of min if none is live. */
    static double min(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return min(a, 0, n);
        }
        double min = Scalar.DOUBLE_MIN_IDENTITY;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                min = Math.min(min, min(a, base, Math.min(base + 64, n)));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                DoubleVector acc = DoubleVector.broadcast(S, Scalar.DOUBLE_MIN_IDENTITY);
                for (int i = base; i < end; i += L) {
                    VectorMask<Double> m = VectorMask.fromLong(S, bits >>> (i - base));
                    acc = acc.lanewise(VectorOperators.MIN, DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m), m);
                }
                min = Math.min(min, acc.reduceLanes(VectorOperators.MIN));
            }
        }
        return min;
    }

    private static double min(MemorySegment a, int from, int to) {
        DoubleVector acc = DoubleVector.broadcast(S, Scalar.DOUBLE_MIN_IDENTITY);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.lanewise(VectorOperators.MIN, DoubleVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            VectorMask<Double> m = S.indexInRange(tail, to);
            acc = acc.lanewise(VectorOperators.MIN, DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m), m);
        }
        return acc.reduceLanes(VectorOperators.MIN);
    }

    /** The greatest live value, or the identity of max if none is live. */
    static double max(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return max(a, 0, n);
        }
        double max = Scalar.DOUBLE_MAX_IDENTITY;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                max = Math.max(max, max(a, base, Math.min(base + 64, n)));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                DoubleVector acc = DoubleVector.broadcast(S, Scalar.DOUBLE_MAX_IDENTITY);
                for (int i = base; i < end; i += L) {
                    VectorMask<Double> m = VectorMask.fromLong(S, bits >>> (i - base));
                    acc = acc.lanewise(VectorOperators.MAX, DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m), m);
                }
                max = Math.max(max, acc.reduceLanes(VectorOperators.MAX));
            }
        }
        return max;
    }

    private static double max(MemorySegment a, int from, int to) {
        DoubleVector acc = DoubleVector.broadcast(S, Scalar.DOUBLE_MAX_IDENTITY);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.lanewise(VectorOperators.MAX, DoubleVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            VectorMask<Double> m = S.indexInRange(tail, to);
            acc = acc.lanewise(VectorOperators.MAX, DoubleVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m), m);
        }
        return acc.reduceLanes(VectorOperators.MAX);
    }

    /**
     * Word {@code w} of the mask of live slots whose value is below {@code threshold}.
     * Full vectors are compared unmasked (reading a hole is harmless; its bit is dropped).
     */
    static long lessThanWord(Chunk chunk, MemorySegment a, double threshold, int w) {
        long bits = chunk.liveBits(w);
        if (bits == 0) {
            return 0;
        }
        int base = w << 6;
        int end = Math.min(base + 64, chunk.slotCount());
        long word = 0;
        for (int i = base; i < end; i += L) {
            VectorMask<Double> lt;
            if (i + L <= end) {
                lt = DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O).compare(VectorOperators.LT, threshold);
            } else {
                VectorMask<Double> m = S.indexInRange(i, end);
                lt = DoubleVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).compare(VectorOperators.LT, threshold, m);
            }
            word |= lt.toLong() << (i - base);
        }
        return word & bits;
    }

    /** Writes the words of the mask (live and below {@code threshold}); returns its bit count. */
    static int lessThan(Chunk chunk, MemorySegment a, double threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long word = lessThanWord(chunk, a, threshold, w);
            mask[w] = word;
            count += Long.bitCount(word);
        }
        return count;
    }
}
