package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.ChunkVisitor;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.TableStats;

/** A {@link BulkTable} or {@link dev.bulkdata.storage.PackedTable} seen by the inspector. */
final class TableView extends Inspected {
    final Table table;
    /** Any change: a write of any field, or a record added, removed or moved. */
    private final ChangeFilter anyChange;
    private final ChangedCounter counter = new ChangedCounter();
    /** The version the last sample marked, once there was one. */
    private int sampled;
    private boolean sampledOnce;
    /** The table's tag, learned from a live handle (the table does not tell it); -1 until then. */
    private int tag = -1;

    TableView(Table table) {
        super(table.name(), table.schema());
        this.table = table;
        this.anyChange = ChangeFilter.of(schema.fields().toArray(Field[]::new)).orStructure();
    }

    @Override
    String kind() {
        return table instanceof BulkTable ? "BulkTable" : "PackedTable";
    }

    @Override
    boolean closed() {
        return table.isClosed();
    }

    @Override
    int live() {
        return table.isClosed() ? 0 : table.size();
    }

    @Override
    long bytes() {
        return table.stats().nativeBytes();
    }

    @Override
    int changedSinceLastSample() {
        if (table.isClosed()) {
            return 0;
        }
        if (!sampledOnce) {                     // no earlier sample to compare with
            sampledOnce = true;
            sampled = table.markVersion();
            return -1;
        }
        counter.count = 0;
        table.forEachChunk(anyChange, sampled, counter);
        sampled = table.markVersion();
        return counter.count;
    }

    private static final class ChangedCounter implements ChunkVisitor {
        int count;

        @Override
        public void visit(Chunk chunk) {
            count++;
        }
    }

    @Override
    void info(Json j) {
        TableStats s = table.stats();
        j.key("closed").value(table.isClosed());
        j.key("live").value(s.live()).key("holes").value(s.holes()).key("retired").value(s.retired())
                .key("capacity").value(s.capacity()).key("blocks").value(s.blocks())
                .key("bytes").value(s.nativeBytes());
        HandleLayout layout = table.handleLayout();
        j.key("handleLayout").object().key("tagBits").value(HandleLayout.TAG_BITS)
                .key("generationBits").value(layout.generationBits()).key("slotBits").value(layout.slotBits())
                .key("maxGeneration").value(layout.maxGeneration()).key("maxSlot").value(layout.maxSlot())
                .endObject();
        learnTag();
        if (tag >= 0) {
            j.key("tag").value(tag);
        } else {
            j.key("tag").nullValue();
        }
    }

    /** Learns the tag from the first live record's handle, if there is one. O(chunks) at most once. */
    private void learnTag() {
        if (tag >= 0 || table.isClosed() || table.size() == 0) {
            return;
        }
        try (ChunkIteration it = table.iterate()) {
            for (Chunk c : it) {
                int s = c.nextLive(0);
                if (s >= 0) {
                    tag = table.handleLayout().tag(c.handle(s));
                    return;
                }
            }
        }
    }

    @Override
    void chunks(Json j, long since) {
        j.key("slotsPerChunk").value(schema.slotsPerBlock());
        if (table.isClosed()) {
            j.key("count").value(0).key("chunks").array().endArray();
            j.key("version").nullValue();
            return;
        }
        int version = (int) since;
        try (ChunkIteration it = table.iterate()) {
            int count = it.count();
            j.key("count").value(count);
            j.key("chunks").array();
            for (int i = 0, n = Math.min(count, MAX_CHUNKS); i < n; i++) {
                Chunk c = it.chunk(i);
                boolean changed = since >= 0 && anyChange.test(c, version);
                j.array().value(c.liveCount()).value(changed ? 1 : 0).endArray();
            }
            j.endArray();
        }
        j.key("version").value(table.markVersion());
    }

    @Override
    void records(Json j, Registry links, int chunk, int from, int limit) {
        if (table.isClosed()) {
            throw new BadRequest("table '" + name + "' is closed");
        }
        try (ChunkIteration it = table.iterate()) {
            Chunk c = it.chunk(checkChunk(chunk, it.count(), name));
            if (from < 0 || from > c.slotCount()) {
                throw new BadRequest("slot " + from + " is not in chunk " + chunk + " (slots 0 to "
                        + (c.slotCount() - 1) + ")");
            }
            j.key("chunk").value(chunk).key("slots").value(c.slotCount()).key("live").value(c.liveCount());
            j.key("records").array();
            int s = c.nextLive(from);
            for (int n = 0; s >= 0 && n < limit; n++, s = c.nextLive(s + 1)) {
                long h = c.handle(s);
                j.object().key("slot").value(s).key("handle").value(Long.toString(h))
                        .key("label").value(table.format(h));
                j.key("values").array();
                for (Field f : schema.fields()) {
                    Values.write(j, links, c, s, f);
                }
                j.endArray().endObject();
            }
            j.endArray();
            j.key("next").value(s);
        }
    }

    @Override
    void record(Json j, Registry links, long handle) {
        j.key("handle").value(Long.toString(handle)).key("label").value(table.format(handle));
        if (table.contains(handle)) {
            j.key("live").value(true);
            j.key("values").array();
            for (Field f : schema.fields()) {
                Values.write(j, links, table, handle, f);
            }
            j.endArray();
        } else {
            j.key("live").value(false);
            String reason;
            try {
                Values.touch(table, handle, schema.fields().get(0));
                reason = "not a live record of '" + name + "'";
            } catch (InvalidHandleException | IllegalStateException e) {
                reason = e.getMessage();
            }
            j.key("reason").value(reason);
        }
    }

    @Override
    long parseHandle(String text) {
        int hash = text.indexOf('#');
        int at = text.lastIndexOf('@');
        if (hash < 0) {
            try {
                return Long.parseLong(text.strip());
            } catch (NumberFormatException e) {
                throw new BadRequest("'" + text + "' is not a handle: give it as a number or as " + name
                        + "#slot@generation");
            }
        }
        if (at < hash || !text.substring(0, hash).equals(name)) {
            throw new BadRequest("'" + text + "' is not a handle of table '" + name + "' (" + name
                    + "#slot@generation)");
        }
        learnTag();
        if (tag < 0) {
            throw new BadRequest("table '" + name + "' has no live record to learn its tag from; give the handle"
                    + " as a number");
        }
        try {
            long slot = Long.parseLong(text.substring(hash + 1, at));
            int generation = Integer.parseInt(text.substring(at + 1));
            return table.handleLayout().pack(tag, generation, slot);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("'" + text + "' is not a handle of table '" + name + "': " + e.getMessage());
        }
    }
}
