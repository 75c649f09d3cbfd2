package dev.bulkdata.storage;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;

/**
 * Where a model test takes its decisions from: a seeded random stream (the model tests) or the
 * bytes of a fuzzer's input ({@link StorageFuzzTest}). The same model code runs on both, so a
 * fuzzer explores exactly the operations the seeded tests draw from, guided by coverage instead
 * of a seed.
 *
 * <p>{@link #nextInt(int)}, {@link #nextBoolean()} and {@link #nextLong()} behave as
 * {@link SplittableRandom}'s (the seeded kind delegates to one, so a seed replays exactly). The
 * fuzzed kind reads the input with Jazzer's {@link FuzzedDataProvider}: a choice among
 * {@code bound} values takes only the bytes it needs. Once the input is used up,
 * {@link #exhausted()} is true, which is when a fuzzed run stops at the end of its step; the
 * choices that step still makes come from a fixed-seed stream, so that a loop that draws until
 * it gets what it needs (distinct handles, a handle that is not live) still ends.
 */
interface Choices {
    /**
     * Returns a choice in {@code [0, bound)}.
     *
     * @param bound the number of values, at least 1
     * @return the choice
     */
    int nextInt(int bound);

    /** {@return a yes/no choice} */
    boolean nextBoolean();

    /** {@return any {@code long}} */
    long nextLong();

    /** {@return whether the source has nothing more to give (never, for a seeded stream)} */
    boolean exhausted();

    /** {@return the choices of {@code new SplittableRandom(seed)}} */
    static Choices seeded(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        return new Choices() {
            @Override
            public int nextInt(int bound) {
                return rng.nextInt(bound);
            }

            @Override
            public boolean nextBoolean() {
                return rng.nextBoolean();
            }

            @Override
            public long nextLong() {
                return rng.nextLong();
            }

            @Override
            public boolean exhausted() {
                return false;
            }
        };
    }

    /** {@return the choices a fuzzer's input spells out} */
    static Choices fuzzed(FuzzedDataProvider data) {
        SplittableRandom afterTheInput = new SplittableRandom(0x5EED_F022L);
        return new Choices() {
            @Override
            public int nextInt(int bound) {
                if (bound <= 0) {
                    throw new IllegalArgumentException("bound must be positive: " + bound);
                }
                if (exhausted()) {
                    return afterTheInput.nextInt(bound);
                }
                return bound == 1 ? 0 : data.consumeInt(0, bound - 1);
            }

            @Override
            public boolean nextBoolean() {
                return exhausted() ? afterTheInput.nextBoolean() : data.consumeBoolean();
            }

            @Override
            public long nextLong() {
                return exhausted() ? afterTheInput.nextLong() : data.consumeLong();
            }

            @Override
            public boolean exhausted() {
                return data.remainingBytes() == 0;
            }
        };
    }

    /**
     * Choices of {@code source} (after {@code first}, the first choice, which picks a fuzz
     * test's configuration), recorded as the input bytes from which {@link #fuzzed} makes the
     * same choices: how seed inputs are made from seeded runs ({@link StorageFuzzTest}).
     */
    static Recording recording(int first, Choices source) {
        return new Recording(first, source);
    }

    /**
     * A source that writes down what it hands out in {@link FuzzedDataProvider}'s encoding: an
     * integer in a range takes as many bytes as the range needs, most significant first, a
     * {@code long} 8 and a boolean 1, and a provider reads them from the end of its input.
     */
    final class Recording implements Choices {
        private final Choices source;
        private int first;
        /** The bytes in the order they are read, which is from the end of the input. */
        private final ByteArrayOutputStream read = new ByteArrayOutputStream();

        private Recording(int first, Choices source) {
            this.first = first;
            this.source = source;
        }

        @Override
        public int nextInt(int bound) {
            int value;
            if (first >= 0) {
                value = first;
                first = -1;
            } else {
                value = source.nextInt(bound);
            }
            long range = bound - 1L;
            int bytes = 0;
            while (bytes < Integer.BYTES && (range >>> (8 * bytes)) > 0) {
                bytes++;
            }
            write(value, bytes);
            return value;
        }

        @Override
        public boolean nextBoolean() {
            boolean value = source.nextBoolean();
            write(value ? 1 : 0, 1);
            return value;
        }

        @Override
        public long nextLong() {
            long value = source.nextLong();
            write(value, Long.BYTES);
            return value;
        }

        @Override
        public boolean exhausted() {
            return source.exhausted();
        }

        private void write(long value, int bytes) {
            for (int i = bytes - 1; i >= 0; i--) {
                read.write((int) (value >>> (8 * i)));
            }
        }

        /** {@return the input that makes {@link #fuzzed} hand out the same choices} */
        byte[] input() {
            byte[] inOrder = read.toByteArray();
            byte[] input = new byte[inOrder.length];
            for (int i = 0; i < inOrder.length; i++) {
                input[input.length - 1 - i] = inOrder[i];
            }
            return input;
        }
    }
}
