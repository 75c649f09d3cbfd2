package dev.bulkdata.storage.inspector.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A request of the JSON API, handed by a server thread to the owner thread and answered there
 * by completing {@link #answer}; a call whose answer is complete already (it timed out, or the
 * inspector closed) is skipped.
 */
final class Call {
    final String path;
    final Map<String, String> params;
    final String body;
    final CompletableFuture<Response> answer = new CompletableFuture<>();

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
