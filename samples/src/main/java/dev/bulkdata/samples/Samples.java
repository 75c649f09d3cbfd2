package dev.bulkdata.samples;

import dev.bulkdata.storage.ReuseOrder;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs every sample in turn: the README's first quick-start command. Each sample prints a
 * heading, a progress line while it runs and a few summary lines; the run ends with one line
 * per sample. {@code --small} runs the smoke-test sizes instead of the full ones.
 */
public final class Samples {
    private Samples() {
    }

    /** One runnable sample: a short name, a title and a run that returns its one-line result. */
    private record Sample(String name, String title, Function<SampleOutput, String> run) {
    }

    /**
     * @param args {@code --small} for the smoke-test sizes; nothing for the full run
     */
    public static void main(String[] args) {
        boolean small = List.of(args).contains("--small");
        SampleOutput out = SampleOutput.console();
        List<Sample> samples = List.of(
                new Sample("handle map", "Handle map tour (seed 000)", o -> {
                    HandleMapTour.Outcome r = HandleMapTour.run(o);
                    return String.format("%d stale and %d foreign handle uses rejected", r.staleCaught(),
                            r.foreignCaught());
                }),
                new Sample("sound system", "Sound system (seed 004): resources, playing sounds, fades", o -> {
                    SoundSystem.Outcome r = SoundSystem.run(small ? SoundSystem.Params.SMALL
                            : SoundSystem.Params.FULL, ReuseOrder.LIFO, o);
                    return String.format("%,d stale handles caught, %,d wrong reads, checksum %016x",
                            r.stoppedStale() + r.fadesStale() + r.fadeTargetsGone(), r.wrongReads(), r.checksum());
                }),
                new Sample("entities", "Entities and proximity (seed 002): component tables, join, swap-and-pop", o -> {
                    EntitiesAndProximity.Outcome r = EntitiesAndProximity.run(small ? EntitiesAndProximity.Params.SMALL
                            : EntitiesAndProximity.Params.FULL, o);
                    return String.format("%,d join visits, %,d wrong owners, checksum %016x", r.joinVisits(),
                            r.wrongOwners(), r.checksum());
                }));
        long start = System.nanoTime();
        List<String> summary = new ArrayList<>();
        for (Sample sample : samples) {
            long t0 = System.nanoTime();
            out.heading(sample.title());
            String result = sample.run().apply(out);
            summary.add(String.format("  %-14s %5.1f s  %s", sample.name(), (System.nanoTime() - t0) / 1e9,
                    result));
        }
        out.heading(String.format("%d samples in %.1f s", samples.size(), (System.nanoTime() - start) / 1e9));
        summary.forEach(line -> out.line("%s", line));
    }
}
