package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.inspector.internal.Call.Response;

import java.util.concurrent.TimeUnit;

/** Answers the JSON API's calls, on the owner thread. */
final class Api {
    private final Registry registry;
    private final Sql sql;
    private final Limits limits;

    /** What the program chose: the poll's budget and the SQL console's limits. */
    record Limits(long budgetNanos, int maxRows, long queryNanos) {
    }

    Api(Registry registry, Sql sql, Limits limits) {
        this.registry = registry;
        this.sql = sql;
        this.limits = limits;
    }

    Response answer(Call call) {
        Json j = new Json().object();
        try {
            switch (call.path) {
                case "/api/tables" -> tables(j);
                case "/api/chunks" -> {
                    Inspected t = registry.table(call.params.get("table"));
                    j.key("table").value(t.name);
                    t.chunks(j, number(call, "since", -1L, -1, Integer.MAX_VALUE));
                }
                case "/api/records" -> {
                    Inspected t = registry.table(call.params.get("table"));
                    j.key("table").value(t.name);
                    t.records(j, registry, (int) number(call, "chunk", null, 0, Integer.MAX_VALUE),
                            (int) number(call, "from", 0L, 0, Integer.MAX_VALUE),
                            (int) number(call, "limit", 100L, 1, Inspected.MAX_RECORDS));
                }
                case "/api/record" -> {
                    Inspected t = registry.table(call.params.get("table"));
                    String text = call.params.get("handle");
                    if (text == null) {
                        throw new BadRequest("no handle named: add ?handle=NUMBER");
                    }
                    j.key("table").value(t.name);
                    t.record(j, registry, t.parseHandle(text));
                }
                case "/api/history" -> {
                    j.key("frame").value(registry.frames());
                    registry.history(j, number(call, "after", -1L, -1, Long.MAX_VALUE));
                }
                case "/api/sql" -> sql.query(j, registry, call.body, limits.maxRows(), limits.queryNanos());
                default -> {
                    return Response.error(404, "no such API: " + call.path);
                }
            }
            return Response.json(200, j.endObject().toString());
        } catch (BadRequest e) {
            return Response.error(400, e.getMessage());
        } catch (RuntimeException e) {
            return Response.error(500, e.toString());
        }
    }

    private void tables(Json j) {
        j.key("frame").value(registry.frames());
        j.key("budgetMillis").value(TimeUnit.NANOSECONDS.toMicros(limits.budgetNanos()) / 1000.0);
        j.key("sql").object();
        if (sql.unavailable() == null) {
            j.key("available").value(true).key("maxRows").value(limits.maxRows())
                    .key("timeLimitMillis").value(TimeUnit.NANOSECONDS.toMillis(limits.queryNanos()));
        } else {
            j.key("available").value(false).key("reason").value(sql.unavailable());
        }
        j.endObject();
        j.key("tables").array();
        for (Inspected t : registry.tables) {
            j.object().key("name").value(t.name).key("kind").value(t.kind());
            try {
                t.info(j);
            } catch (RuntimeException e) {          // closed or claimed meanwhile: say so, keep the rest
                j.key("error").value(e.getMessage());
            }
            if (t instanceof TableView v) {
                j.key("sqlHandleColumn").value(Sql.handleColumn(v));
            }
            j.key("schema").object();
            t.schema(j);
            j.endObject().endObject();
        }
        j.endArray();
    }

    private static long number(Call call, String name, Long otherwise, long min, long max) {
        String text = call.params.get(name);
        if (text == null) {
            if (otherwise == null) {
                throw new BadRequest("missing parameter '" + name + "'");
            }
            return otherwise;
        }
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new BadRequest("parameter '" + name + "' is '" + text + "', not a number");
        }
        if (v < min || v > max) {
            throw new BadRequest("parameter '" + name + "' is " + v + ", not in [" + min + ", " + max + "]");
        }
        return v;
    }
}
