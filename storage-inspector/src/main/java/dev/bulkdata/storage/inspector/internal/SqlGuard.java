package dev.bulkdata.storage.inspector.internal;

import java.util.Locale;
import java.util.Set;

/**
 * The first of the SQL console's two locks: a query is one statement that starts with a
 * query's keyword and names none of the statements that change or reach outside the
 * database. The second lock is DuckDB's own configuration ({@link Sql}): external access off
 * and the configuration locked, so a function that reads a file is refused by DuckDB even in a
 * query this check lets through.
 */
final class SqlGuard {
    /** How a query may start. */
    private static final Set<String> QUERY_STARTS = Set.of("SELECT", "WITH", "FROM", "VALUES", "TABLE", "DESCRIBE",
            "SHOW", "SUMMARIZE", "EXPLAIN");
    /** Words refused anywhere outside a string or a quoted identifier. */
    private static final Set<String> REFUSED = Set.of("COPY", "ATTACH", "DETACH", "INSTALL", "LOAD", "PRAGMA", "SET",
            "RESET", "CALL", "EXPORT", "IMPORT", "CHECKPOINT", "FORCE", "VACUUM", "USE", "CREATE", "INSERT", "UPDATE",
            "DELETE", "DROP", "ALTER", "TRUNCATE", "MERGE", "UPSERT", "BEGIN", "COMMIT", "ROLLBACK",
            "ABORT", "PREPARE", "EXECUTE", "DEALLOCATE", "GRANT", "REVOKE");
    /** The largest query text accepted, in characters. */
    static final int MAX_LENGTH = 16_384;

    private SqlGuard() {
    }

    /**
     * Checks a query's text.
     *
     * @param sql the text
     * @throws BadRequest saying what is refused
     */
    static void check(String sql) {
        if (sql == null || sql.isBlank()) {
            throw new BadRequest("the query is empty");
        }
        if (sql.length() > MAX_LENGTH) {
            throw new BadRequest("the query is " + sql.length() + " characters long; at most " + MAX_LENGTH);
        }
        String first = null;
        boolean ended = false;
        int n = sql.length();
        for (int i = 0; i < n; ) {
            char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new BadRequest("a comment is not closed (/* without */)");
                }
                i = end + 2;
            } else if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c);
                ended = noteToken(ended);
                if (first == null) {
                    first = "";
                }
            } else if (c == '$') {
                int close = sql.indexOf('$', i + 1);
                String tag = close < 0 ? null : sql.substring(i, close + 1);
                if (tag != null && tag.chars().skip(1).limit(tag.length() - 2L)
                        .allMatch(ch -> Character.isLetterOrDigit(ch) || ch == '_')) {
                    int end = sql.indexOf(tag, close + 1);
                    if (end < 0) {
                        throw new BadRequest("a string " + tag + " ... " + tag + " is not closed");
                    }
                    i = end + tag.length();
                } else {
                    i++;
                }
                ended = noteToken(ended);
            } else if (c == ';') {
                ended = true;
                i++;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
                    i++;
                }
                String word = sql.substring(start, i).toUpperCase(Locale.ROOT);
                ended = noteToken(ended);
                if (first == null) {
                    first = word;
                }
                if (REFUSED.contains(word)) {
                    throw new BadRequest("the console runs queries only: '" + sql.substring(start, i)
                            + "' is refused (no COPY, ATTACH, INSTALL, LOAD, PRAGMA, SET or statement that changes"
                            + " data); quote it (\"" + sql.substring(start, i) + "\") if it names a column");
                }
            } else if (Character.isWhitespace(c) || c == '(') {
                if (c == '(') {
                    ended = noteToken(ended);
                }
                i++;
            } else {
                ended = noteToken(ended);
                if (first == null) {
                    first = String.valueOf(c);
                }
                i++;
            }
        }
        if (first == null) {
            throw new BadRequest("the query is empty");
        }
        if (!QUERY_STARTS.contains(first)) {
            throw new BadRequest("the console runs queries only: a query starts with SELECT, WITH, FROM, VALUES,"
                    + " TABLE, DESCRIBE, SHOW, SUMMARIZE or EXPLAIN, not '" + first + "'");
        }
    }

    /** A token after a ';' means a second statement. */
    private static boolean noteToken(boolean ended) {
        if (ended) {
            throw new BadRequest("one statement at a time: the text goes on after a ';'");
        }
        return false;
    }

    private static int skipQuoted(String sql, int i, char quote) {
        int n = sql.length();
        for (int j = i + 1; j < n; j++) {
            if (sql.charAt(j) == quote) {
                if (j + 1 < n && sql.charAt(j + 1) == quote) {
                    j++;                     // a doubled quote stands for itself
                } else {
                    return j + 1;
                }
            }
        }
        throw new BadRequest("a " + (quote == '\'' ? "string" : "quoted name") + " is not closed (" + quote
                + " without its pair)");
    }
}
