package dev.bulkdata.storage.inspector.internal;

/** A request the inspector cannot answer as asked: answered 400 with this message. */
final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
        super(message);
    }
}
