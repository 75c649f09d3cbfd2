package dev.bulkdata.benchmarks.report;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the forks of a run say about a ratio. JMH's JSON holds each fork's iteration scores
 * ({@code primaryMetric.rawData}); a fork's mean is the mean of its iterations. A ratio of two
 * results is given as the ratio of the medians of their forks' means, with the lowest and the
 * highest ratio that any pairing of a fork of one with a fork of the other gives: pairing every
 * fork with every other, not fork i with fork i, so the bounds hold whichever forks shared a
 * quiet or a busy moment of the machine.
 *
 * <p>A target is judged only with at least {@link #JUDGED} forks on both sides: met when the
 * worst pairing meets it (the lowest ratio for a "× faster" minimum, the highest for a maximum),
 * or when the bound of the ratio's error does (ratio − error for a minimum, ratio + error for a
 * maximum).
 *
 * @param median the ratio of the medians of the two results' fork means
 * @param min    the lowest ratio over all pairings of forks
 * @param max    the highest ratio over all pairings of forks
 * @param forks  the fewer forks of the two results
 */
record Forks(double median, double min, double max, int forks) {
    /** Forks needed on both sides before a target is judged. */
    static final int JUDGED = 3;

    /** {@code factor * numerator / denominator}, fork by fork. */
    static Forks ratio(Report.Result numerator, Report.Result denominator, double factor) {
        double[] a = numerator.forkMeans();
        double[] b = denominator.forkMeans();
        if (a.length == 0 || b.length == 0) {
            return new Forks(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double[] sa = a.clone();
        double[] sb = b.clone();
        Arrays.sort(sa);
        Arrays.sort(sb);
        return new Forks(factor * median(sa) / median(sb), factor * sa[0] / sb[sb.length - 1],
                factor * sa[sa.length - 1] / sb[0], Math.min(a.length, b.length));
    }

    /** The forks' means of one result, times {@code factor} (a unit). */
    static Forks of(Report.Result result, double factor) {
        double[] a = result.forkMeans().clone();
        if (a.length == 0) {
            return new Forks(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        Arrays.sort(a);
        return new Forks(factor * median(a), factor * a[0], factor * a[a.length - 1], a.length);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** "2.41 [2.10–2.73], 3 forks", or "1 fork" when there is nothing to spread. */
    String format() {
        if (forks == 0) {
            return "no raw data";
        }
        if (forks == 1) {
            return "1 fork";
        }
        return Report.fmt(median) + " [" + Report.fmt(min) + "–" + Report.fmt(max) + "], " + forks + " forks";
    }

    /**
     * A target's cell: "≥ 2.00 ✅" or "≥ 2.00 ❌" judged on the worst pairing of forks or the
     * bound of {@code ratio}'s error, or "≥ 2.00, 1 fork: not judged" with fewer than
     * {@link #JUDGED} forks. {@code atLeast}: the target is a minimum (else a maximum);
     * {@code ratio}: the ratio with its error, or null (an absolute time: the forks alone judge);
     * {@code label} is how the target reads ("≥ 2.00", "< 100 ms").
     */
    String judge(boolean atLeast, double target, Report.Ratio ratio, String label) {
        if (forks < JUDGED) {
            return String.format(Locale.ROOT, "%s, %d fork%s: not judged", label, forks, forks == 1 ? "" : "s");
        }
        boolean byError = ratio != null && !Double.isNaN(ratio.error())
                && (atLeast ? ratio.value() - ratio.error() >= target : ratio.value() + ratio.error() <= target);
        boolean met = byError || (atLeast ? min >= target : max <= target);
        return label + (met ? " ✅" : " ❌");
    }
}
