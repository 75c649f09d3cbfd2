package dev.bulkdata.samples;

/**
 * Runs every sample in turn: the README's first quick-start command.
 */
public final class Samples {
    private Samples() {
    }

    /**
     * @param args ignored
     */
    public static void main(String[] args) {
        long start = System.nanoTime();
        System.out.println("== Handle map tour (seed 000) ==");
        HandleMapTour.Outcome tour = HandleMapTour.run(System.out);
        System.out.printf("%n%d sample(s) done in %d ms; tour: %s%n", 1,
                (System.nanoTime() - start) / 1_000_000, tour);
    }
}
