package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.Schema;

/**
 * One attached table as the inspector sees it: what it says about the table, its chunks and
 * its records. Every method runs on the tables' owner thread (inside a poll).
 */
abstract sealed class Inspected permits TableView, ComponentView {
    /** The largest number of chunks one chunk-map answer lists. */
    static final int MAX_CHUNKS = 65_536;
    /** The largest number of records one page of records holds. */
    static final int MAX_RECORDS = 256;

    final String name;
    final Schema schema;

    Inspected(String name, Schema schema) {
        this.name = name;
        this.schema = schema;
    }

    abstract String kind();

    abstract boolean closed();

    /** Live records (component rows, for a component table) now; 0 if closed. */
    abstract int live();

    /** Native bytes of the blocks now (see the guide for what a component table reports). */
    abstract long bytes();

    /** Chunks with a change since the last call, or -1 if the table does not say or this is the first call. */
    abstract int changedSinceLastSample();

    /** Writes the members of the table's summary (inside an open object). */
    abstract void info(Json j);

    /** Writes the chunk map's members; {@code since < 0}: the first view, nothing marked changed. */
    abstract void chunks(Json j, long since);

    abstract void records(Json j, Registry links, int chunk, int from, int limit);

    abstract void record(Json j, Registry links, long handle);

    /** Parses a handle as a number or as this table's {@code name#slot@generation}. */
    abstract long parseHandle(String text);

    /** Writes the schema's members (inside an open object). */
    void schema(Json j) {
        j.key("layout").value(schema.layout().name());
        j.key("recordBytes").value(schema.recordBytes());
        j.key("slotBytes").value(schema.slotBytes());
        j.key("slotsPerBlock").value(schema.slotsPerBlock());
        j.key("blockBytes").value(schema.blockBytes());
        j.key("fields").array();
        for (Field f : schema.fields()) {
            j.object().key("name").value(f.name()).key("type").value(f.type().name())
                    .key("bytes").value(f.type().byteSize()).key("offset").value(f.blockOffset())
                    .key("stride").value(f.slotStride());
            if (f instanceof HandleField h) {
                j.key("target").value(h.target());
            }
            j.endObject();
        }
        j.endArray();
    }

    static int checkChunk(int chunk, int count, String table) {
        if (chunk < 0 || chunk >= count) {
            throw new BadRequest("chunk " + chunk + " is not a chunk of table '" + table + "', which has " + count
                    + (count == 1 ? " chunk" : " chunks"));
        }
        return chunk;
    }
}
