package dev.bulkdata.storage.inspector;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A plain HTTP/1.1 client on a socket, so that tests can send any Host, Origin or method (the
 * JDK's client refuses to set Host). Every request closes its connection.
 */
final class Http {
    record Answer(int status, Map<String, String> headers, String body) {
        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private Http() {
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static Answer get(Inspector inspector, String pathAndQuery) throws IOException {
        return send(inspector, "GET", pathAndQuery, Map.of("Authorization", "Bearer " + inspector.token()), null);
    }

    static Answer sql(Inspector inspector, String query) throws IOException {
        return send(inspector, "POST", "/api/sql", Map.of("Authorization", "Bearer " + inspector.token()), query);
    }

    /** Sends a request; a header with a null value is left out, Host defaults to 127.0.0.1:port. */
    static Answer send(Inspector inspector, String method, String pathAndQuery, Map<String, String> headers,
                       String body) throws IOException {
        return send(inspector.address().getPort(), method, pathAndQuery, headers, body);
    }

    /** Sends a request to the inspector listening on {@code port} of the loopback address. */
    static Answer send(int port, String method, String pathAndQuery, Map<String, String> headers,
                       String body) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(30_000);
            byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            Map<String, String> all = new LinkedHashMap<>();
            all.put("Host", "127.0.0.1:" + port);
            all.putAll(headers);
            StringBuilder head = new StringBuilder(method + " " + pathAndQuery + " HTTP/1.1\r\n");
            for (Map.Entry<String, String> h : all.entrySet()) {
                if (h.getValue() != null) {
                    head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
                }
            }
            head.append("Connection: close\r\n");
            if (body != null) {
                head.append("Content-Type: text/plain; charset=utf-8\r\nContent-Length: ").append(content.length)
                        .append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return read(s.getInputStream());
        }
    }

    private static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no HTTP answer: '" + text + "'");
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = unchunk(body);
        }
        return new Answer(status, headers, body);
    }

    private static String unchunk(String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, eol).strip(), 16);
            if (size == 0) {
                return out.toString();
            }
            out.append(body, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }
}
