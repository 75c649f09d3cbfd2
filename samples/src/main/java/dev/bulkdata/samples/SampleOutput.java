package dev.bulkdata.samples;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * Where a sample prints: a heading, a few short lines, and at most one {@link Progress} line
 * at a time for long runs. On an interactive console the progress line is rewritten in place
 * with {@code \r}; anywhere else (a pipe, a file, Maven's {@code exec:exec} output, a test) it
 * prints a few plain lines instead, so a log never fills with progress.
 *
 * <p>Not thread-safe: one sample prints from one thread.
 */
public final class SampleOutput {
    private final PrintStream out;
    private final boolean interactive;

    /**
     * @param out where to print
     * @param interactive whether {@code out} is a terminal that understands {@code \r}
     */
    public SampleOutput(PrintStream out, boolean interactive) {
        this.out = out;
        this.interactive = interactive;
    }

    /** {@return output to {@code System.out}, rewriting progress lines in place only on a terminal} */
    public static SampleOutput console() {
        java.io.Console console = System.console();
        return new SampleOutput(System.out, console != null && console.isTerminal());
    }

    /** {@return plain-line output to {@code out}, for tests and logs: it never rewrites a line} */
    public static SampleOutput plain(PrintStream out) {
        return new SampleOutput(out, false);
    }

    /** {@return whether progress lines are rewritten in place} */
    public boolean interactive() {
        return interactive;
    }

    /** Prints a sample's title line, {@code title} saying what it shows. */
    public void heading(String title) {
        out.println();
        out.println("== " + title + " ==");
    }

    /** Prints one line: {@link String#format} of {@code format} and {@code args}. */
    public void line(String format, Object... args) {
        out.println(String.format(format, args));
    }

    /**
     * Starts a progress indicator over {@code total} steps.
     *
     * @param label what is counted, e.g. {@code "tick"}
     * @param total the number of steps
     * @param status a short state description, asked for only when a line is printed
     * @return the indicator; call {@link Progress#step(int)} after each step and
     *         {@link Progress#done()} at the end
     */
    public Progress progress(String label, int total, Supplier<String> status) {
        return new Progress(out, interactive, label, total, status);
    }
}
