package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.Schema;

import java.util.Arrays;

/**
 * The change versions of one table: the version counter and, per chunk, a structural version and one per field, in one
 * flat heap array ({@code c * stride + 1 + f}, {@code stride = fields + 1}). The one home of the stamping and comparing
 * rules; what stamps what, and the window of exact comparison: ARCHITECTURE.md, "Change versions".
 *
 * <p>A stamp is stored only when it differs from {@link #current}. Versions are {@code int}s compared by signed
 * difference; one from the last {@link #WINDOW} marks compares exactly, an older one counts every chunk as changed.
 *
 * <p>Threads: {@code mark} and growth run on the writer thread while no pass runs; stamps may be written by many
 * threads at once (each writes {@code current}, so the race is benign).
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class ChangeVersions {
    /** Versions this many marks old or newer compare exactly. */
    public static final int WINDOW = 1 << 30;
    /** Every this many marks, {@link #clamp()} raises stamps older than the window. */
    private static final int CLAMP_EVERY = 1 << 29;

    /** Entries per chunk: the structure version, then one per field. 0 for {@link #unused}. */
    public final int stride;
    private final int fields;
    /** The flat array of stamps; grown with the table's blocks, never shrunk. */
    public int[] stamps;
    // Per chunk, the version of its last stampAll: equal to current, the next stampAll there is one compare. Reset by
    // clamp(), long before a version could come round again.
    private int[] full = new int[0];
    /** The version every write stamps now. */
    public int current = 1;
    /** Whether {@link #mark()} was called: until then every stamp is 1, and stamping is one load and branch. */
    private boolean marked;
    /** Chunks the table has had at most, whose stamps exist once {@link #marked}. */
    private int chunks;

    private ChangeVersions(int fields, int stride, int[] stamps) {
        this.fields = fields;
        this.stride = stride;
        this.stamps = stamps;
    }

    public ChangeVersions(Schema schema) {
        this(schema.fields().size(), schema.fields().size() + 1, new int[0]);
    }

    /** Versions that keep nothing (a component table's chunks): every chunk stamps one shared row. */
    public static ChangeVersions unused(Schema schema) {
        return new ChangeVersions(schema.fields().size(), 0, new int[schema.fields().size() + 1]);
    }

    public boolean isUnused() {
        return stride == 0;
    }

    /**
     * Makes room for {@code chunks} chunks' stamps, new ones at the current version; before the first {@link #mark()}
     * only counts them. Allocates only when the table grows past its largest size.
     */
    public void ensureChunks(int chunks) {
        this.chunks = Math.max(this.chunks, chunks);
        if (marked) {
            grow(chunks);
        }
    }

    private void grow(int chunks) {
        long needed = (long) chunks * stride;
        int had = stamps.length;
        if (needed <= had) {
            return;
        }
        // Grow by an eighth (at least 16 chunks): amortised O(1), and at most 12.5 % unused.
        long grow = Math.max(needed, had + Math.max(had / 8, 16L * stride));
        int size = (int) Math.min(Integer.MAX_VALUE - 8, grow);
        size -= size % stride;
        int[] grown = Arrays.copyOf(stamps, size);
        Arrays.fill(grown, had, size, current);
        stamps = grown;
        int fullHad = full.length;
        full = Arrays.copyOf(full, size / stride);
        Arrays.fill(full, fullHad, full.length, current - 1);
    }

    public void stampField(int chunk, int field) {
        stamp(chunk * stride + 1 + field);
    }

    private void stamp(int i) {
        if (!marked) {
            return;
        }
        int[] s = stamps;
        int v = current;
        if (s[i] != v) {
            s[i] = v;
        }
    }

    /** Stamps the structure of chunk {@code chunk}: records came, went or moved. */
    public void stampStructure(int chunk) {
        stamp(chunk * stride);
    }

    public void stampFields(int chunk) {
        stampRange(chunk * stride + 1, fields);
    }

    private void stampRange(int from, int count) {
        if (!marked) {
            return;
        }
        int[] s = stamps;
        int v = current;
        for (int i = from, end = from + count; i < end; i++) {
            if (s[i] != v) {
                s[i] = v;
            }
        }
    }

    /** Stamps chunk {@code chunk}'s structure and fields (a record arrived); one compare if stamped whole already. */
    public void stampAll(int chunk) {
        if (!marked || stride == 0) {
            return;     // no mark yet, or unused versions: nothing is read
        }
        int v = current;
        int[] f = full;
        if (f[chunk] != v) {
            f[chunk] = v;
            stampRange(chunk * stride, stride);
        }
    }

    /** Returns the current version and moves the counter on; every {@link #CLAMP_EVERY} marks, raises stale stamps. */
    public int mark() {
        markFirst();
        int v = current;
        current = v + 1;
        if ((current & (CLAMP_EVERY - 1)) == 0) {
            clamp();
        }
        return v;
    }

    /** On the first mark, makes the stamps, every one 1 (the first {@link #current}), as they were until then. */
    private void markFirst() {
        if (!marked) {
            marked = true;
            grow(chunks);
        }
    }

    /** Raises every stamp older than {@code current - WINDOW} to it; see the class comment. */
    private void clamp() {
        Arrays.fill(full, current - 1);
        int floor = current - WINDOW;
        int[] s = stamps;
        for (int i = 0; i < s.length; i++) {
            if (s[i] - floor < 0) {
                s[i] = floor;
            }
        }
    }

    /** Whether {@code stamp} is newer than {@code since}; true for a {@code since} outside the window. */
    public boolean newer(int stamp, int since) {
        return Integer.compareUnsigned(current - since, WINDOW) > 0 || stamp - since > 0;
    }

    /** {@return entry {@code i} of {@link #stamps}: 1 for every entry before the first mark} */
    private int stampAt(int i) {
        return marked ? stamps[i] : 1;
    }

    public boolean fieldChangedSince(int chunk, int field, int since) {
        return newer(stampAt(chunk * stride + 1 + field), since);
    }

    /** {@return whether records came into, left or moved in chunk {@code chunk} after version {@code since}} */
    public boolean structureChangedSince(int chunk, int since) {
        return newer(stampAt(chunk * stride), since);
    }

    /** {@return whether chunk {@code chunk}'s structure or any field changed after {@code since}; true if unstamped} */
    public boolean anyChangedSince(int chunk, int since) {
        int from = chunk * stride;
        if (!marked || stride == 0 || from + stride > stamps.length) {
            return true;
        }
        int[] s = stamps;
        for (int i = from, end = from + stride; i < end; i++) {
            if (newer(s[i], since)) {
                return true;
            }
        }
        return false;
    }

    /** {@return the structure stamp of a chunk, for tests} */
    public int structure(int chunk) {
        return stampAt(chunk * stride);
    }

    /** {@return the stamp of a field of a chunk, for tests} */
    public int field(int chunk, int field) {
        return stampAt(chunk * stride + 1 + field);
    }

    /** Sets the counter, for tests of the window. */
    public void setCurrentForTest(int version) {
        markFirst();
        Arrays.fill(full, version - 1);
        current = version;
    }
}
