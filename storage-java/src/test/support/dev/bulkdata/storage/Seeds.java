package dev.bulkdata.storage;

/**
 * Where every random test of this module takes its seed: the system property
 * {@value #PROPERTY} when it is given (decimal, or hexadecimal after {@code 0x}), else the
 * test's own fixed seed, so that a run repeats and a failure can be replayed. {@link #seed}
 * prints the seed it hands out; a test puts {@link #replay} in its failure messages.
 *
 * <pre>{@code
 * mvn -B -pl storage-java test -Dtest=FullChunkTest -Dbulkdata.seed=12345
 * }</pre>
 */
public final class Seeds {
    /** The system property that overrides every test's fixed seed. */
    static final String PROPERTY = "bulkdata.seed";

    private Seeds() {
    }

    /**
     * Returns the seed of one random test and prints it.
     *
     * @param test the test's name, for the printed line
     * @param fixed the seed used when {@value #PROPERTY} is not given
     * @return the seed
     * @throws IllegalArgumentException if the property is not a number
     */
    public static long seed(String test, long fixed) {
        long seed = fromProperty(fixed);
        System.out.println("[" + test + "] " + replay(seed));
        return seed;
    }

    /**
     * Returns the seed {@value #PROPERTY} gives, or {@code fixed}; prints nothing.
     *
     * @param fixed the seed used when the property is not given
     * @return the seed
     * @throws IllegalArgumentException if the property is not a number
     */
    public static long fromProperty(long fixed) {
        String text = System.getProperty(PROPERTY);
        if (text == null || text.isBlank()) {
            return fixed;
        }
        text = text.trim();
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return Long.parseUnsignedLong(text.substring(2), 16);
            }
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + text + " is not a number", e);
        }
    }

    /** {@return "seed N (replay with -Dbulkdata.seed=N)", for a failure message} */
    public static String replay(long seed) {
        return "seed " + seed + " (replay with -D" + PROPERTY + "=" + seed + ")";
    }
}
