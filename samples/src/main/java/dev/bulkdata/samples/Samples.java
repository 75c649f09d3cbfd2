package dev.bulkdata.samples;

import dev.bulkdata.storage.schema.ReuseOrder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Runs every sample in turn: the README's first quick-start command. Each sample prints a
 * heading, a progress line while it runs and a few summary lines; the run ends with one line
 * per sample. {@code --size=small} runs the smoke-test sizes instead of the full ones.
 */
public final class Samples {
    private Samples() {
    }

    /**
     * One runnable sample.
     *
     * @param name a short name for the closing summary
     * @param title what the sample shows
     * @param run runs it and returns its one-line result
     */
    record Sample(String name, String title, Function<SampleOutput, String> run) {
    }

    /**
     * Every sample, in the order the main command runs them.
     *
     * @param small whether to use the smoke-test sizes
     * @return the samples
     */
    static List<Sample> all(boolean small) {
        return List.of(
                new Sample("handle map", "Handle map tour", o -> {
                    HandleMapTour.Outcome r = HandleMapTour.run(o);
                    return String.format("%d stale and %d foreign handle uses rejected", r.staleCaught(),
                            r.foreignCaught());
                }),
                new Sample("sound system", "Sound system: resources, playing sounds, fades", o -> {
                    SoundSystem.Outcome r = SoundSystem.run(small ? SoundSystem.Params.SMALL
                            : SoundSystem.Params.FULL, ReuseOrder.LIFO, o);
                    return String.format("%,d stale handles caught, %,d wrong reads, checksum %016x",
                            r.stoppedStale() + r.fadesStale() + r.fadeTargetsGone(), r.wrongReads(), r.checksum());
                }),
                new Sample("game loop", "Game loop: spawn, parallel update, expiry queued in the pass, reset per level", o -> {
                    GameLoop.Outcome r = GameLoop.run(small ? GameLoop.Params.SMALL : GameLoop.Params.FULL, 2, o);
                    return String.format("%,d bullets and fragments, %d levels, blocks %d -> %d after the first level,"
                            + " %d slots retired, %d of %,d old handles accepted", r.spawned() + r.fragments(), r.levels(),
                            r.blocksAfterFirstLevel(), r.maxBlocksAfterFirstLevel(), r.retired(), r.oldHandlesAccepted(),
                            r.oldHandlesTried());
                }),
                new Sample("save/resume", "Save and resume: a simulation saved mid-run, loaded and continued", o -> {
                    SaveAndResume.Outcome r = SaveAndResume.run(small ? SaveAndResume.Params.SMALL
                            : SaveAndResume.Params.FULL, o);
                    return String.format("%,d bodies, resumed run %s the uninterrupted one, checksum %016x",
                            r.live(), r.resumedEqual() ? "equals" : "DIFFERS FROM", r.resumedChecksum());
                }),
                new Sample("entities", "Entities and proximity: component tables, join, swap-and-pop", o -> {
                    EntitiesAndProximity.Outcome r = EntitiesAndProximity.run(small ? EntitiesAndProximity.Params.SMALL
                            : EntitiesAndProximity.Params.FULL, o);
                    return String.format("%,d join visits, %,d wrong owners, checksum %016x", r.joinVisits(),
                            r.wrongOwners(), r.checksum());
                }),
                new Sample("particles", "Particles: Kotlin DSL table, one coroutine per chunk", o -> {
                    ParticleSystem.Outcome r = ParticleSystem.run(small ? ParticleSystem.Params.SMALL
                            : ParticleSystem.Params.FULL, Runtime.getRuntime().availableProcessors(), o);
                    return String.format("%,d live, %,d spawned, %d frames off the histogram, checksum %016x",
                            r.getLive(), r.getSpawned(), r.getLateOrEarly(), r.getChecksum());
                }),
                new Sample("upload", "Upload of changed chunks: change versions, a filtered pass", o -> {
                    ChangedChunkUpload.Outcome r = ChangedChunkUpload.run(small ? ChangedChunkUpload.Params.SMALL
                            : ChangedChunkUpload.Params.FULL, 11L, o);
                    return String.format("%.1fx fewer bytes than full copies, %,d wrong positions, checksum %016x",
                            r.fullCopyBytes() / (double) Math.max(1, r.uploadedBytes()), r.wrongPositions(), r.checksum());
                }),
                new Sample("java", "Java on the Kotlin declaration: a particle burst", o -> {
                    JavaParticles.Outcome r = JavaParticles.run(small ? 2_000 : 100_000, small ? 30 : 120, 7L, o);
                    return String.format("%,d particles over %d frames, %d frames off, stale handle: %s, checksum %016x",
                            r.spawned(), r.frames(), r.lateOrEarly(), r.staleReason(), r.checksum());
                }),
                new Sample("sql", "SQL over live particles: DuckDB views, changed chunks to Parquet", o -> {
                    Path dir = null;
                    try {
                        dir = Files.createTempDirectory("bulkdata-particle-sql");
                        ParticleSql.Outcome r = ParticleSql.run(small ? ParticleSql.Params.SMALL
                                : ParticleSql.Params.FULL, 30L, dir, o);
                        return String.format("%d SQL answers equal to Java's (%,d rows), %,d of %,d chunks to Parquet,"
                                + " checksum %016x", r.queries(), r.rowsCompared(), r.recordedChunks(), r.chunks(),
                                r.checksum());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } finally {
                        deleteTree(dir);
                    }
                }));
    }

    /**
     * Runs samples one after another and prints one closing line per sample.
     *
     * @param samples what to run
     * @param out where to print
     * @return the closing lines
     */
    static List<String> runAll(List<Sample> samples, SampleOutput out) {
        long start = System.nanoTime();
        List<String> summary = new ArrayList<>();
        for (Sample sample : samples) {
            long t0 = System.nanoTime();
            out.heading(sample.title());
            String result = sample.run().apply(out);
            summary.add(String.format("  %-14s %5.1f s  %s", sample.name(), (System.nanoTime() - t0) / 1e9, result));
        }
        out.heading(String.format("%d samples in %.1f s", samples.size(), (System.nanoTime() - start) / 1e9));
        summary.forEach(line -> out.line("%s", line));
        return summary;
    }

    /**
     * @param args {@code --size=small} for the smoke-test sizes; nothing or {@code --size=full}
     *     for the full run; {@code --inspect} or {@code --inspect=on} (until interrupted), or
     *     {@code --inspect=SECONDS},
     *     runs the SQL sample's simulation with the inspector attached instead of every sample,
     *     printing the page's address with its token; {@code --inspect=off} (the default) runs
     *     every sample
     */
    public static void main(String[] args) {
        Duration inspect = inspect(args);
        if (inspect != null) {
            SampleOutput out = SampleOutput.console();
            out.heading("Inspector: the SQL sample's particles in a browser");
            ParticleSql.inspect(small(args) ? ParticleSql.Params.SMALL : ParticleSql.Params.FULL, 30L, inspect, out,
                    url -> { });
            return;
        }
        runAll(all(small(args)), SampleOutput.console());
    }

    /**
     * The {@code --inspect} argument.
     *
     * @param args the arguments
     * @return null for {@code off} or no such argument, {@link Duration#ZERO} for {@code on} or a bare {@code --inspect}
     *     (until interrupted), else the duration in seconds
     * @throws IllegalArgumentException for another value
     */
    static Duration inspect(String[] args) {
        Duration inspect = null;
        for (String arg : args) {
            if (arg.equals("--inspect")) {
                inspect = Duration.ZERO;
            } else if (arg.startsWith("--inspect=")) {
                String v = arg.substring("--inspect=".length());
                try {
                    inspect = switch (v) {
                        case "off" -> null;
                        case "on" -> Duration.ZERO;
                        default -> Duration.ofSeconds(Long.parseUnsignedLong(v));
                    };
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--inspect=" + v + ": use on, off or a number of seconds");
                }
            }
        }
        return inspect;
    }

    /** Deletes a sample's temporary directory and what it wrote there. */
    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean small(String[] args) {
        boolean small = false;
        for (String arg : args) {
            switch (arg) {
                case "--size=small" -> small = true;
                case "--size=full" -> small = false;
                case String s when s.equals("--inspect") || s.startsWith("--inspect=") -> { }
                default -> throw new IllegalArgumentException("unknown argument " + arg
                        + "; use --size=small, --size=full or --inspect=on|off|SECONDS");
            }
        }
        return small;
    }
}
