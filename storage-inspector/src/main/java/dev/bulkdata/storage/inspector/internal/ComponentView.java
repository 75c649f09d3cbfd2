package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.InvalidHandleException;

/**
 * A {@link ComponentTable} seen by the inspector. Its public API has no read-only chunk view
 * ({@code forEachChunk} first sweeps out stale rows, a structural change) and no change
 * versions, so the inspector reads it by dense row: its chunks are its rows taken
 * {@code slotsPerBlock} at a time, every chunk but the last full; its memory is the blocks those
 * rows need; which chunks changed is not known.
 */
final class ComponentView extends Inspected {
    final ComponentTable table;

    ComponentView(ComponentTable table) {
        super(table.name(), table.schema());
        this.table = table;
    }

    @Override
    String kind() {
        return "ComponentTable";
    }

    @Override
    boolean closed() {
        return table.isClosed() || table.entities().isClosed();
    }

    @Override
    int live() {
        return closed() ? 0 : table.size();
    }

    private int chunkCount() {
        int per = schema.slotsPerBlock();
        return (live() + per - 1) / per;
    }

    @Override
    long bytes() {
        return (long) chunkCount() * schema.blockBytes();
    }

    @Override
    int changedSinceLastSample() {
        return -1;
    }

    @Override
    void info(Json j) {
        boolean closed = closed();
        j.key("closed").value(closed);
        j.key("entities").value(table.entities().name());
        j.key("live").value(live()).key("blocks").value(chunkCount()).key("bytes").value(bytes());
    }

    @Override
    void chunks(Json j, long since) {
        int per = schema.slotsPerBlock();
        int rows = live();
        int count = chunkCount();
        j.key("slotsPerChunk").value(per).key("count").value(count);
        j.key("chunks").array();
        for (int i = 0, n = Math.min(count, MAX_CHUNKS); i < n; i++) {
            j.array().value(Math.min(per, rows - i * per)).value(-1).endArray();
        }
        j.endArray();
        j.key("version").nullValue();
    }

    @Override
    void records(Json j, Registry links, int chunk, int from, int limit) {
        if (closed()) {
            throw new BadRequest("component table '" + name + "' or its entity table is closed");
        }
        int per = schema.slotsPerBlock();
        int rows = table.size();
        checkChunk(chunk, chunkCount(), name);
        if (from < 0 || from > per) {
            throw new BadRequest("row " + from + " is not in chunk " + chunk + " (rows 0 to " + (per - 1) + ")");
        }
        int first = chunk * per;
        int end = Math.min(rows, first + per);
        j.key("chunk").value(chunk).key("slots").value(per).key("live").value(end - first);
        j.key("records").array();
        int row = first + from;
        for (int n = 0; row < end && n < limit; n++, row++) {
            long entity = table.entityAt(row);
            j.object().key("slot").value(row - first).key("handle").value(Long.toString(entity))
                    .key("label").value(table.entities().format(entity))
                    .key("stale").value(!table.entities().contains(entity));
            j.key("values").array();
            for (Field f : schema.fields()) {
                Values.write(j, links, table, row, f);
            }
            j.endArray().endObject();
        }
        j.endArray();
        j.key("next").value(row < end ? row - first : -1);
    }

    @Override
    void record(Json j, Registry links, long entity) {
        j.key("handle").value(Long.toString(entity)).key("label").value(table.entities().format(entity));
        String reason = null;
        try {
            if (table.contains(entity)) {
                j.key("live").value(true);
                j.key("values").array();
                for (Field f : schema.fields()) {
                    Values.writeByEntity(j, links, table, entity, f);
                }
                j.endArray();
                return;
            }
            reason = table.entities().contains(entity) ? "entity has no '" + name + "' component"
                    : "not a live entity of '" + table.entities().name() + "'";
        } catch (InvalidHandleException | IllegalStateException e) {
            reason = e.getMessage();
        }
        j.key("live").value(false).key("reason").value(reason);
    }

    @Override
    long parseHandle(String text) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new BadRequest("'" + text + "' is not an entity handle: give it as a number");
        }
    }
}
