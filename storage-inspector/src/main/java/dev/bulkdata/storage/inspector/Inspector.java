package dev.bulkdata.storage.inspector;

import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.inspector.internal.Core;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A web page and a JSON API that show a running program's tables: schemas, occupancy, memory,
 * the chunks changed since the last look, records decoded field by field, charts over the last
 * frames and a SQL console over the live tables (DuckDB, through storage-arrow). Served by the
 * JDK's HTTP server ({@code jdk.httpserver}); made by {@link #builder()}. Guide: docs/inspector.md.
 *
 * <p><b>Threads</b> (guide: "Threads"). The server's threads never read a table: they queue each
 * API call, and the thread that owns the tables answers the queue when it calls {@link #poll()}
 * (once a frame, between its writes) or, with no frame loop, {@link #serve(Duration)}. The first
 * thread that polls becomes the owner; {@code poll} and {@code serve} from another thread throw
 * {@link IllegalStateException}. A call waiting over 10 seconds, or past 64 waiting, is answered
 * 503. {@link #url()}, {@link #token()}, {@link #address()}, {@link #frames()} and
 * {@link #sqlUnavailable()} may be called from any thread.
 *
 * <p><b>Costs</b> (guide: "Costs"). A poll samples every table (O(chunks), one
 * {@link Table#markVersion()}), then answers queued calls while its budget lasts, each bounded
 * (a chunk map O(chunks), 256 records a page) but a SQL query: at most one per poll, for up to
 * the query time limit ({@link Builder#sqlLimits}). With no page open, a poll costs the sample.
 *
 * <p><b>Safe by default</b> (guide: "Safe by default"). The server binds the loopback address
 * ({@code 127.0.0.1}) unless {@link Builder#bind} says otherwise, on a free port unless
 * {@link Builder#port} names one. Every request needs the random access token ({@link #token()},
 * 192 bits), as the {@code token} parameter of {@link #url()} or as {@code Authorization: Bearer
 * TOKEN}, else 401; {@link #start} logs the address with its token ({@link System.Logger}, INFO,
 * logger {@code dev.bulkdata.storage.inspector}). A {@code Host} header not naming the server's
 * address, or an {@code Origin} header not this page's origin, is answered 403. Read-only:
 * {@code GET}, and {@code POST} of one SQL query in an in-memory DuckDB database of its own with
 * external access disabled and its configuration locked, limited in rows and time. The console
 * needs what storage-arrow's {@code DuckDbViews} needs; without it the page shows everything else.
 */
public final class Inspector implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.bulkdata.storage.inspector");
    private final Core core;

    private Inspector(Core core) {
        this.core = core;
    }

    /**
     * {@return a builder with the defaults: loopback, a free port, a budget of 2 milliseconds,
     * 1,000 rows and 1 second per query}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Attaches tables and starts an inspector with the defaults of {@link #builder()}.
     *
     * @param tables the tables to show, each a {@link Table} or a {@link ComponentTable}
     * @return the started inspector
     * @throws IOException if the server cannot bind
     * @throws IllegalArgumentException if there is no table, a table is null or of another
     *     kind, or two tables share a name
     */
    public static Inspector start(Object... tables) throws IOException {
        Builder b = builder();
        for (Object t : Objects.requireNonNull(tables, "tables")) {
            switch (t) {
                case Table table -> b.table(table);
                case ComponentTable table -> b.table(table);
                case null -> throw new IllegalArgumentException("Inspector.start: a table is null");
                default -> throw new IllegalArgumentException("Inspector.start: " + t.getClass().getName()
                        + " is neither a Table nor a ComponentTable");
            }
        }
        return b.start();
    }

    /**
     * Answers the queued API calls within the default budget ({@link Builder#budget}); call it
     * once a frame from the thread that owns the tables, where no iteration of them is open.
     *
     * @return the number of calls answered
     * @throws IllegalStateException if another thread polled first, or the inspector is closed
     */
    public int poll() {
        return core.poll(core.budgetNanos());
    }

    /**
     * Answers the queued API calls within {@code budget}, as {@link #poll()}.
     *
     * @param budget how long this call may answer calls; a call started before it ends finishes
     * @return the number of calls answered
     * @throws IllegalArgumentException if the budget is null or negative
     * @throws IllegalStateException if another thread polled first, or the inspector is closed
     */
    public int poll(Duration budget) {
        return core.poll(nanos(budget, "budget"));
    }

    /**
     * For a program with no frame loop: answers API calls on this thread as they come, for
     * {@code duration} or until {@link #close()}, with a sample for the charts every tenth of a
     * second. The tables must not change meanwhile (this thread owns them, and it is busy here):
     * call it where the program can pause, for example after a batch step or at its end.
     *
     * @param duration how long to serve
     * @return the number of calls answered
     * @throws IllegalArgumentException if the duration is null or negative
     * @throws IllegalStateException if another thread polled first, or the inspector is closed
     * @throws InterruptedException if the thread is interrupted while it waits for a call
     */
    public int serve(Duration duration) throws InterruptedException {
        return core.serve(nanos(duration, "duration"));
    }

    /** {@return the page's address with its token: {@code http://127.0.0.1:PORT/?token=...}} */
    public URI url() {
        return core.url();
    }

    /** {@return the random access token every request must carry} */
    public String token() {
        return core.token();
    }

    /** {@return the address and port the server listens on} */
    public InetSocketAddress address() {
        return core.address();
    }

    /** {@return frames sampled so far: one per {@link #poll()}, one per tenth of a second of {@link #serve}} */
    public long frames() {
        return core.frames();
    }

    /** {@return why the SQL console is off (its libraries are missing), or null if it is on} */
    public String sqlUnavailable() {
        return core.sqlUnavailable();
    }

    /**
     * Stops the server (requests waiting for an answer get 503) and closes the SQL console's
     * database. Leaves the tables open. Idempotent; call it from the owner thread, or once it no
     * longer polls.
     */
    @Override
    public void close() {
        core.close();
    }

    private static long nanos(Duration d, String what) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("Inspector: the " + what + " must be zero or more, not " + d);
        }
        return d.toNanos();
    }

    /**
     * Which tables an inspector shows and how it serves them. Not thread-safe; a builder may
     * start several inspectors.
     */
    public static final class Builder {
        private final List<Object> tables = new ArrayList<>();
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port;
        private Duration budget = Duration.ofMillis(2);
        private int maxRows = 1_000;
        private Duration queryTime = Duration.ofSeconds(1);

        private Builder() {
        }

        /**
         * Attaches a {@link dev.bulkdata.storage.BulkTable} or
         * {@link dev.bulkdata.storage.PackedTable}; it shows under its name, and the SQL
         * console sees it as a view of that name.
         *
         * @param table the table
         * @return this builder
         * @throws IllegalArgumentException if it is null or already attached
         */
        public Builder table(Table table) {
            return add(table);
        }

        /**
         * Attaches a component table; it shows under its schema's name (not in the SQL
         * console, which reads {@code BulkTable}s and {@code PackedTable}s).
         *
         * @param table the component table
         * @return this builder
         * @throws IllegalArgumentException if it is null or already attached
         */
        public Builder table(ComponentTable table) {
            return add(table);
        }

        private Builder add(Object table) {
            if (table == null) {
                throw new IllegalArgumentException("Inspector.Builder.table: the table is null");
            }
            for (Object t : tables) {
                if (t == table) {
                    throw new IllegalArgumentException("Inspector.Builder.table: " + table + " is attached already");
                }
            }
            tables.add(table);
            return this;
        }

        /**
         * The address to listen on: the loopback address unless this is called. Any other
         * address lets other machines reach the page (with the token); the {@code Host} header
         * must then name that address.
         *
         * @param address an address of this machine
         * @return this builder
         * @throws IllegalArgumentException if it is null
         */
        public Builder bind(InetAddress address) {
            if (address == null) {
                throw new IllegalArgumentException("Inspector.Builder.bind: the address is null");
            }
            this.bind = address;
            return this;
        }

        /**
         * The port: 0 (the default) takes any free port, which {@link Inspector#url()} then names.
         *
         * @param port 0 to 65535
         * @return this builder
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("Inspector.Builder.port: " + port + " is not in [0, 65535]");
            }
            this.port = port;
            return this;
        }

        /**
         * The budget of {@link Inspector#poll()}: how long one poll may answer calls. 2
         * milliseconds unless this is called.
         *
         * @param budget zero or more; zero answers no call (only the sample is taken)
         * @return this builder
         * @throws IllegalArgumentException if it is null or negative
         */
        public Builder budget(Duration budget) {
            nanos(budget, "budget");
            this.budget = budget;
            return this;
        }

        /**
         * The SQL console's limits: the most rows an answer shows (more are counted as
         * truncated and not read), and the time after which a query is cancelled. 1,000 rows
         * and 1 second unless this is called.
         *
         * @param maxRows 1 to 100,000
         * @param timeLimit more than zero, at most a minute
         * @return this builder
         * @throws IllegalArgumentException if either is out of range
         */
        public Builder sqlLimits(int maxRows, Duration timeLimit) {
            if (maxRows < 1 || maxRows > 100_000) {
                throw new IllegalArgumentException("Inspector.Builder.sqlLimits: maxRows " + maxRows
                        + " is not in [1, 100000]");
            }
            if (timeLimit == null || timeLimit.isNegative() || timeLimit.isZero()
                    || timeLimit.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("Inspector.Builder.sqlLimits: the time limit " + timeLimit
                        + " is not more than zero and at most a minute");
            }
            this.maxRows = maxRows;
            this.queryTime = timeLimit;
            return this;
        }

        /**
         * Starts the server and prints the page's address with its token through
         * {@link System.Logger} (INFO). Opens the SQL console's in-memory database if DuckDB is
         * on the class path. O(tables).
         *
         * @return the started inspector
         * @throws IOException if the server cannot bind the address and port
         * @throws IllegalArgumentException if no table is attached, or two tables share a name
         */
        public Inspector start() throws IOException {
            if (tables.isEmpty()) {
                throw new IllegalArgumentException("Inspector.Builder.start: no table is attached (table(...))");
            }
            Core core = new Core(tables, new InetSocketAddress(bind, port), budget.toNanos(), maxRows,
                    queryTime.toNanos());
            Inspector inspector = new Inspector(core);
            LOG.log(System.Logger.Level.INFO, "bulkdata inspector: " + inspector.url());
            return inspector;
        }
    }
}
