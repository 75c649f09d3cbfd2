// Generated from storage-vector/src/main/templates/dev/bulkdata/storage/vector/FloatVectors.java by codegen/Generate.java: edit the template, not this file.
package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The vectorised {@code long} kernels over SOA columns (the caller, {@link Kernels}, has
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
final class LongVectors {
    static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final int BYTES = Long.BYTES;
    /**
     * A vector's size in bytes. The run loops step a {@code long} byte offset by it: indexed by
     * an {@code int} slot instead, C2 widens and scales the index for every access (twice the
     * instructions per vector in the AVX2 code of {@code axpy}).
     */
    private static final long VECTOR_BYTES = (long) L * BYTES;
    private static final ByteOrder O = ByteOrder.nativeOrder();

    private LongVectors() {
    }

    static void fill(Chunk chunk, MemorySegment a, long value) {
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
                LongVector v = LongVector.broadcast(S, value);
                for (int i = base; i < end; i += L) {
                    v.intoMemorySegment(a, (long) i * BYTES, O, VectorMask.fromLong(S, bits >>> (i - base)));
                }
            }
        }
    }

    private static void fill(MemorySegment a, long value, int from, int to) {
        LongVector v = LongVector.broadcast(S, value);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            v.intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            v.intoMemorySegment(a, (long) tail * BYTES, O, S.indexInRange(tail, to));
        }
    }

    static void scale(Chunk chunk, MemorySegment a, long k) {
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
                    VectorMask<Long> m = VectorMask.fromLong(S, bits >>> (i - base));
                    LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).mul(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void scale(MemorySegment a, long k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            LongVector.fromMemorySegment(S, a, off, O).mul(k).intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Long> m = S.indexInRange(tail, to);
            LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m).mul(k).intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    static void add(Chunk chunk, MemorySegment a, long k) {
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
                    VectorMask<Long> m = VectorMask.fromLong(S, bits >>> (i - base));
                    LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).add(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void add(MemorySegment a, long k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            LongVector.fromMemorySegment(S, a, off, O).add(k).intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Long> m = S.indexInRange(tail, to);
            LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m).add(k).intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    static void axpy(Chunk chunk, MemorySegment a, MemorySegment b, long k) {
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
                    VectorMask<Long> m = VectorMask.fromLong(S, bits >>> (i - base));
                    LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m)
                            .add(LongVector.fromMemorySegment(S, b, (long) i * BYTES, O, m).mul(k))
                            .intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    private static void axpy(MemorySegment a, MemorySegment b, long k, int from, int to) {
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            LongVector.fromMemorySegment(S, a, off, O)
                    .add(LongVector.fromMemorySegment(S, b, off, O).mul(k))
                    .intoMemorySegment(a, off, O);
        }
        if (tail < to) {
            VectorMask<Long> m = S.indexInRange(tail, to);
            LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m)
                    .add(LongVector.fromMemorySegment(S, b, (long) tail * BYTES, O, m).mul(k))
                    .intoMemorySegment(a, (long) tail * BYTES, O, m);
        }
    }

    /** The sum of the live values, each run and masked word summed lane by lane, then its lanes. */
    static long sum(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return sum(a, 0, n);
        }
        long sum = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                sum += sum(a, base, Math.min(base + 64, n));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                LongVector acc = LongVector.zero(S);
                for (int i = base; i < end; i += L) {
                    acc = acc.add(LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, VectorMask.fromLong(S, bits >>> (i - base))));
                }
                sum += acc.reduceLanes(VectorOperators.ADD);
            }
        }
        return sum;
    }

    private static long sum(MemorySegment a, int from, int to) {
        LongVector acc = LongVector.zero(S);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.add(LongVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            acc = acc.add(LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, S.indexInRange(tail, to)));
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    // min and max are written out each: as one reduction taking a VectorOperators argument, the
    // operator would be a constant to C2 only where the call is inlined (see ARCHITECTURE).
    // Their reduction at the end of a run, too: a helper taking the vector would box it where C2
    // leaves the call out of line (the masked path, which is rare).

    /**
     * Whether C2 reduces 64-bit lanes by min and max in vector instructions. AVX-512 has them
     * ({@code vpminsq}), and the preferred species is 512 bits wide only there; AVX2 has no
     * 64-bit min or max, and there {@code reduceLanes(MIN)} runs the Vector API's Java
     * fallback, which boxes a vector per call (about 25 KB per pass over 100,000 records). The
     * lanewise min and max compile on both (a compare and a blend on AVX2), so only the
     * reduction at the end of each run differs: there, a fold of the lanes one by one, which C2
     * compiles to lane extractions. Chosen once per JVM; both give the same result.
     */
    private static final boolean NATIVE_MIN_MAX_REDUCTION = S.vectorBitSize() >= 512;

    /** The least live value, or the identity of min if none is live. */
    static long min(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return min(a, 0, n);
        }
        long min = Scalar.LONG_MIN_IDENTITY;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                min = Math.min(min, min(a, base, Math.min(base + 64, n)));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                LongVector acc = LongVector.broadcast(S, Scalar.LONG_MIN_IDENTITY);
                for (int i = base; i < end; i += L) {
                    VectorMask<Long> m = VectorMask.fromLong(S, bits >>> (i - base));
                    acc = acc.lanewise(VectorOperators.MIN, LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m), m);
                }
                if (NATIVE_MIN_MAX_REDUCTION) {
                    min = Math.min(min, acc.reduceLanes(VectorOperators.MIN));
                } else {
                    for (int k = 0; k < L; k++) {
                        min = Math.min(min, acc.lane(k));
                    }
                }
            }
        }
        return min;
    }

    private static long min(MemorySegment a, int from, int to) {
        LongVector acc = LongVector.broadcast(S, Scalar.LONG_MIN_IDENTITY);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.lanewise(VectorOperators.MIN, LongVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            VectorMask<Long> m = S.indexInRange(tail, to);
            acc = acc.lanewise(VectorOperators.MIN, LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m), m);
        }
        if (NATIVE_MIN_MAX_REDUCTION) {
            return acc.reduceLanes(VectorOperators.MIN);
        }
        long min = Scalar.LONG_MIN_IDENTITY;
        for (int k = 0; k < L; k++) {
            min = Math.min(min, acc.lane(k));
        }
        return min;
    }

    /** The greatest live value, or the identity of max if none is live. */
    static long max(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            return max(a, 0, n);
        }
        long max = Scalar.LONG_MAX_IDENTITY;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            if (bits == -1L) {
                max = Math.max(max, max(a, base, Math.min(base + 64, n)));
            } else if (bits != 0) {
                int end = Math.min(base + 64, n);
                LongVector acc = LongVector.broadcast(S, Scalar.LONG_MAX_IDENTITY);
                for (int i = base; i < end; i += L) {
                    VectorMask<Long> m = VectorMask.fromLong(S, bits >>> (i - base));
                    acc = acc.lanewise(VectorOperators.MAX, LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m), m);
                }
                if (NATIVE_MIN_MAX_REDUCTION) {
                    max = Math.max(max, acc.reduceLanes(VectorOperators.MAX));
                } else {
                    for (int k = 0; k < L; k++) {
                        max = Math.max(max, acc.lane(k));
                    }
                }
            }
        }
        return max;
    }

    private static long max(MemorySegment a, int from, int to) {
        LongVector acc = LongVector.broadcast(S, Scalar.LONG_MAX_IDENTITY);
        int tail = from + S.loopBound(to - from);
        for (long off = (long) from * BYTES, end = (long) tail * BYTES; off < end; off += VECTOR_BYTES) {
            acc = acc.lanewise(VectorOperators.MAX, LongVector.fromMemorySegment(S, a, off, O));
        }
        if (tail < to) {
            VectorMask<Long> m = S.indexInRange(tail, to);
            acc = acc.lanewise(VectorOperators.MAX, LongVector.fromMemorySegment(S, a, (long) tail * BYTES, O, m), m);
        }
        if (NATIVE_MIN_MAX_REDUCTION) {
            return acc.reduceLanes(VectorOperators.MAX);
        }
        long max = Scalar.LONG_MAX_IDENTITY;
        for (int k = 0; k < L; k++) {
            max = Math.max(max, acc.lane(k));
        }
        return max;
    }

    /**
     * Word {@code w} of the mask of live slots whose value is below {@code threshold}.
     * Full vectors are compared unmasked (reading a hole is harmless; its bit is dropped).
     */
    static long lessThanWord(Chunk chunk, MemorySegment a, long threshold, int w) {
        long bits = chunk.liveBits(w);
        if (bits == 0) {
            return 0;
        }
        int base = w << 6;
        int end = Math.min(base + 64, chunk.slotCount());
        long word = 0;
        for (int i = base; i < end; i += L) {
            VectorMask<Long> lt;
            if (i + L <= end) {
                lt = LongVector.fromMemorySegment(S, a, (long) i * BYTES, O).compare(VectorOperators.LT, threshold);
            } else {
                VectorMask<Long> m = S.indexInRange(i, end);
                lt = LongVector.fromMemorySegment(S, a, (long) i * BYTES, O, m).compare(VectorOperators.LT, threshold, m);
            }
            word |= lt.toLong() << (i - base);
        }
        return word & bits;
    }

    /** Writes the words of the mask (live and below {@code threshold}); returns its bit count. */
    static int lessThan(Chunk chunk, MemorySegment a, long threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long word = lessThanWord(chunk, a, threshold, w);
            mask[w] = word;
            count += Long.bitCount(word);
        }
        return count;
    }
}
