package dev.bulkdata.samples;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * A one-line progress indicator: {@code tick 120/300  40%  1.9 s  sounds 118,402 fades 9,871}.
 * Interactive, the line is rewritten in place at most ten times a second and cleared by
 * {@link #done()}; otherwise one plain line is printed at each quarter of the run, so a log
 * gets at most four.
 *
 * <p>Not thread-safe; {@link #step(int)} allocates nothing unless it prints.
 */
public final class Progress {
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final int PLAIN_LINES = 4;

    private final PrintStream out;
    private final boolean interactive;
    private final String label;
    private final int total;
    private final Supplier<String> status;
    private final long start = System.nanoTime();
    private long lastDraw = start - REDRAW_NANOS;
    private int nextPlainLine = 1;
    private int drawnWidth;

    Progress(PrintStream out, boolean interactive, String label, int total, Supplier<String> status) {
        if (total < 1) {
            throw new IllegalArgumentException("total=" + total + " must be at least 1");
        }
        this.out = out;
        this.interactive = interactive;
        this.label = label;
        this.total = total;
        this.status = status;
    }

    /**
     * Reports that {@code done} of the total steps are finished.
     *
     * @param done steps finished so far, 1..total
     */
    public void step(int done) {
        if (interactive) {
            long now = System.nanoTime();
            if (now - lastDraw >= REDRAW_NANOS || done == total) {
                lastDraw = now;
                String text = text(done);
                out.print('\r' + text + " ".repeat(Math.max(0, drawnWidth - text.length())));
                out.flush();
                drawnWidth = text.length();
            }
        } else if ((long) done * PLAIN_LINES >= (long) nextPlainLine * total) {
            while ((long) done * PLAIN_LINES >= (long) nextPlainLine * total) {
                nextPlainLine++;
            }
            out.println("  " + text(done));
        }
    }

    /** {@return seconds since the indicator started} */
    public double seconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /** Ends the indicator: an interactive line is cleared so the summary starts on a clean line. */
    public void done() {
        if (interactive && drawnWidth > 0) {
            out.print('\r' + " ".repeat(drawnWidth) + '\r');
            out.flush();
        }
    }

    private String text(int done) {
        return String.format("%s %d/%d %3d%%  %.1f s  %s", label, done, total,
                (int) ((long) done * 100 / total), seconds(), status.get());
    }
}
