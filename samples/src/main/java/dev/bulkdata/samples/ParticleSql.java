package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.arrow.ArrowExport;
import dev.bulkdata.storage.arrow.DuckDbViews;
import dev.bulkdata.storage.inspector.Inspector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * SQL over a live simulation (storage-arrow): a field of sparks and the debris they leave, in a
 * {@link BulkTable}. Every frame the oldest particles fade (are removed) and as many new sparks
 * fly up from the ground into the holes they leave; a spark falls back under gravity and settles
 * where it lands. Every few frames the program asks DuckDB about the table's live state through
 * {@link DuckDbViews} (the table registered as a view, its SOA columns read in place): the
 * particles, the sparks in the air and the highest one in each region of a 4 x 4 grid, and a
 * histogram of the particles' ages. Each answer is compared with the same computation in Java
 * over the table, and any difference stops the run with an exception naming both answers.
 *
 * <p>At the end it records to Parquet what changed over the last frames: the chunks in which a
 * particle moved, changed region, appeared or faded since a version marked then (an incremental
 * export through a {@link ChangeFilter}, {@code COPY ... TO 'changed.parquet'}), reads the file
 * back with DuckDB and compares it with the same chunks visited in Java.
 *
 * <p>Single-threaded. Needs {@code --enable-native-access=ALL-UNNAMED} to run without a warning
 * (the export's upcalls, DuckDB's native library).
 */
public final class ParticleSql {
    /** Sparks fly up from anywhere in the square [-HALF, HALF) x [-HALF, HALF). */
    static final float HALF = 50f;
    /** Regions are the cells of a GRID x GRID grid over the square. */
    static final int GRID = 4;
    /** Age histogram buckets: the lifetime split in this many. */
    static final int BUCKETS = 10;
    private static final float DT = 1f / 60;
    private static final float GRAVITY = -9.81f;

    /**
     * The run's sizes.
     *
     * @param particles particles alive at any time (a multiple of {@code sparksPerFrame})
     * @param sparksPerFrame debris faded and sparks spawned every frame; a particle lives
     *     {@code particles / sparksPerFrame} frames
     * @param frames frames to run
     * @param queryEvery frames between two rounds of SQL questions, and the frames the Parquet
     *     recording covers
     */
    public record Params(int particles, int sparksPerFrame, int frames, int queryEvery) {
        /** The main command's size: 1,000,000 particles, 1,000 new sparks a frame, 120 frames. */
        public static final Params FULL = new Params(1_000_000, 1_000, 120, 10);
        /** The smoke-test size. */
        public static final Params SMALL = new Params(20_000, 100, 30, 10);

        /** {@return how many frames a particle lives} */
        public int lifeFrames() {
            return particles / sparksPerFrame;
        }
    }

    /**
     * What the run did.
     *
     * @param frames frames run
     * @param queries SQL statements answered (each compared with Java)
     * @param rowsCompared result rows compared with Java's, all equal (a difference throws)
     * @param live particles alive at the end
     * @param recordedChunks chunks in the Parquet recording
     * @param chunks chunks of the table at the end
     * @param recordedRows rows in the Parquet file (the live records of the recorded chunks)
     * @param checksum the recorded particles' positions: the sum over them of their {@code px},
     *     {@code py} and {@code pz} bits
     */
    public record Outcome(int frames, int queries, long rowsCompared, int live, int recordedChunks, int chunks,
                          long recordedRows, long checksum) {
    }

    private ParticleSql() {
    }

    /**
     * Runs the simulation.
     *
     * @param p sizes
     * @param seed the random seed
     * @param dir where to write the Parquet file (a temporary or build directory)
     * @param out where to print
     * @return what happened, for tests
     * @throws IllegalStateException if an SQL answer differs from Java's
     */
    public static Outcome run(Params p, long seed, Path dir, SampleOutput out) {
        if (p.particles() % p.sparksPerFrame() != 0 || p.frames() < p.queryEvery()) {
            throw new IllegalArgumentException(p + ": particles must be a multiple of sparksPerFrame,"
                    + " and frames at least queryEvery");
        }
        try {
            return new Run(p, seed).simulate(dir, out);
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB failed: " + e.getMessage(), e);
        }
    }

    /**
     * What an inspected run did, for tests.
     *
     * @param frames frames made
     * @param url the inspector's page, with its token
     * @param answered calls of the page answered by the frames' polls
     */
    public record Inspected(long frames, URI url, long answered) {
    }

    /**
     * The same simulation with an {@link Inspector} attached, for as long as {@code duration}
     * (or until the thread is interrupted): it prints the page's address with its token, then
     * makes frames at about 60 a second, each ending with one {@code inspector.poll()}. Beside
     * the particles it keeps a {@link PackedTable} of emitters, one per region, whose handle
     * field {@code newest} names the region's newest spark: the page shows it as a link. The
     * SQL checks and the Parquet recording of {@link #run} are left out.
     *
     * @param p the sizes ({@code frames} and {@code queryEvery} are not used)
     * @param seed the random seed
     * @param duration how long to run; {@link Duration#ZERO} runs until interrupted
     * @param out where to print
     * @param started called with the page's address once the inspector listens
     * @return what happened
     * @throws UncheckedIOException if the inspector cannot start its server
     */
    public static Inspected inspect(Params p, long seed, Duration duration, SampleOutput out,
                                    java.util.function.Consumer<URI> started) {
        try {
            return new Run(p, seed).inspect(duration, out, started);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Run {
        final Params p;
        final long seed;
        final SplittableRandom random;
        final Schema schema = Schema.builder("particles")
                .add(FieldType.FLOAT, "px", "py", "pz", "vx", "vy", "vz")
                .add(FieldType.INT, "born", "region")
                .build();                           // SOA, 32-byte records, 512 per chunk
        final FloatField px = schema.floatField("px");
        final FloatField py = schema.floatField("py");
        final FloatField pz = schema.floatField("pz");
        final FloatField vx = schema.floatField("vx");
        final FloatField vy = schema.floatField("vy");
        final FloatField vz = schema.floatField("vz");
        final IntField born = schema.intField("born");
        final IntField region = schema.intField("region");
        final long[] ring;                           // every particle, in birth order (a circular buffer)
        long[] flying = new long[1024];
        int flyingCount;
        int queries;
        long rowsCompared;

        Run(Params p, long seed) {
            this.p = p;
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.ring = new long[p.particles()];
        }

        /** Fills the ring with debris from before the first frame, oldest first: ages life-1 down to 0. */
        void addDebris(BulkTable particles, int life) {
            particles.addAll(ring);
            for (int i = 0; i < ring.length; i++) {
                long h = ring[i];
                float x = (float) random.nextDouble(-HALF, HALF);
                float z = (float) random.nextDouble(-HALF, HALF);
                particles.set(h, px, x);
                particles.set(h, pz, z);
                particles.set(h, born, i / p.sparksPerFrame() - (life - 1));
                particles.set(h, region, region(x, z));
            }
        }

        Outcome simulate(Path dir, SampleOutput out) throws SQLException {
            int life = p.lifeFrames();
            int bucket = Math.max(1, life / BUCKETS);
            try (BulkTable particles = BulkTable.of(schema);
                 Connection db = DriverManager.getConnection("jdbc:duckdb:");
                 DuckDbViews views = new DuckDbViews(db);
                 Statement sql = db.createStatement()) {
                addDebris(particles, life);
                out.line("field      %,d particles (seed %d), each living %d frames; %,d sparks a frame for %d frames;"
                        + " SQL every %d frames", p.particles(), seed, life, p.sparksPerFrame(), p.frames(), p.queryEvery());
                ChangeFilter changed = ChangeFilter.of(px, py, pz, region).orStructure();   // made once
                ArrowExport export = ArrowExport.of(particles).withHandles("handle");
                int recordSince = 0;
                double sqlMillis = 0;
                String[] last = {""};
                Progress progress = out.progress("frame", p.frames(), () -> last[0]);
                int rounds = 0;
                for (int frame = 1; frame <= p.frames(); frame++) {
                    if (frame - 1 == p.frames() - p.queryEvery()) {
                        recordSince = particles.markVersion();    // the recording covers the frames from here on
                    }
                    move(particles);
                    int oldest = (frame - 1) * p.sparksPerFrame() % ring.length;
                    particles.removeAll(ring, oldest, oldest + p.sparksPerFrame());   // the oldest debris fades
                    particles.addAll(ring, oldest, oldest + p.sparksPerFrame());      // sparks, into its holes
                    for (int i = oldest; i < oldest + p.sparksPerFrame(); i++) {
                        spawn(particles, ring[i], frame);
                    }
                    if (frame % p.queryEvery() == 0) {
                        long t0 = System.nanoTime();
                        last[0] = ask(particles, views, sql, frame, bucket);
                        sqlMillis += (System.nanoTime() - t0) / 1e6;
                        rounds++;
                    }
                    progress.step(frame);
                }
                progress.done();
                out.line("sql        %d statements answered by DuckDB over the live table in %d rounds, %.0f ms a round"
                        + " (Java's check included); %,d result rows, each equal to Java's", queries, rounds,
                        sqlMillis / rounds, rowsCompared);
                out.line("last       %s", last[0]);

                // The recording: the chunks changed over the last frames, to Parquet, then read back.
                Path file = dir.resolve("changed.parquet");
                views.registerChanged("changed", export, changed, recordSince);
                sql.execute("COPY (SELECT * FROM changed) TO '" + file.toString().replace("'", "''")
                        + "' (FORMAT parquet)");
                long[] java = new long[6];    // chunks, rows, xor of handles, in the air, min born, checksum
                java[4] = Integer.MAX_VALUE;
                particles.forEachChunk(changed, recordSince, chunk -> {
                    java[0]++;
                    for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                        java[1]++;
                        java[2] ^= chunk.handle(s);
                        java[3] += chunk.get(s, py) > 0 ? 1 : 0;
                        java[4] = Math.min(java[4], chunk.get(s, born));
                        java[5] += Float.floatToRawIntBits(chunk.get(s, px)) * 31L
                                + Float.floatToRawIntBits(chunk.get(s, py)) * 17L + Float.floatToRawIntBits(chunk.get(s, pz));
                    }
                });
                long[] file4 = new long[4];
                try (ResultSet r = sql.executeQuery("SELECT count(*), bit_xor(handle), count(*) FILTER (WHERE py > 0),"
                        + " min(born) FROM read_parquet('" + file.toString().replace("'", "''") + "')")) {
                    r.next();
                    for (int c = 0; c < 4; c++) {
                        file4[c] = r.getLong(c + 1);
                    }
                }
                queries++;
                compare("the Parquet recording (rows, xor of handles, in the air, oldest born)",
                        List.of(List.of(file4[0], file4[1], file4[2], file4[3])),
                        List.of(List.of(java[1], java[2], java[3], java[4])));
                int chunks = chunkCount(particles);
                out.line("parquet    the last %d frames' changes: %,d of %,d chunks, %,d rows, %,d bytes (%s);"
                        + " read back equal to Java's", p.queryEvery(), java[0], chunks, java[1], Files.size(file),
                        file.getFileName());
                return new Outcome(p.frames(), queries, rowsCompared, particles.size(), (int) java[0], chunks, java[1],
                        java[5]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        Inspected inspect(Duration duration, SampleOutput out, java.util.function.Consumer<URI> started)
                throws IOException {
            Schema emitterSchema = Schema.builder("emitters").add(FieldType.INT, "region", "sparks")
                    .addHandle("newest", "particles").build();
            IntField emitterRegion = emitterSchema.intField("region");
            IntField sparks = emitterSchema.intField("sparks");
            HandleField newest = emitterSchema.handleField("newest");
            int life = p.lifeFrames();
            try (BulkTable particles = BulkTable.of(schema);
                 PackedTable emitters = PackedTable.of(emitterSchema);
                 Inspector inspector = Inspector.builder().table(particles).table(emitters)
                         .sqlLimits(1_000, Duration.ofSeconds(3))     // a query over 1,000,000 records
                         .start()) {
                long[] byRegion = new long[GRID * GRID];
                for (int r = 0; r < byRegion.length; r++) {
                    byRegion[r] = emitters.add();
                    emitters.set(byRegion[r], emitterRegion, r);
                }
                addDebris(particles, life);
                out.line("inspect    %,d particles, %,d sparks a frame, about 60 frames a second%s", p.particles(),
                        p.sparksPerFrame(), duration.isZero() ? " until interrupted (Ctrl-C)"
                                : " for " + duration.toSeconds() + " s");
                out.line("inspect    open %s", inspector.url());
                started.accept(inspector.url());
                long frameNanos = 1_000_000_000L / 60;
                long end = duration.isZero() ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
                long answered = 0;
                long frame = 0;
                while (System.nanoTime() - end < 0 && !Thread.currentThread().isInterrupted()) {
                    long t0 = System.nanoTime();
                    frame++;
                    move(particles);
                    int oldest = (int) ((frame - 1) * p.sparksPerFrame() % ring.length);
                    particles.removeAll(ring, oldest, oldest + p.sparksPerFrame());
                    particles.addAll(ring, oldest, oldest + p.sparksPerFrame());
                    for (int i = oldest; i < oldest + p.sparksPerFrame(); i++) {
                        spawn(particles, ring[i], (int) frame);
                        long e = byRegion[particles.get(ring[i], region)];
                        emitters.set(e, newest, ring[i]);
                        emitters.set(e, sparks, emitters.get(e, sparks) + 1);
                    }
                    answered += inspector.poll();
                    long sleep = frameNanos - (System.nanoTime() - t0);
                    if (sleep > 0) {
                        try {
                            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
                out.line("inspect    %,d frames, %,d calls of the page answered", frame, answered);
                return new Inspected(frame, inspector.url(), answered);
            }
        }

        /** Moves the sparks in the air one frame; one that reaches the ground settles there for good. */
        void move(BulkTable particles) {
            int kept = 0;
            for (int i = 0; i < flyingCount; i++) {
                long h = flying[i];
                if (!particles.contains(h)) {
                    continue;                               // faded in the air (only if it lives shorter than it flies)
                }
                float vyNow = particles.get(h, vy) + GRAVITY * DT;
                float x = particles.get(h, px) + particles.get(h, vx) * DT;
                float y = particles.get(h, py) + vyNow * DT;
                float z = particles.get(h, pz) + particles.get(h, vz) * DT;
                x = Math.clamp(x, -HALF, Math.nextDown(HALF));
                z = Math.clamp(z, -HALF, Math.nextDown(HALF));
                particles.set(h, px, x);
                particles.set(h, pz, z);
                int r = region(x, z);
                if (r != particles.get(h, region)) {
                    particles.set(h, region, r);            // written only when it changes
                }
                if (y <= 0) {                               // landed: at rest from now on
                    particles.set(h, py, 0f);
                    particles.set(h, vx, 0f);
                    particles.set(h, vy, 0f);
                    particles.set(h, vz, 0f);
                } else {
                    particles.set(h, py, y);
                    particles.set(h, vy, vyNow);
                    flying[kept++] = h;
                }
            }
            flyingCount = kept;
        }

        void spawn(BulkTable particles, long h, int frame) {
            float x = (float) random.nextDouble(-HALF, HALF);
            float z = (float) random.nextDouble(-HALF, HALF);
            particles.set(h, px, x);
            particles.set(h, py, Float.MIN_NORMAL);         // just above the ground
            particles.set(h, pz, z);
            particles.set(h, vx, (float) random.nextDouble(-2, 2));
            particles.set(h, vy, (float) random.nextDouble(3, 7));
            particles.set(h, vz, (float) random.nextDouble(-2, 2));
            particles.set(h, born, frame);
            particles.set(h, region, region(x, z));
            if (flyingCount == flying.length) {
                flying = Arrays.copyOf(flying, flying.length * 2);
            }
            flying[flyingCount++] = h;
        }

        /** The SQL questions of a frame, each compared with Java; returns a line about the answers. */
        String ask(BulkTable particles, DuckDbViews views, Statement sql, int frame, int bucket) throws SQLException {
            // Java's answers, in one pass over the live records.
            int regions = GRID * GRID;
            long[] count = new long[regions];
            long[] inAir = new long[regions];
            float[] highest = new float[regions];
            Arrays.fill(highest, Float.NEGATIVE_INFINITY);
            long[] ages = new long[p.lifeFrames() / bucket + 1];
            particles.forEach((chunk, s) -> {
                int r = chunk.get(s, region);
                float y = chunk.get(s, py);
                count[r]++;
                inAir[r] += y > 0 ? 1 : 0;
                highest[r] = Math.max(highest[r], y);
                ages[(frame - chunk.get(s, born)) / bucket]++;
            });
            List<List<Object>> javaRegions = new ArrayList<>();
            for (int r = 0; r < regions; r++) {
                if (count[r] > 0) {
                    javaRegions.add(List.of((long) r, count[r], inAir[r], highest[r]));
                }
            }
            List<List<Object>> javaAges = new ArrayList<>();
            for (int b = 0; b < ages.length; b++) {
                if (ages[b] > 0) {
                    javaAges.add(List.of((long) b, ages[b]));
                }
            }

            // DuckDB's, over a view of the live table (registered again before each query: one scan each).
            views.register("particles", particles);
            List<List<Object>> sqlRegions = rows(sql, "SELECT region, count(*), count(*) FILTER (WHERE py > 0),"
                    + " max(py) FROM particles GROUP BY region ORDER BY region", 4);
            views.register("particles", particles);
            List<List<Object>> sqlAges = rows(sql, "SELECT (" + frame + " - born) // " + bucket + " AS bucket,"
                    + " count(*) FROM particles GROUP BY bucket ORDER BY bucket", 2);
            compare("frame " + frame + ": particles, in the air and highest by region", sqlRegions, javaRegions);
            compare("frame " + frame + ": age histogram (buckets of " + bucket + " frames)", sqlAges, javaAges);

            long air = 0;
            float top = 0;
            for (int r = 0; r < regions; r++) {
                air += inAir[r];
                top = Math.max(top, highest[r]);
            }
            StringBuilder line = new StringBuilder(String.format("frame %d: %,d in the air (highest %.2f), ages by %d frames:",
                    frame, air, top, bucket));
            for (List<Object> row : javaAges) {
                line.append(String.format(" %,d", (Long) row.get(1)));
            }
            return line.toString();
        }

        List<List<Object>> rows(Statement sql, String query, int columns) throws SQLException {
            List<List<Object>> rows = new ArrayList<>();
            try (ResultSet r = sql.executeQuery(query)) {
                while (r.next()) {
                    List<Object> row = new ArrayList<>(columns);
                    for (int c = 1; c <= columns; c++) {
                        row.add(c == 4 ? (Object) r.getFloat(c) : (Object) r.getLong(c));
                    }
                    rows.add(row);
                }
            }
            queries++;
            return rows;
        }

        void compare(String what, List<List<Object>> sql, List<List<Object>> java) {
            check(what, sql, java);
            rowsCompared += sql.size();
        }
    }

    /**
     * Fails if DuckDB's answer is not Java's, row for row and value for value (floats
     * compared bit for bit).
     *
     * @param what the question, for the message
     * @param sql DuckDB's rows
     * @param java Java's rows
     * @throws IllegalStateException naming the question and both answers if they differ
     */
    static void check(String what, List<List<Object>> sql, List<List<Object>> java) {
        if (!sql.equals(java)) {
            throw new IllegalStateException("SQL and Java differ on " + what + ":\n  DuckDB " + sql + "\n  Java   "
                    + java);
        }
    }

    /** {@return the region of a point of the square: its cell in the grid, row-major} */
    static int region(float x, float z) {
        int cx = Math.clamp((int) Math.floor((x + HALF) * GRID / (2 * HALF)), 0, GRID - 1);
        int cz = Math.clamp((int) Math.floor((z + HALF) * GRID / (2 * HALF)), 0, GRID - 1);
        return cz * GRID + cx;
    }

    private static int chunkCount(BulkTable table) {
        int[] count = new int[1];
        table.forEachChunk(chunk -> count[0]++);
        return count[0];
    }
}
