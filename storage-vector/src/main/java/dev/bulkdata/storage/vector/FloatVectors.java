package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The vectorised {@code float} kernels over SOA columns (the caller, {@link Kernels}, has
 * checked the fields and taken the columns). Every kernel walks a chunk the same way: a chunk
 * whose slots are all live is one unmasked loop over the column with a masked tail; otherwise
 * each 64-slot word of the live bitmap is skipped (0), run unmasked (all ones) or run with
 * lane masks taken from its bits, so no hole is read into a result or written.
 *
 * <p>Loaded only when the Vector API is present ({@link Kernels#vectorized()}).
 */
final class FloatVectors {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final int BYTES = Float.BYTES;
    private static final ByteOrder O = ByteOrder.nativeOrder();

    private FloatVectors() {
    }

    private static FloatVector load(MemorySegment c, int i) {
        return FloatVector.fromMemorySegment(S, c, (long) i * BYTES, O);
    }

    private static FloatVector load(MemorySegment c, int i, VectorMask<Float> m) {
        return FloatVector.fromMemorySegment(S, c, (long) i * BYTES, O, m);
    }

    /** Lanes {@code i..i+L} of a 64-slot word starting at {@code base}, as a mask. */
    private static VectorMask<Float> lanes(long bits, int base, int i) {
        return VectorMask.fromLong(S, bits >>> (i - base));
    }

    static void fill(Chunk chunk, MemorySegment a, float value) {
        int n = chunk.slotCount();
        FloatVector v = FloatVector.broadcast(S, value);
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                v.intoMemorySegment(a, (long) i * BYTES, O);
            }
            if (i < n) {
                v.intoMemorySegment(a, (long) i * BYTES, O, S.indexInRange(i, n));
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            int end = Math.min(base + 64, n);
            if (bits == -1L) {
                for (int i = base; i < end; i += L) {
                    v.intoMemorySegment(a, (long) i * BYTES, O);
                }
            } else if (bits != 0) {
                for (int i = base; i < end; i += L) {
                    v.intoMemorySegment(a, (long) i * BYTES, O, lanes(bits, base, i));
                }
            }
        }
    }

    static void scale(Chunk chunk, MemorySegment a, float k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                load(a, i).mul(k).intoMemorySegment(a, (long) i * BYTES, O);
            }
            if (i < n) {
                VectorMask<Float> m = S.indexInRange(i, n);
                load(a, i, m).mul(k).intoMemorySegment(a, (long) i * BYTES, O, m);
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            int end = Math.min(base + 64, n);
            if (bits == -1L) {
                for (int i = base; i < end; i += L) {
                    load(a, i).mul(k).intoMemorySegment(a, (long) i * BYTES, O);
                }
            } else if (bits != 0) {
                for (int i = base; i < end; i += L) {
                    VectorMask<Float> m = lanes(bits, base, i);
                    load(a, i, m).mul(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    static void add(Chunk chunk, MemorySegment a, float k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                load(a, i).add(k).intoMemorySegment(a, (long) i * BYTES, O);
            }
            if (i < n) {
                VectorMask<Float> m = S.indexInRange(i, n);
                load(a, i, m).add(k).intoMemorySegment(a, (long) i * BYTES, O, m);
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            int end = Math.min(base + 64, n);
            if (bits == -1L) {
                for (int i = base; i < end; i += L) {
                    load(a, i).add(k).intoMemorySegment(a, (long) i * BYTES, O);
                }
            } else if (bits != 0) {
                for (int i = base; i < end; i += L) {
                    VectorMask<Float> m = lanes(bits, base, i);
                    load(a, i, m).add(k).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    static void axpy(Chunk chunk, MemorySegment a, MemorySegment b, float k) {
        int n = chunk.slotCount();
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                load(a, i).add(load(b, i).mul(k)).intoMemorySegment(a, (long) i * BYTES, O);
            }
            if (i < n) {
                VectorMask<Float> m = S.indexInRange(i, n);
                load(a, i, m).add(load(b, i, m).mul(k)).intoMemorySegment(a, (long) i * BYTES, O, m);
            }
            return;
        }
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long bits = chunk.liveBits(w);
            int base = w << 6;
            int end = Math.min(base + 64, n);
            if (bits == -1L) {
                for (int i = base; i < end; i += L) {
                    load(a, i).add(load(b, i).mul(k)).intoMemorySegment(a, (long) i * BYTES, O);
                }
            } else if (bits != 0) {
                for (int i = base; i < end; i += L) {
                    VectorMask<Float> m = lanes(bits, base, i);
                    load(a, i, m).add(load(b, i, m).mul(k)).intoMemorySegment(a, (long) i * BYTES, O, m);
                }
            }
        }
    }

    static float sum(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        FloatVector acc = FloatVector.zero(S);
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                acc = acc.add(load(a, i));
            }
            if (i < n) {
                acc = acc.add(load(a, i, S.indexInRange(i, n)));
            }
        } else {
            for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                long bits = chunk.liveBits(w);
                int base = w << 6;
                int end = Math.min(base + 64, n);
                if (bits == -1L) {
                    for (int i = base; i < end; i += L) {
                        acc = acc.add(load(a, i));
                    }
                } else if (bits != 0) {
                    for (int i = base; i < end; i += L) {
                        acc = acc.add(load(a, i, lanes(bits, base, i)));
                    }
                }
            }
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /** The least live value, or the identity of min if none is live. */
    static float min(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        FloatVector acc = FloatVector.broadcast(S, Float.POSITIVE_INFINITY);
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                acc = acc.lanewise(VectorOperators.MIN, load(a, i));
            }
            if (i < n) {
                VectorMask<Float> m = S.indexInRange(i, n);
                acc = acc.lanewise(VectorOperators.MIN, load(a, i, m), m);
            }
        } else {
            for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                long bits = chunk.liveBits(w);
                int base = w << 6;
                int end = Math.min(base + 64, n);
                if (bits == -1L) {
                    for (int i = base; i < end; i += L) {
                        acc = acc.lanewise(VectorOperators.MIN, load(a, i));
                    }
                } else if (bits != 0) {
                    for (int i = base; i < end; i += L) {
                        VectorMask<Float> m = lanes(bits, base, i);
                        acc = acc.lanewise(VectorOperators.MIN, load(a, i, m), m);
                    }
                }
            }
        }
        return acc.reduceLanes(VectorOperators.MIN);
    }

    /** The greatest live value, or the identity of max if none is live. */
    static float max(Chunk chunk, MemorySegment a) {
        int n = chunk.slotCount();
        FloatVector acc = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        if (chunk.liveCount() == n) {
            int i = 0;
            for (int upper = S.loopBound(n); i < upper; i += L) {
                acc = acc.lanewise(VectorOperators.MAX, load(a, i));
            }
            if (i < n) {
                VectorMask<Float> m = S.indexInRange(i, n);
                acc = acc.lanewise(VectorOperators.MAX, load(a, i, m), m);
            }
        } else {
            for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                long bits = chunk.liveBits(w);
                int base = w << 6;
                int end = Math.min(base + 64, n);
                if (bits == -1L) {
                    for (int i = base; i < end; i += L) {
                        acc = acc.lanewise(VectorOperators.MAX, load(a, i));
                    }
                } else if (bits != 0) {
                    for (int i = base; i < end; i += L) {
                        VectorMask<Float> m = lanes(bits, base, i);
                        acc = acc.lanewise(VectorOperators.MAX, load(a, i, m), m);
                    }
                }
            }
        }
        return acc.reduceLanes(VectorOperators.MAX);
    }

    /**
     * Word {@code w} of the mask of live slots whose value is below {@code threshold}.
     * Full vectors are compared unmasked (reading a hole is harmless; its bit is dropped).
     */
    static long lessThanWord(Chunk chunk, MemorySegment a, float threshold, int w) {
        long bits = chunk.liveBits(w);
        if (bits == 0) {
            return 0;
        }
        int base = w << 6;
        int end = Math.min(base + 64, chunk.slotCount());
        long word = 0;
        for (int i = base; i < end; i += L) {
            VectorMask<Float> lt;
            if (i + L <= end) {
                lt = load(a, i).compare(VectorOperators.LT, threshold);
            } else {
                VectorMask<Float> m = S.indexInRange(i, end);
                lt = load(a, i, m).compare(VectorOperators.LT, threshold, m);
            }
            word |= lt.toLong() << (i - base);
        }
        return word & bits;
    }

    /** Writes the words of the mask (live and below {@code threshold}); returns its bit count. */
    static int lessThan(Chunk chunk, MemorySegment a, float threshold, long[] mask) {
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            long word = lessThanWord(chunk, a, threshold, w);
            mask[w] = word;
            count += Long.bitCount(word);
        }
        return count;
    }
}
