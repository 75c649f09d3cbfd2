package dev.bulkdata.storage.inspector.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.bulkdata.storage.inspector.internal.Call.Response;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Inet6Address;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The server's side: runs on the HTTP server's threads and never touches a table. It checks
 * every request (Host, Origin, token, method), serves the page's files from the jar, and hands
 * each API call to the owner thread through a bounded queue, waiting for its answer.
 */
final class Front implements HttpHandler {
    /** How long a server thread waits for the owner thread to answer an API call. */
    static final long ANSWER_TIMEOUT_MILLIS = 10_000;
    /** The largest request body read (a SQL query). */
    private static final int MAX_BODY = SqlGuard.MAX_LENGTH * 4;
    private static final Map<String, String[]> ASSETS = Map.of(
            "/", new String[] {"index.html", "text/html; charset=utf-8"},
            "/assets/inspector.js", new String[] {"inspector.js", "text/javascript; charset=utf-8"},
            "/assets/inspector.css", new String[] {"inspector.css", "text/css; charset=utf-8"},
            "/assets/uPlot.iife.min.js", new String[] {"uplot/uPlot.iife.min.js", "text/javascript; charset=utf-8"},
            "/assets/uPlot.min.css", new String[] {"uplot/uPlot.min.css", "text/css; charset=utf-8"},
            "/assets/uPlot-LICENSE.txt", new String[] {"uplot/LICENSE", "text/plain; charset=utf-8"});
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final byte[] token;
    private final String cookieName;
    private final Set<String> hosts = new HashSet<>();
    private final Set<String> origins = new HashSet<>();
    private final BlockingDeque<Call> queue;
    private final Map<String, byte[]> files = new HashMap<>();
    /** The server's threads, which send the answers of API calls. */
    private final Executor senders;

    Front(String token, InetAddress bound, int port, BlockingDeque<Call> queue, Executor senders) {
        this.senders = senders;
        this.token = token.getBytes(StandardCharsets.US_ASCII);
        this.cookieName = "bulkdata-inspector-" + port;
        this.queue = queue;
        List<String> names = new java.util.ArrayList<>(List.of("127.0.0.1", "localhost", "[::1]"));
        if (!bound.isAnyLocalAddress() && !bound.isLoopbackAddress()) {
            names.add(bound instanceof Inet6Address ? "[" + bound.getHostAddress() + "]" : bound.getHostAddress());
        }
        for (String name : names) {
            hosts.add(name + ":" + port);
            origins.add("http://" + name + ":" + port);
        }
        for (String[] asset : ASSETS.values()) {
            files.put(asset[0], read(asset[0]));
        }
    }

    private static byte[] read(String name) {
        try (InputStream in = Front.class.getResourceAsStream("web/" + name)) {
            if (in == null) {
                throw new IllegalStateException("Inspector: the page's file web/" + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void handle(HttpExchange ex) {
        Response r;
        try {
            r = route(ex);
        } catch (IOException | RuntimeException e) {
            ex.close();                          // the client went away, or sent what cannot be read
            return;
        }
        if (r != null) {
            answer(ex, r);
        }
    }

    private static void answer(HttpExchange ex, Response r) {
        try (ex) {
            send(ex, r);
        } catch (IOException | RuntimeException e) {
            // the client went away: nothing to tell it
        }
    }

    private Response route(HttpExchange ex) throws IOException {
        Headers in = ex.getRequestHeaders();
        String host = in.getFirst("Host");
        if (host == null || !hosts.contains(host.toLowerCase(Locale.ROOT))) {
            return Response.error(403, "Host '" + host + "' is not this inspector's address; it answers only to "
                    + hosts + " (a page under another name may not reach it)");
        }
        String origin = in.getFirst("Origin");
        if (origin != null && !origins.contains(origin.toLowerCase(Locale.ROOT))) {
            return Response.error(403, "Origin '" + origin + "' is not this inspector's page; requests from other"
                    + " pages are refused");
        }
        String path = ex.getRequestURI().getRawPath();
        Map<String, String> params;
        String undecodable = null;
        try {
            params = params(ex.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException e) {
            params = Map.of();
            undecodable = e.getMessage();
        }
        boolean fromQuery = matches(params.get("token"));
        if (!fromQuery && !matches(bearer(in.getFirst("Authorization"))) && !matches(cookie(in))) {
            if (path.startsWith("/api/")) {
                return Response.error(401, "this inspector needs its access token: the address printed when the"
                        + " inspector started ends with ?token=...; send it as that parameter or as"
                        + " 'Authorization: Bearer TOKEN'");
            }
            return new Response(401, "text/html; charset=utf-8", UNAUTHORIZED);
        }
        if (undecodable != null) {
            return Response.error(400, "the query string cannot be decoded: " + undecodable);
        }
        if (fromQuery) {
            ex.getResponseHeaders().add("Set-Cookie", cookieName + "=" + new String(token, StandardCharsets.US_ASCII)
                    + "; Path=/; HttpOnly; SameSite=Strict");
        }
        String method = ex.getRequestMethod();
        if (path.equals("/api/sql")) {
            if (!method.equals("POST")) {
                return Response.error(405, "POST the query as the request's body");
            }
        } else if (!method.equals("GET")) {
            return Response.error(405, "the inspector is read-only: " + method + " is refused");
        }
        if (path.startsWith("/api/")) {
            String body = null;
            if (method.equals("POST")) {
                byte[] bytes = ex.getRequestBody().readNBytes(MAX_BODY + 1);
                if (bytes.length > MAX_BODY) {
                    return Response.error(413, "the query is longer than " + MAX_BODY + " bytes");
                }
                body = new String(bytes, StandardCharsets.UTF_8);
            }
            return ask(ex, new Call(path, params, body));
        }
        String[] asset = ASSETS.get(path.equals("/index.html") ? "/" : path);
        if (asset == null) {
            return Response.error(404, "no such page: " + path);
        }
        return new Response(200, asset[1], files.get(asset[0]));
    }

    /**
     * Queues a call for the owner thread and returns null: the answer is sent by one of the
     * server's threads when the owner has answered, or 503 after {@link #ANSWER_TIMEOUT_MILLIS}.
     * No server thread waits meanwhile, so the queue's capacity is the bound on waiting calls.
     */
    private Response ask(HttpExchange ex, Call call) {
        if (!queue.offerLast(call)) {
            return Response.error(503, "the inspector is busy: " + queue.size() + " calls wait for the program's"
                    + " next poll; try again");
        }
        call.answer.completeOnTimeout(TIMED_OUT, ANSWER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .whenCompleteAsync((r, failure) -> answer(ex, r != null ? r
                        : Response.error(500, String.valueOf(failure))), senders);
        return null;
    }

    private static final Response TIMED_OUT = Response.error(503, "the program did not answer within "
            + ANSWER_TIMEOUT_MILLIS / 1000 + " s: it answers when it calls the inspector's poll() (once a frame)"
            + " or serve()");

    private boolean matches(String candidate) {
        return candidate != null
                && MessageDigest.isEqual(token, candidate.getBytes(StandardCharsets.US_ASCII));
    }

    private static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return authorization.substring(7).strip();
    }

    private String cookie(Headers in) {
        List<String> cookies = in.get("Cookie");
        if (cookies == null) {
            return null;
        }
        for (String header : cookies) {
            for (String part : header.split(";")) {
                String p = part.strip();
                if (p.startsWith(cookieName + "=")) {
                    return p.substring(cookieName.length() + 1);
                }
            }
        }
        return null;
    }

    static Map<String, String> params(String rawQuery) {
        Map<String, String> params = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(key, value);
        }
        return params;
    }

    private static void send(HttpExchange ex, Response r) throws IOException {
        Headers out = ex.getResponseHeaders();
        out.set("Content-Type", r.type());
        out.set("Cache-Control", "no-store");
        out.set("X-Content-Type-Options", "nosniff");
        out.set("Referrer-Policy", "no-referrer");
        out.set("X-Frame-Options", "DENY");
        out.set("Content-Security-Policy", CSP);
        out.set("Cross-Origin-Resource-Policy", "same-origin");
        ex.sendResponseHeaders(r.status(), r.body().length == 0 ? -1 : r.body().length);
        if (r.body().length > 0) {
            ex.getResponseBody().write(r.body());
        }
    }

    private static final byte[] UNAUTHORIZED = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<title>bulkdata inspector: access token needed</title><link rel=\"icon\" href=\"data:,\"></head>"
            + "<body style=\"font-family:sans-serif;max-width:40em;margin:3em auto\"><h1>bulkdata inspector</h1>"
            + "<p id=\"unauthorized\">This inspector needs its access token. Open the address the program printed"
            + " when the inspector started: it ends with <code>?token=</code> and a long random token.</p>"
            + "<p>The token keeps other pages and other users of this machine out of the program's tables.</p>"
            + "</body></html>").getBytes(StandardCharsets.UTF_8);
}
