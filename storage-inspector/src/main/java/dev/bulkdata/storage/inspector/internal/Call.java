package dev.bulkdata.storage.inspector.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A request of the JSON API, handed by a server thread to the owner thread and answered there.
 * The server thread waits for {@link #answer}; if it stops waiting it sets {@link #abandoned}
 * and the owner skips the call.
 */
final class Call {
    final String path;
    final Map<String, String> params;
    final String body;
    final CompletableFuture<Response> answer = new CompletableFuture<>();
    volatile boolean abandoned;

    Call(String path, Map<String, String> params, String body) {
        this.path = path;
        this.params = params;
        this.body = body;
    }

    boolean isSql() {
        return path.equals("/api/sql");
    }

    /** An answer: status, content type and body. */
    record Response(int status, String type, byte[] body) {
        static Response json(int status, String json) {
            return new Response(status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8));
        }

        static Response error(int status, String message) {
            return json(status, new Json().object().key("error").value(message).endObject().toString());
        }
    }
}
