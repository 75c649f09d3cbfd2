package dev.bulkdata.storage.inspector.internal;

/**
 * A small JSON writer: objects, arrays, strings, numbers, booleans and null, written in order
 * into a {@link StringBuilder}. Commas are placed by the writer; keys are written with
 * {@link #key(String)} before a value. Numbers that JSON cannot hold (NaN, infinities) are
 * written as strings; so are longs beyond 2^53, which a browser would round.
 */
final class Json {
    private static final long EXACT_IN_DOUBLE = 1L << 53;
    private final StringBuilder out = new StringBuilder(256);
    /** Per open container: whether it has a member yet (bit per depth, up to 64 levels). */
    private long hasMember;
    private int depth;
    private boolean afterKey;

    /** Opens an object. @return this */
    Json object() {
        open('{');
        return this;
    }

    /** Closes the innermost object. @return this */
    Json endObject() {
        close('}');
        return this;
    }

    /** Opens an array. @return this */
    Json array() {
        open('[');
        return this;
    }

    /** Closes the innermost array. @return this */
    Json endArray() {
        close(']');
        return this;
    }

    /**
     * Writes a key of the innermost object; the next call writes its value.
     *
     * @param name the key
     * @return this
     */
    Json key(String name) {
        comma();
        string0(name);
        out.append(':');
        afterKey = true;
        return this;
    }

    /** @param value a string or null @return this */
    Json value(String value) {
        comma();
        if (value == null) {
            out.append("null");
        } else {
            string0(value);
        }
        return this;
    }

    /** @param value a number @return this */
    Json value(long value) {
        comma();
        if (Math.abs(value) <= EXACT_IN_DOUBLE) {
            out.append(value);
        } else {
            string0(Long.toString(value));
        }
        return this;
    }

    /** @param value a number @return this */
    Json value(double value) {
        comma();
        if (Double.isFinite(value)) {
            if (value == Math.rint(value) && Math.abs(value) < 1e15) {
                out.append((long) value);
            } else {
                out.append(value);
            }
        } else {
            string0(Double.toString(value));
        }
        return this;
    }

    /** @param value a float, written with its own shortest decimal form @return this */
    Json value(float value) {
        comma();
        if (Float.isFinite(value)) {
            out.append(value);
        } else {
            string0(Float.toString(value));
        }
        return this;
    }

    /** @param value a boolean @return this */
    Json value(boolean value) {
        comma();
        out.append(value);
        return this;
    }

    /** Writes null. @return this */
    Json nullValue() {
        comma();
        out.append("null");
        return this;
    }

    /** {@return the text written so far} */
    @Override
    public String toString() {
        return out.toString();
    }

    private void open(char c) {
        comma();
        out.append(c);
        depth++;
        hasMember &= ~(1L << (depth & 63));
    }

    private void close(char c) {
        out.append(c);
        depth--;
        afterKey = false;
    }

    private void comma() {
        if (afterKey) {
            afterKey = false;
            return;
        }
        long bit = 1L << (depth & 63);
        if (depth > 0 && (hasMember & bit) != 0) {
            out.append(',');
        }
        hasMember |= bit;
    }

    private void string0(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                // < > & escaped too, so that no string can close a script or an HTML element
                case '<', '>', '&', '\u2028', '\u2029' -> out.append(String.format("\\u%04x", (int) c));
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
