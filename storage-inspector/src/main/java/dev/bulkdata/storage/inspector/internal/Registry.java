package dev.bulkdata.storage.inspector.internal;

import dev.bulkdata.storage.Handles;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The attached tables by name, and their history: one sample per frame (each poll, or each
 * tenth of a second while {@code serve} runs), kept for the last {@link #HISTORY} frames in
 * arrays allocated once. Owner thread only.
 */
final class Registry {
    static final int HISTORY = 1200;

    final List<Inspected> tables;
    private final Map<String, Inspected> byName = new LinkedHashMap<>();
    private final long startNanos = System.nanoTime();
    private final long[] frames = new long[HISTORY];
    private final double[] seconds = new double[HISTORY];
    private final int[][] live;
    private final long[][] bytes;
    private final int[][] changed;
    /** Frames sampled so far; sample {@code f} is at {@code f % HISTORY}. Written by the owner only. */
    private volatile long samples;

    Registry(List<Inspected> tables) {
        this.tables = List.copyOf(tables);
        for (Inspected t : tables) {
            if (byName.putIfAbsent(t.name, t) != null) {
                throw new IllegalArgumentException("Inspector: two attached tables are named '" + t.name
                        + "'; the page and SQL name tables by name, so each must be unique");
            }
        }
        live = new int[tables.size()][HISTORY];
        bytes = new long[tables.size()][HISTORY];
        changed = new int[tables.size()][HISTORY];
    }

    Inspected table(String name) {
        if (name == null) {
            throw new BadRequest("no table named: add ?table=NAME");
        }
        Inspected t = byName.get(name);
        if (t == null) {
            throw new BadRequest("no attached table is named '" + name + "'; attached: " + byName.keySet());
        }
        return t;
    }

    /** The frame number of the next sample. */
    long frames() {
        return samples;
    }

    /** Samples every table once: O(tables + chunks changed since the last sample). */
    void sample() {
        int at = (int) (samples % HISTORY);
        frames[at] = samples;
        seconds[at] = (System.nanoTime() - startNanos) / 1e9;
        for (int i = 0; i < tables.size(); i++) {
            Inspected t = tables.get(i);
            try {
                live[i][at] = t.live();
                bytes[i][at] = t.closed() ? 0 : t.bytes();
                changed[i][at] = t.changedSinceLastSample();
            } catch (RuntimeException e) {      // a table closed or claimed by another thread: no sample
                live[i][at] = 0;
                bytes[i][at] = 0;
                changed[i][at] = -1;
            }
        }
        samples++;
    }

    /** Writes the samples after frame {@code after} (all kept ones if it is older). */
    void history(Json j, long after) {
        long first = Math.max(Math.max(0, after + 1), samples - HISTORY);
        j.key("frames").array();
        for (long f = first; f < samples; f++) {
            j.value(f);
        }
        j.endArray().key("seconds").array();
        for (long f = first; f < samples; f++) {
            j.value(Math.round(seconds[(int) (f % HISTORY)] * 1000) / 1000.0);
        }
        j.endArray().key("tables").array();
        for (int i = 0; i < tables.size(); i++) {
            j.object().key("name").value(tables.get(i).name);
            j.key("live").array();
            for (long f = first; f < samples; f++) {
                j.value(live[i][(int) (f % HISTORY)]);
            }
            j.endArray().key("bytes").array();
            for (long f = first; f < samples; f++) {
                j.value(bytes[i][(int) (f % HISTORY)]);
            }
            j.endArray().key("changed").array();
            for (long f = first; f < samples; f++) {
                int c = changed[i][(int) (f % HISTORY)];
                if (c < 0) {
                    j.nullValue();
                } else {
                    j.value(c);
                }
            }
            j.endArray().endObject();
        }
        j.endArray();
    }

    /**
     * Writes a handle field's value: the number (as a string, which keeps all 64 bits in a
     * browser), its readable form, and whether it names a live record of an attached table.
     */
    void writeHandle(Json j, String target, long handle) {
        j.object().key("handle").value(Long.toString(handle)).key("target").value(target);
        Inspected t = byName.get(target);
        if (handle == Handles.NULL) {
            j.key("label").value("null").key("live").value(false);
        } else if (t instanceof TableView v) {
            j.key("label").value(v.table.format(handle)).key("live").value(v.table.contains(handle));
        } else {
            j.key("label").value(Handles.format(handle)).key("live").nullValue();
        }
        j.endObject();
    }
}
