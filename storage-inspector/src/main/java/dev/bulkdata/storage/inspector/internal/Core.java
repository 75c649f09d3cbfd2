package dev.bulkdata.storage.inspector.internal;

import com.sun.net.httpserver.HttpServer;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.inspector.internal.Call.Response;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * The inspector's engine behind {@code dev.bulkdata.storage.inspector.Inspector}: the HTTP
 * server, the queue of API calls and the owner thread's side. Not an API: its public members
 * serve that class alone and may change in any release.
 */
public final class Core implements AutoCloseable {
    /** API calls that may wait for the owner thread at once; more are answered 503 at once. */
    static final int QUEUE = 64;
    private static final long SERVE_SAMPLE_NANOS = 100_000_000L;

    private final Registry registry;
    private final Sql sql;
    private final Api api;
    private final Costs costs = new Costs();
    private final BlockingDeque<Call> queue = new LinkedBlockingDeque<>(QUEUE);
    private final HttpServer server;
    private final ExecutorService threads;
    private final String token;
    private final InetSocketAddress address;
    private final long budgetNanos;
    private volatile Thread owner;
    private volatile boolean closed;

    /**
     * Starts the server.
     *
     * @param tables the attached tables: {@link Table}s and {@link ComponentTable}s
     * @param bind the address to bind (port 0: any free port)
     * @param budgetNanos the default budget of a poll
     * @param maxRows the most rows a SQL answer holds
     * @param queryNanos the time limit of a SQL query
     * @throws IOException if the server cannot bind
     * @throws IllegalArgumentException if two tables share a name
     */
    public Core(List<Object> tables, InetSocketAddress bind, long budgetNanos, int maxRows, long queryNanos)
            throws IOException {
        List<Inspected> views = new ArrayList<>();
        for (Object t : tables) {
            views.add(t instanceof Table table ? new TableView(table) : new ComponentView((ComponentTable) t));
        }
        this.registry = new Registry(views);
        this.budgetNanos = budgetNanos;
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
        this.server = HttpServer.create(bind, 64);
        InetAddress bound = server.getAddress().getAddress();
        this.address = server.getAddress();
        this.threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "bulkdata-inspector-http");
            t.setDaemon(true);
            return t;
        });
        Front front;
        try {
            front = new Front(token, bound, address.getPort(), queue, threads);
        } catch (RuntimeException e) {
            server.stop(0);
            threads.shutdownNow();
            throw e;
        }
        this.sql = new Sql();
        this.api = new Api(registry, sql, new Api.Limits(budgetNanos, maxRows, queryNanos));
        server.createContext("/", front);
        server.setExecutor(threads);
        server.start();
    }

    /** {@return the access token} */
    public String token() {
        return token;
    }

    /** {@return the address the server listens on} */
    public InetSocketAddress address() {
        return address;
    }

    /** {@return the page's address, with the token} */
    public URI url() {
        InetAddress a = address.getAddress();
        String host = a.isAnyLocalAddress() || a.isLoopbackAddress() ? "127.0.0.1"
                : a instanceof java.net.Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
        return URI.create("http://" + host + ":" + address.getPort() + "/?token=" + token);
    }

    /** {@return the default budget of a poll, in nanoseconds} */
    public long budgetNanos() {
        return budgetNanos;
    }

    /** {@return frames sampled so far} */
    public long frames() {
        return registry.frames();
    }

    /** {@return why the SQL console is off, or null if it is on} */
    public String sqlUnavailable() {
        return sql.unavailable();
    }

    private void claim(String what) {
        if (closed) {
            throw new IllegalStateException("Inspector." + what + ": the inspector is closed");
        }
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o == null) {
            owner = me;
        } else if (o != me) {
            throw new IllegalStateException("Inspector." + what + " from thread '" + me.getName()
                    + "': the tables' owner thread, which polled first, is '" + o.getName() + "'");
        }
    }

    /**
     * One frame: a sample, then API calls until the budget is spent (at most one SQL query).
     *
     * @param budget the budget in nanoseconds
     * @return the calls answered
     */
    public int poll(long budget) {
        claim("poll");
        long start = System.nanoTime();
        registry.sample();
        int answered = 0;
        boolean sqlRan = false;
        while (true) {
            long spent = System.nanoTime() - start;
            Call call = queue.peekFirst();
            if (call == null || spent >= budget
                    || (answered > 0 && spent + costs.estimate(call.path) > budget)) {
                break;                              // the budget is spent, or the next call would overrun it
            }
            if (call.isSql() && sqlRan) {
                break;
            }
            queue.pollFirst();                      // this thread alone takes calls, so it is the one peeked
            if (call.answer.isDone()) {
                continue;                           // timed out: its client has its answer
            }
            sqlRan |= call.isSql();
            long t0 = System.nanoTime();
            call.answer.complete(api.answer(call));
            costs.record(call.path, System.nanoTime() - t0);
            answered++;
        }
        return answered;
    }

    /**
     * Answers calls as they come, sampling every tenth of a second, until the time passes.
     *
     * @param nanos how long
     * @return the calls answered
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    public int serve(long nanos) throws InterruptedException {
        claim("serve");
        long end = System.nanoTime() + nanos;
        long nextSample = System.nanoTime();
        int answered = 0;
        while (!closed) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                break;
            }
            if (now - nextSample >= 0) {
                registry.sample();
                nextSample = now + SERVE_SAMPLE_NANOS;
            }
            Call call = queue.pollFirst(Math.min(end - now, nextSample - now), TimeUnit.NANOSECONDS);
            if (call != null && !call.answer.isDone()) {
                call.answer.complete(api.answer(call));
                answered++;
            }
        }
        return answered;
    }

    /** {@return whether {@link #close()} was called} */
    public boolean isClosed() {
        return closed;
    }

    /** Stops the server, answers every waiting call 503 and closes the SQL console. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Call c; (c = queue.pollFirst()) != null; ) {
            c.answer.complete(Response.error(503, "the inspector is closed"));
        }
        server.stop(0);
        threads.shutdown();
        sql.close();
    }
}
