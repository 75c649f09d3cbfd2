package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.ReuseOrder;

import java.util.Arrays;

/**
 * The free list of {@link ReuseOrder#SWEEP}: a bit per free slot plus a summary bit per non-zero word, so {@link #next}
 * skips 4,096 slots per summary word; holes refill in slot order. Grown by doubling, never shrunk.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class FreeBits {
    private static final long[] NO_BITS = new long[0];

    private final String name;
    public long[] bits = NO_BITS;
    /** Bit {@code w % 64} of word {@code w / 64}: {@code bits[w]} is not 0. */
    public long[] summary = NO_BITS;
    public int count;

    public FreeBits(String name) {
        this.name = name;
    }

    /** Adds {@code slot}, which is not in the set. */
    public void add(int slot) {
        int w = slot >>> 6;
        if (w >= bits.length) {
            grow(w);
        }
        bits[w] |= 1L << slot;
        summary[w >>> 6] |= 1L << w;
        count++;
    }

    /** Removes {@code slot}, which is in the set. */
    public void remove(int slot) {
        int w = slot >>> 6;
        long word = bits[w] & ~(1L << slot);
        bits[w] = word;
        if (word == 0) {
            summary[w >>> 6] &= ~(1L << w);
        }
        count--;
    }

    /** Removes the slots of {@code take}, bits of word {@code w} all in the set. */
    public void removeAll(int w, long take) {
        long word = bits[w] & ~take;
        bits[w] = word;
        if (word == 0) {
            summary[w >>> 6] &= ~(1L << w);
        }
        count -= Long.bitCount(take);
    }

    public boolean contains(int slot) {
        int w = slot >>> 6;
        return w < bits.length && (bits[w] & (1L << slot)) != 0;
    }

    /** {@return the first slot at or after {@code from}, wrapping}; {@link IllegalStateException} if there is none */
    public int next(int from) {
        int w = from >>> 6;
        long word = w < bits.length ? bits[w] & (-1L << from) : 0;
        if (word == 0) {
            int after = w + 1;
            int s = after >>> 6;
            long words = s < summary.length ? summary[s] & (-1L << after) : 0;
            for (int steps = 0; words == 0; steps++) {
                if (steps > summary.length) {
                    throw new IllegalStateException("free list of table '" + name + "' is corrupt: it counts "
                            + count + " free slots but holds none");
                }
                s = s + 1 < summary.length ? s + 1 : 0;
                words = summary[s];
            }
            w = (s << 6) | Long.numberOfTrailingZeros(words);
            word = bits[w];
        }
        return (w << 6) | Long.numberOfTrailingZeros(word);
    }

    /** Empties the set, visiting only the words the summary names (a reset). */
    public void clear() {
        if (count == 0) {
            return;
        }
        for (int s = 0; s < summary.length; s++) {
            for (long words = summary[s]; words != 0; words &= words - 1) {
                bits[(s << 6) | Long.numberOfTrailingZeros(words)] = 0L;
            }
            summary[s] = 0L;
        }
        count = 0;
    }

    /** Makes the set slots {@code [1, limit)}, every slot opened but the header (a clear). */
    public void fillOpened(int limit) {
        Arrays.fill(bits, 0L);
        Arrays.fill(summary, 0L);
        count = 0;
        if (limit <= 1) {
            return;
        }
        int last = limit - 1;
        int lastWord = last >>> 6;
        if (lastWord >= bits.length) {
            grow(lastWord);
        }
        Arrays.fill(bits, 0, lastWord, -1L);
        bits[lastWord] = -1L >>> (63 - (last & 63));
        bits[0] &= ~1L;     // the header
        for (int w = 0; w <= lastWord; w++) {
            if (bits[w] != 0) {
                summary[w >>> 6] |= 1L << w;
            }
        }
        count = last;
    }

    /** Removes slots {@code [1, taken]}, which are all in the set (a run taken after a clear). */
    public void removeFirst(int taken) {
        int lastWord = taken >>> 6;
        Arrays.fill(bits, 0, lastWord, 0L);
        bits[lastWord] &= (taken & 63) == 63 ? 0L : -1L << ((taken & 63) + 1);
        for (int w = 0; w <= lastWord; w++) {
            if (bits[w] == 0) {
                summary[w >>> 6] &= ~(1L << w);
            }
        }
        count -= taken;
    }

    /** Grows the bits to hold word {@code w}, doubling. */
    private void grow(int w) {
        int words = Math.max(Math.max(16, bits.length * 2), w + 1);
        bits = Arrays.copyOf(bits, words);
        summary = Arrays.copyOf(summary, (words + 63) >>> 6);
    }
}
