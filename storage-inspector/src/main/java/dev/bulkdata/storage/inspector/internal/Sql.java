package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.arrow.ArrowExport;
import dev.bulkdata.storage.arrow.DuckDbViews;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The SQL console: an in-memory DuckDB database of the inspector's own, in which every query
 * sees the attached {@code BulkTable}s and {@code PackedTable}s as views of their live blocks
 * (storage-arrow's {@link DuckDbViews}, registered again before each query, released after
 * it). Runs on the owner thread, inside a poll.
 *
 * <p>Locked down when it opens: external access off (no file, no URL, no extension can be
 * read or written: {@code read_csv('/etc/passwd')} fails), extensions neither installed nor
 * loaded automatically, one thread, a memory limit, and the configuration locked so that no
 * query can change any of it. Each query is checked first by {@link SqlGuard}, limited in rows,
 * and cancelled at its time limit by a timer thread (which touches no table: it asks DuckDB to
 * stop).
 */
final class Sql implements AutoCloseable {
    private static final String[] LOCKDOWN = {
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET allow_community_extensions = false",
        "SET threads = 1",
        "SET memory_limit = '256MB'",
        "SET lock_configuration = true",
    };

    private final Connection connection;
    /** Why there is no console, or null. */
    private final String unavailable;
    private final ScheduledExecutorService timer;

    Sql() {
        Connection c = null;
        String why = null;
        try {
            c = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = c.createStatement()) {
                for (String setting : LOCKDOWN) {
                    s.execute(setting);
                }
            }
            new DuckDbViews(c).close();        // fails now, not at the first query, if arrow-c-data is missing
        } catch (SQLException | RuntimeException e) {
            why = "the SQL console needs DuckDB's JDBC driver (org.duckdb:duckdb_jdbc) and Arrow's C data wrapper"
                    + " (org.apache.arrow:arrow-c-data, arrow-memory-unsafe) on the class path: " + e.getMessage();
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the reason already says why
                }
                c = null;
            }
        }
        this.connection = c;
        this.unavailable = why;
        this.timer = c == null ? null : Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bulkdata-inspector-sql-timer");
            t.setDaemon(true);
            return t;
        });
    }

    String unavailable() {
        return unavailable;
    }

    /**
     * Runs a query and writes its answer: columns, rows (at most {@code maxRows}, with
     * {@code truncated} if there were more), and the time it took.
     */
    void query(Json j, Registry registry, String text, int maxRows, long timeLimitNanos) {
        if (connection == null) {
            throw new BadRequest(unavailable);
        }
        SqlGuard.check(text);
        AtomicBoolean timedOut = new AtomicBoolean();
        long t0 = System.nanoTime();
        try (DuckDbViews views = new DuckDbViews(connection); Statement st = connection.createStatement()) {
            for (Inspected t : registry.tables) {
                if (t instanceof TableView v && !v.closed()) {
                    views.register(t.name, ArrowExport.of(v.table).withHandles(handleColumn(v)));
                }
            }
            ScheduledFuture<?> cancel = timer.schedule(() -> {
                timedOut.set(true);
                try {
                    st.cancel();
                } catch (SQLException ignored) {
                    // the query ends on its own
                }
            }, Math.max(0, timeLimitNanos - (System.nanoTime() - t0)), TimeUnit.NANOSECONDS);
            try (ResultSet rs = st.executeQuery(text)) {
                ResultSetMetaData meta = rs.getMetaData();
                int columns = meta.getColumnCount();
                j.key("columns").array();
                for (int c = 1; c <= columns; c++) {
                    j.object().key("name").value(meta.getColumnLabel(c)).key("type").value(meta.getColumnTypeName(c))
                            .endObject();
                }
                j.endArray().key("rows").array();
                int rows = 0;
                boolean more = false;
                while (rs.next()) {
                    if (rows == maxRows) {
                        more = true;
                        break;
                    }
                    j.array();
                    for (int c = 1; c <= columns; c++) {
                        writeValue(j, rs.getObject(c));
                    }
                    j.endArray();
                    rows++;
                }
                j.endArray().key("rowCount").value(rows).key("truncated").value(more);
            } finally {
                cancel.cancel(false);
            }
        } catch (SQLException e) {
            if (timedOut.get()) {
                throw new BadRequest("the query ran past its time limit of "
                        + TimeUnit.NANOSECONDS.toMillis(timeLimitNanos) + " ms and was cancelled");
            }
            throw new BadRequest("DuckDB: " + e.getMessage());
        }
        j.key("millis").value(Math.round((System.nanoTime() - t0) / 1e4) / 100.0);
    }

    static String handleColumn(TableView v) {
        String name = "handle";
        while (v.schema.hasField(name)) {
            name = "_" + name;
        }
        return name;
    }

    private static void writeValue(Json j, Object v) {
        switch (v) {
            case null -> j.nullValue();
            case Boolean b -> j.value(b);
            case Float f -> j.value(f);
            case Double d -> j.value(d);
            case Byte b -> j.value(b);
            case Short s -> j.value(s);
            case Integer i -> j.value(i);
            case Long l -> j.value(l);
            case java.math.BigInteger b when b.bitLength() < 63 -> j.value(b.longValue());
            case java.math.BigDecimal d -> j.value(d.doubleValue());
            default -> j.value(v.toString());
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            timer.shutdownNow();
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing: nothing left to tell
            }
        }
    }
}
