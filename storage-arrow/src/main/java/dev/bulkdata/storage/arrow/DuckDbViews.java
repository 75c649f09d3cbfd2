package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Table;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tables as DuckDB views over their live blocks, in one call:
 * {@code views.register("particles", table)}, then SQL over {@code particles}. Needs
 * {@code org.duckdb:duckdb_jdbc}, {@code org.apache.arrow:arrow-c-data} (for its {@code ArrowArrayStream}
 * wrapper class, which DuckDB's JDBC driver requires) and an Arrow allocation manager such as
 * {@code arrow-memory-unsafe} on the class or module path (the guide's dependency list); this module
 * reaches them by reflection, so none is needed otherwise.
 * Guide: docs/sql-and-arrow.md, "From a clone to a SQL answer" (an example) and "DuckDB recipe".
 *
 * <p><b>One scan per registration.</b> The first query that scans a view consumes its stream
 * (DuckDB releases it when the scan ends: the table is writable again); a later query over the
 * view fails in DuckDB with "This stream has been released". Register again before each query:
 * O(columns), no value copied. A query that scans one table twice needs two views. The view
 * leaves out the stream's null rows of holes: it has exactly the table's live records.
 *
 * <p><b>Lifetime.</b> A view's stream is open (the table refuses structural changes and
 * {@code close()}) from {@code register} until DuckDB has scanned it, or the view is registered
 * again, or this object is closed: both release a stream no query took. Each view name keeps 40
 * bytes of native memory (its stream struct, read by DuckDB while the view exists) until
 * {@link #close()}.
 *
 * <p>Threads: one thread at a time per {@code DuckDbViews}, as for its JDBC connection.
 */
public final class DuckDbViews implements AutoCloseable {
    private final Connection connection;
    private final Method registerArrowStream;
    private final Method wrap;
    private final Arena arena = Arena.ofShared();
    private final Map<String, MemorySegment> structs = new LinkedHashMap<>();
    private final Map<String, ArrowStream> streams = new LinkedHashMap<>();
    private boolean closed;

    /**
     * Views on a DuckDB connection.
     *
     * @param connection an open DuckDB JDBC connection (or a wrapper of one that
     *     {@link Connection#unwrap} opens)
     * @throws IllegalArgumentException if it is null or not a DuckDB connection
     * @throws IllegalStateException if {@code org.apache.arrow.c.ArrowArrayStream} (from
     *     {@code arrow-c-data}) cannot be loaded
     */
    public DuckDbViews(Connection connection) {
        if (connection == null) {
            throw new IllegalArgumentException("DuckDbViews: connection is null");
        }
        Object duck = connection;
        Method register = findRegister(duck);
        if (register == null) {
            try {
                Class<?> duckClass = Class.forName("org.duckdb.DuckDBConnection");
                duck = connection.unwrap(duckClass);
                register = findRegister(duck);
            } catch (ClassNotFoundException | SQLException e) {
                register = null;
            }
        }
        if (register == null) {
            throw new IllegalArgumentException("DuckDbViews: " + connection.getClass().getName()
                    + " is not a DuckDB connection (org.duckdb.DuckDBConnection, from org.duckdb:duckdb_jdbc)");
        }
        try {
            Class<?> streamClass = Class.forName("org.apache.arrow.c.ArrowArrayStream");
            this.wrap = streamClass.getMethod("wrap", long.class);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("DuckDbViews: DuckDB's JDBC driver takes Arrow streams as"
                    + " org.apache.arrow.c.ArrowArrayStream; add org.apache.arrow:arrow-c-data to the class or module"
                    + " path (" + e + ")", e);
        }
        this.connection = (Connection) duck;
        this.registerArrowStream = register;
    }

    private static Method findRegister(Object connection) {
        try {
            return connection.getClass().getMethod("registerArrowStream", String.class, Object.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /**
     * Registers every field of the table, with its handle column named {@code handle}, as the
     * view {@code name} (replacing a view of that name). See the class documentation for how
     * long the view serves.
     *
     * @param name the view's name (quoted in SQL as given)
     * @param table the table
     * @return the stream the view reads
     * @throws IllegalArgumentException if {@code name} is null or empty, or a field is named
     *     {@code handle}
     * @throws IllegalStateException if the table or this object is closed
     * @throws SQLException if DuckDB refuses the view
     */
    public ArrowStream register(String name, Table table) throws SQLException {
        return register(name, ArrowExport.of(table).withHandles("handle"));
    }

    /**
     * Registers an export as the view {@code name}, replacing a view of that name (and releasing
     * its stream if no query took it).
     *
     * @param name the view's name
     * @param export what to export
     * @return the stream the view reads
     * @throws IllegalArgumentException if {@code name} is null or empty, or {@code export} is null
     * @throws IllegalStateException if the table or this object is closed
     * @throws SQLException if DuckDB refuses the view
     */
    public ArrowStream register(String name, ArrowExport export) throws SQLException {
        return register(name, export, null, 0);
    }

    /**
     * Registers the chunks of an export changed since {@code since} (see
     * {@link ArrowExport#open(ChangeFilter, int)}) as the view {@code name}.
     *
     * @param name the view's name
     * @param export what to export
     * @param changes what counts as a change
     * @param since a version from the table's {@link Table#markVersion()}
     * @return the stream the view reads
     * @throws IllegalArgumentException if {@code name} is null or empty, {@code export} or
     *     {@code changes} is null, or {@code changes} names fields of another schema
     * @throws IllegalStateException if the table or this object is closed
     * @throws SQLException if DuckDB refuses the view
     */
    public ArrowStream registerChanged(String name, ArrowExport export, ChangeFilter changes, int since)
            throws SQLException {
        if (changes == null) {
            throw new IllegalArgumentException("DuckDbViews.registerChanged: change filter is null; use register");
        }
        return register(name, export, changes, since);
    }

    private ArrowStream register(String name, ArrowExport export, ChangeFilter changes, int since)
            throws SQLException {
        if (closed) {
            throw new IllegalStateException("DuckDbViews is closed");
        }
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("DuckDbViews.register: the view needs a name");
        }
        if (export == null) {
            throw new IllegalArgumentException("DuckDbViews.register: export is null (view '" + name + "')");
        }
        String source = "bulkdata_stream_" + name;
        ArrowStream previous = streams.remove(name);
        if (previous != null) {
            previous.close();                       // nothing if a query took it
        }
        MemorySegment struct = structs.computeIfAbsent(name, n -> arena.allocate(CData.STREAM));
        ArrowStream stream = export.openInto(struct, changes, since);
        try {
            registerArrowStream.invoke(connection, source, wrap.invoke(null, stream.address()));
            String first = export.handleColumn() != null ? export.handleColumn() : export.fields().get(0).name();
            try (Statement s = connection.createStatement()) {
                s.execute("CREATE OR REPLACE TEMP VIEW " + quote(name) + " AS SELECT * FROM " + quote(source)
                        + " WHERE " + quote(first) + " IS NOT NULL");
            }
        } catch (InvocationTargetException e) {
            stream.close();
            Throwable cause = e.getCause();
            throw new SQLException("DuckDbViews.register: DuckDB refused view '" + name + "': " + cause, cause);
        } catch (IllegalAccessException e) {
            stream.close();
            throw new IllegalStateException(e);
        } catch (SQLException | RuntimeException e) {
            stream.close();
            throw e;
        }
        streams.put(name, stream);
        return stream;
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * Releases every stream no query took, drops the views (unless the connection is closed)
     * and frees the stream structs. Idempotent.
     *
     * @throws SQLException if dropping a view fails; the streams are released all the same
     */
    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        for (ArrowStream s : streams.values()) {
            s.close();
        }
        try {
            if (!connection.isClosed()) {
                try (Statement s = connection.createStatement()) {
                    for (String name : structs.keySet()) {
                        s.execute("DROP VIEW IF EXISTS " + quote(name));
                        s.execute("DROP VIEW IF EXISTS " + quote("bulkdata_stream_" + name));
                    }
                }
            }
        } finally {
            arena.close();
        }
    }
}
