package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.ChangeFilter;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.Table;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.bulkdata.storage.arrow.CData.*;

/**
 * An open export of a table: a {@code struct ArrowArrayStream} of the
 * <a href="https://arrow.apache.org/docs/format/CStreamInterface.html">Arrow C stream
 * interface</a> at {@link #address()}, for a consumer (DuckDB, Polars, DataFusion, pyarrow
 * through a C bridge, or C code) to read. Made by {@link ArrowExport#open()}; see
 * {@link ArrowExport} for what the stream holds and what is copied.
 *
 * <p><b>Lifetime</b> (guide: docs/sql-and-arrow.md, "Lifetime rules"). The consumer releases the
 * stream and each schema and array it took through their {@code release} callbacks, on any
 * thread, in any order; each frees what it owns once (a second call does nothing). Until all are
 * released the export is <em>open</em>: the table refuses adds, removes, clears and defragments
 * with {@link java.util.ConcurrentModificationException}, and its {@link Table#close()} throws
 * {@link IllegalStateException} naming the open exports and changes nothing. A stream never
 * released keeps its table so. Field writes stay allowed and are seen by the consumer where a
 * column is not copied: write none that a consumer reads.
 *
 * <p>{@link #close()} releases the stream if no consumer took it, and does nothing for one a
 * consumer moved (set its {@code release} to null, as DuckDB does when a query scans it), so
 * try-with-resources is safe around a stream handed out.
 *
 * <p><b>Errors</b> in a callback return {@code EIO} or {@code EINVAL} to the consumer, with a
 * message from {@code get_last_error}; nothing is thrown into native code.
 *
 * <p>Threads: the callbacks may be called on any thread, the stream's own serially (as the
 * interface requires); {@link #close()}, {@link #isReleased()} and the counters are thread-safe.
 */
public final class ArrowStream implements AutoCloseable {
    /** Open streams by id; the id is the stream struct's {@code private_data}. */
    private static final ConcurrentHashMap<Long, ArrowStream> OPEN = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();

    private final long id;
    private final ArrowExport export;
    private final Table table;
    private final Field[] fields;
    private final boolean handles;
    private final int columns;
    private final int slots;
    private final boolean aos;
    /** Holds the table's iteration guard and keeps its close() from freeing the blocks. */
    private final ChunkIteration chunks;
    /** Everything the stream allocates but the stream struct; closed at the last release. */
    private final Arena arena;
    /** The stream struct; in memory this object keeps alive unless the caller gave it. */
    private final MemorySegment struct;
    /** 1 for the stream, plus one per schema or array given and not released. */
    private final AtomicInteger refs = new AtomicInteger(1);
    /** Batches, by index (a batch's index is in its memory's header). Guarded by this. */
    private final ArrayList<Batch> batches = new ArrayList<>();
    /** Released array batches, for reuse. Guarded by this. */
    private final ArrayDeque<Batch> free = new ArrayDeque<>();
    /** Layout of an array batch: offsets within its memory. */
    private final long parentBuffersAt;
    private final long parentChildrenAt;
    private final long childrenAt;
    private final long childBuffersAt;
    private final long validityAt;
    private final long[] copyAt;
    private final long batchBytes;
    /** Next chunk index to look at. Guarded by this. */
    private int nextChunk;
    private volatile boolean streamReleased;
    private volatile boolean finished;
    /** The message of the last failed callback, as a C string; NULL after a call that succeeded. */
    private MemorySegment lastError = MemorySegment.NULL;
    private final AtomicLong bytesCopied = new AtomicLong();
    private final AtomicInteger arraysGiven = new AtomicInteger();
    private final String holder;

    private ArrowStream(ArrowExport export, ChangeFilter changes, int since, MemorySegment given) {
        this.export = export;
        this.table = export.table();
        this.fields = export.fieldArray();
        this.handles = export.handleColumn() != null;
        this.columns = fields.length + (handles ? 1 : 0);
        this.slots = table.schema().slotsPerBlock();
        this.aos = table.schema().layout() == RecordLayout.AOS;
        this.id = IDS.incrementAndGet();
        // Batch layout: header (id, index), parent buffers, parent children pointers, child
        // structs, child buffer pointers, validity, then the copied columns, 64-byte aligned.
        long at = 16;
        parentBuffersAt = at;
        at += 8;
        parentChildrenAt = at;
        at += 8L * columns;
        childrenAt = align(at, 8);
        at = childrenAt + ARRAY.byteSize() * columns;
        childBuffersAt = at;
        at += 16L * columns;
        validityAt = align(at, 64);
        at = validityAt + align((slots + 7) / 8, 8);
        copyAt = new long[columns];
        for (int c = 0; c < columns; c++) {
            long bytes = copiedBytes(c);
            if (bytes > 0) {
                at = align(at, 64);
                copyAt[c] = at;
                at += bytes;
            } else {
                copyAt[c] = -1;
            }
        }
        batchBytes = at;
        this.holder = "Arrow export #" + id + " " + export + ", opened on thread '" + Thread.currentThread().getName()
                + "', not yet released by its consumer";
        ChunkIteration it = ChunkIteration.holding(table, changes, since, holder);
        Arena shared = null;
        try {
            shared = Arena.ofShared();
            this.struct = given != null ? given : Arena.ofAuto().allocate(STREAM);
        } catch (RuntimeException | Error e) {
            it.close();
            if (shared != null) {
                shared.close();
            }
            throw e;
        }
        this.chunks = it;
        this.arena = shared;
        OPEN.put(id, this);
        struct.set(PTR, STREAM_GET_SCHEMA, GET_SCHEMA);
        struct.set(PTR, STREAM_GET_NEXT, GET_NEXT);
        struct.set(PTR, STREAM_GET_LAST_ERROR, GET_LAST_ERROR);
        struct.set(PTR, STREAM_PRIVATE, MemorySegment.ofAddress(id));
        struct.set(PTR, STREAM_RELEASE, RELEASE_STREAM);
    }

    static ArrowStream open(ArrowExport export, ChangeFilter changes, int since, MemorySegment given) {
        return new ArrowStream(export, changes, since, given);
    }

    /** Column {@code c}: the handle column first if there is one, then the fields. */
    private Field field(int c) {
        return fields[handles ? c - 1 : c];
    }

    /** Bytes copied per array for column {@code c}, 0 if its buffer is the block's column. */
    private long copiedBytes(int c) {
        if (handles && c == 0) {
            return 8L * slots;
        }
        Field f = field(c);
        if (f.type() == FieldType.BOOLEAN) {
            return align((slots + 7) / 8, 8);
        }
        return aos ? (long) f.type().byteSize() * slots : 0;
    }

    /**
     * {@return the address of the {@code struct ArrowArrayStream}, to hand to a consumer (e.g.
     * {@code org.apache.arrow.c.ArrowArrayStream.wrap(address)})} The struct stays readable as
     * long as this object is reachable (or, for {@link ArrowExport#openInto}, as long as the
     * caller keeps its memory).
     */
    public long address() {
        return struct.address();
    }

    /** {@return the stream struct itself (40 bytes)} */
    public MemorySegment struct() {
        return struct;
    }

    /** {@return the export this stream was opened from} */
    public ArrowExport export() {
        return export;
    }

    /**
     * {@return whether the stream and every schema and array it gave have been released: the
     * table is then writable and closable again (unless another export holds it)}
     */
    public boolean isReleased() {
        return finished;
    }

    /** {@return how many arrays (chunks) the consumer has taken so far} */
    public int arrayCount() {
        return arraysGiven.get();
    }

    /**
     * {@return the bytes copied so far into memory the stream owns: validity bitmaps of chunks
     * with holes, booleans, handles and AOS columns; never an SOA column's values}
     */
    public long bytesCopied() {
        return bytesCopied.get();
    }

    /**
     * Releases the stream struct from the Java side, as a consumer's {@code release} call
     * would, if no consumer has taken it: its {@code release} pointer is still set. Does nothing
     * if a consumer moved or released it (arrays it holds stay valid until it releases them).
     * Idempotent; any thread.
     */
    @Override
    public void close() {
        if (struct.get(PTR, STREAM_RELEASE).address() != 0) {
            releaseStream(struct);
        }
    }

    @Override
    public String toString() {
        return holder.replace(", not yet released by its consumer", finished ? ", released" : ", open");
    }

    // -------------------------------------------------------------------------------------
    // The callbacks (upcalls). Never throw: a Throwable escaping an upcall ends the JVM.

    private static ArrowStream of(MemorySegment stream) {
        return OPEN.get(stream.reinterpret(STREAM.byteSize()).get(PTR, STREAM_PRIVATE).address());
    }

    static int getSchema(MemorySegment stream, MemorySegment out) {
        try {
            ArrowStream s = of(stream);
            if (s == null) {
                return EINVAL;
            }
            return s.schemaInto(out.reinterpret(SCHEMA.byteSize()));
        } catch (Throwable t) {
            return EIO;
        }
    }

    static int getNext(MemorySegment stream, MemorySegment out) {
        try {
            ArrowStream s = of(stream);
            if (s == null) {
                return EINVAL;
            }
            return s.nextInto(out.reinterpret(ARRAY.byteSize()));
        } catch (Throwable t) {
            return EIO;
        }
    }

    static MemorySegment getLastError(MemorySegment stream) {
        try {
            ArrowStream s = of(stream);
            if (s == null) {
                return MemorySegment.NULL;
            }
            synchronized (s) {
                return s.lastError;
            }
        } catch (Throwable t) {
            return MemorySegment.NULL;
        }
    }

    static void releaseStream(MemorySegment stream) {
        try {
            MemorySegment st = stream.reinterpret(STREAM.byteSize());
            if (st.get(PTR, STREAM_RELEASE).address() == 0) {
                return;
            }
            ArrowStream s = OPEN.get(st.get(PTR, STREAM_PRIVATE).address());
            st.set(PTR, STREAM_RELEASE, MemorySegment.NULL);
            if (s != null) {
                s.releaseOwn();
            }
        } catch (Throwable t) {
            // nothing to report to: the consumer's release returns void
        }
    }

    static void releaseSchema(MemorySegment schema) {
        releaseStruct(schema.reinterpret(SCHEMA.byteSize()), SCHEMA_RELEASE, SCHEMA_PRIVATE);
    }

    static void releaseArray(MemorySegment array) {
        releaseStruct(array.reinterpret(ARRAY.byteSize()), ARRAY_RELEASE, ARRAY_PRIVATE);
    }

    /** Releases a schema or array struct: the batch's parent, or one of its children. */
    private static void releaseStruct(MemorySegment s, long releaseAt, long privateAt) {
        try {
            if (s.get(PTR, releaseAt).address() == 0) {
                return;
            }
            MemorySegment header = s.get(PTR, privateAt).reinterpret(16);
            ArrowStream stream = OPEN.get(header.get(I64, 0));
            if (stream == null) {
                return;
            }
            Batch batch;
            synchronized (stream) {
                batch = stream.batches.get(header.get(ValueLayout.JAVA_INT, 8));
            }
            batch.release(s);
        } catch (Throwable t) {
            // as above
        }
    }

    // -------------------------------------------------------------------------------------
    // Producing

    private synchronized void fail(String message) {
        lastError = arena.allocateFrom(message);
    }

    private int schemaInto(MemorySegment out) {
        synchronized (this) {
            if (streamReleased) {
                return EINVAL;
            }
            lastError = MemorySegment.NULL;
            long bytes = 16 + 8L * columns + SCHEMA.byteSize() * columns;
            MemorySegment mem = arena.allocate(align(bytes, 8), 8);
            Batch batch = newBatch(mem, true);
            long childrenPtrs = 16;
            long childStructs = 16 + 8L * columns;
            for (int c = 0; c < columns; c++) {
                MemorySegment child = mem.asSlice(childStructs + SCHEMA.byteSize() * c, SCHEMA.byteSize());
                mem.set(PTR, childrenPtrs + 8L * c, child);
                String name;
                String format;
                MemorySegment metadata = MemorySegment.NULL;
                if (handles && c == 0) {
                    name = export.handleColumn();
                    format = "l";
                    metadata = metadata(arena, "bulkdata.handle.target", table.name());
                } else {
                    Field f = field(c);
                    name = f.name();
                    format = format(f.type());
                    if (f instanceof HandleField h) {
                        metadata = metadata(arena, "bulkdata.handle.target", h.target());
                    }
                }
                writeSchema(child, format, name, metadata, FLAG_NULLABLE, 0, MemorySegment.NULL, mem);
            }
            writeSchema(out, "+s", table.name(), metadata(arena, "bulkdata.table", table.name()), 0, columns,
                    mem.asSlice(childrenPtrs, 8L * columns), mem);
            batch.retain(out, 1 + columns);
            return 0;
        }
    }

    private void writeSchema(MemorySegment s, String format, String name, MemorySegment metadata, long flags,
            long children, MemorySegment childArray, MemorySegment batchMem) {
        s.set(PTR, SCHEMA_FORMAT, arena.allocateFrom(format));
        s.set(PTR, SCHEMA_NAME, arena.allocateFrom(name));
        s.set(PTR, SCHEMA_METADATA, metadata);
        s.set(I64, SCHEMA_FLAGS, flags);
        s.set(I64, SCHEMA_N_CHILDREN, children);
        s.set(PTR, SCHEMA_CHILDREN, childArray);
        s.set(PTR, SCHEMA_DICTIONARY, MemorySegment.NULL);
        s.set(PTR, SCHEMA_PRIVATE, batchMem);
        s.set(PTR, SCHEMA_RELEASE, RELEASE_SCHEMA);
    }

    private synchronized int nextInto(MemorySegment out) {
        if (streamReleased) {
            return EINVAL;
        }
        lastError = MemorySegment.NULL;
        Chunk chunk;
        try {
            chunk = null;
            int count = chunks.count();
            while (nextChunk < count) {
                int i = nextChunk++;
                if (chunks.selects(i)) {
                    Chunk c = chunks.chunk(i);
                    if (c.liveCount() > 0) {
                        chunk = c;
                        break;
                    }
                }
            }
        } catch (RuntimeException e) {
            fail("bulkdata: table '" + table.name() + "' cannot be read: " + e.getMessage());
            return EIO;
        }
        if (chunk == null) {
            out.fill((byte) 0);                     // end of stream: release is NULL
            return 0;
        }
        Batch batch = free.poll();
        if (batch == null) {
            batch = newBatch(arena.allocate(batchBytes, 64), false);
        }
        writeArray(chunk, batch.mem, out);
        batch.retain(out, 1 + columns);
        arraysGiven.incrementAndGet();
        return 0;
    }

    private void writeArray(Chunk chunk, MemorySegment mem, MemorySegment out) {
        int live = chunk.liveCount();
        int length;
        if (live == slots) {
            length = slots;
        } else {
            int w = chunk.liveWordCount() - 1;
            long bits;
            while ((bits = chunk.liveBits(w)) == 0) {
                w--;
            }
            length = w * 64 + 64 - Long.numberOfLeadingZeros(bits);
        }
        long nulls = length - live;
        long copied = 0;
        MemorySegment validity = MemorySegment.NULL;
        if (nulls > 0) {
            int words = (length + 63) >>> 6;
            for (int w = 0; w < words; w++) {
                mem.set(I64, validityAt + 8L * w, chunk.liveBits(w));
            }
            validity = mem.asSlice(validityAt, 8L * words);
            copied += 8L * words;
        }
        MemorySegment records = null;
        for (int c = 0; c < columns; c++) {
            MemorySegment child = mem.asSlice(childrenAt + ARRAY.byteSize() * c, ARRAY.byteSize());
            long buffers = childBuffersAt + 16L * c;
            MemorySegment data;
            if (copyAt[c] < 0) {
                data = chunk.column(field(c));
            } else if (handles && c == 0) {
                data = mem.asSlice(copyAt[c], 8L * slots);
                ColumnCopies.handles(chunk, length, data);
                copied += 8L * length;
            } else {
                if (records == null) {
                    records = chunk.records();
                }
                Field f = field(c);
                data = mem.asSlice(copyAt[c], copiedBytes(c));
                copied += f.type() == FieldType.BOOLEAN
                        ? ColumnCopies.packBooleans(records, f, length, data)
                        : ColumnCopies.gather(records, f, length, data);
            }
            mem.set(PTR, buffers, validity);
            mem.set(PTR, buffers + 8, data);
            child.set(I64, ARRAY_LENGTH, length);
            child.set(I64, ARRAY_NULL_COUNT, nulls);
            child.set(I64, ARRAY_OFFSET, 0);
            child.set(I64, ARRAY_N_BUFFERS, 2);
            child.set(I64, ARRAY_N_CHILDREN, 0);
            child.set(PTR, ARRAY_BUFFERS, mem.asSlice(buffers, 16));
            child.set(PTR, ARRAY_CHILDREN, MemorySegment.NULL);
            child.set(PTR, ARRAY_DICTIONARY, MemorySegment.NULL);
            child.set(PTR, ARRAY_PRIVATE, mem);
            child.set(PTR, ARRAY_RELEASE, RELEASE_ARRAY);
            mem.set(PTR, parentChildrenAt + 8L * c, child);
        }
        mem.set(PTR, parentBuffersAt, MemorySegment.NULL);
        out.set(I64, ARRAY_LENGTH, length);
        out.set(I64, ARRAY_NULL_COUNT, 0);
        out.set(I64, ARRAY_OFFSET, 0);
        out.set(I64, ARRAY_N_BUFFERS, 1);
        out.set(I64, ARRAY_N_CHILDREN, columns);
        out.set(PTR, ARRAY_BUFFERS, mem.asSlice(parentBuffersAt, 8));
        out.set(PTR, ARRAY_CHILDREN, mem.asSlice(parentChildrenAt, 8L * columns));
        out.set(PTR, ARRAY_DICTIONARY, MemorySegment.NULL);
        out.set(PTR, ARRAY_PRIVATE, mem);
        out.set(PTR, ARRAY_RELEASE, RELEASE_ARRAY);
        bytesCopied.addAndGet(copied);
    }

    // -------------------------------------------------------------------------------------
    // Releasing

    /** A batch: the memory of one schema or one array (its children, buffers, copies). Guarded by this stream. */
    private Batch newBatch(MemorySegment mem, boolean schema) {
        Batch b = new Batch(mem, schema, batches.size());
        batches.add(b);
        mem.set(I64, 0, id);
        mem.set(ValueLayout.JAVA_INT, 8, b.index);
        return b;
    }

    private void releaseOwn() {
        synchronized (this) {
            if (streamReleased) {
                return;
            }
            streamReleased = true;
        }
        unref();
    }

    private void unref() {
        if (refs.decrementAndGet() == 0) {
            finish();
        }
    }

    private synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        OPEN.remove(id);
        try {
            chunks.close();
        } finally {
            arena.close();
        }
    }

    private final class Batch {
        final MemorySegment mem;
        final boolean schema;
        final int index;
        /** Structs of this batch not yet released: the parent and each child. Guarded by this batch. */
        int live;

        Batch(MemorySegment mem, boolean schema, int index) {
            this.mem = mem;
            this.schema = schema;
            this.index = index;
        }

        /** Hands the batch out: {@code structs} (parent and children) are now the consumer's. */
        void retain(MemorySegment parent, int structs) {
            synchronized (this) {
                live = structs;
            }
            refs.incrementAndGet();
        }

        /** Releases the parent (with every child not released yet) or one child. */
        void release(MemorySegment s) {
            long releaseAt = schema ? SCHEMA_RELEASE : ARRAY_RELEASE;
            long childBytes = schema ? SCHEMA.byteSize() : ARRAY.byteSize();
            long childrenStart = mem.address() + (schema ? 16 + 8L * columns : childrenAt);
            boolean done;
            synchronized (this) {
                if (s.get(PTR, releaseAt).address() == 0 || live == 0) {
                    return;
                }
                long a = s.address();
                boolean child = a >= childrenStart && a < childrenStart + childBytes * columns;
                if (!child) {
                    for (int c = 0; c < columns; c++) {
                        long at = childrenStart - mem.address() + childBytes * c;
                        if (mem.get(PTR, at + releaseAt).address() != 0) {
                            mem.set(PTR, at + releaseAt, MemorySegment.NULL);
                            live--;
                        }
                    }
                }
                s.set(PTR, releaseAt, MemorySegment.NULL);
                live--;
                done = live == 0;
            }
            if (done) {
                if (!schema) {
                    synchronized (ArrowStream.this) {
                        if (!finished) {
                            free.push(this);
                        }
                    }
                }
                unref();
            }
        }
    }
}
