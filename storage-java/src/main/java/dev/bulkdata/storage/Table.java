package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;

/**
 * A table of fixed-size records in 16 KiB native blocks, referenced by 64-bit handles: the interface every kind
 * shares. {@link BulkTable} keeps each record in its slot, {@link PackedTable} packs them in dense rows, and a
 * builder's {@code mapped(path)} gives either in a file ({@link MappedTable}). Guide: docs/tables-and-handles.md.
 *
 * <p><b>Handles.</b> {@link #add()} returns a {@code long} holding the table's tag, the record's slot and the slot's
 * generation ({@link HandleLayout}). Every access by handle checks all three, so a null handle, the handle of a removed
 * record, of another table or of a closed one, or a made-up one, is rejected with {@link InvalidHandleException}, never
 * misread; {@link #contains(long)} asks without throwing.
 *
 * <p id="typed"><b>Typed access.</b> One {@code get} and one {@code set} per field type, each taking a typed field of
 * this table's schema. O(1), allocation-free: one check of the handle (as above), then one access to the record's
 * bytes; a field of another schema throws {@link IllegalArgumentException}.
 *
 * <p id="versions"><b>Change versions.</b> Every write through the API stamps the chunk it touched with the table's
 * version; {@link #markVersion()} returns it and moves it on, and a filtered pass ({@link ChangeFilter}) visits only
 * the chunks changed since a version. A method given a {@code ChangeFilter} throws {@link IllegalArgumentException} if
 * it is null or names fields of another schema. Guide: docs/iteration-and-change-versions.md, "Change versions".
 *
 * <p><b>Errors and threads.</b> A method that throws leaves the table as it was unless its doc says otherwise (a
 * visitor's own writes stay). Once closed, every method throws {@link IllegalStateException} except {@code name},
 * {@code schema}, {@code handleLayout}, {@code contains}, {@code format}, {@code stats}, {@code isClosed},
 * {@code close} and the kinds' {@code reuseOrder} and {@code openedCheckpoint}. One writer for structure ({@code add}, {@code addAll}, {@code cancelAdd},
 * {@code remove}, {@code removeAll}, {@code clear}, {@code reset}, {@code defragment}) and {@code close}; distinct
 * records' fields may be read and written from many threads. A structural change during an open pass, or racing another
 * thread's, throws {@link java.util.ConcurrentModificationException} (queue it: {@link #removeLater},
 * {@link #addLater}). Guide: docs/errors-and-threads.md. An unreachable unclosed table is freed by a cleaner.
 */
public sealed interface Table extends AutoCloseable permits BulkTable, PackedTable, MappedTable, AbstractTable {
    /** {@return the table's name (its schema's name)} */
    String name();

    /** {@return the schema of the table's records} */
    Schema schema();

    /** {@return how this table's handles split into tag, generation and slot} */
    HandleLayout handleLayout();

    /**
     * Adds a record whose fields are all zero. O(1): reuses a hole if there is one (in a {@link BulkTable}, in its
     * {@link ReuseOrder}), otherwise takes the next slot, allocating a block when the last one is full.
     *
     * @return the new record's handle, never {@link Handles#NULL}
     * @throws CapacityExceededException if the slot space or native memory is used up
     */
    long add();

    /**
     * {@link #addAll(long[], int, int)} over the whole array.
     *
     * @param handlesOut receives the new handles
     */
    default void addAll(long[] handlesOut) {
        addAll(handlesOut, 0, handlesOut.length);
    }

    /**
     * Adds {@code to - from} zeroed records, their handles to {@code handlesOut[from..to)}; all or nothing: if they
     * do not all fit, nothing is added. O(count).
     *
     * @param handlesOut receives the new handles
     * @param from first index written
     * @param to one past the last index written
     * @throws IndexOutOfBoundsException if the range is not within the array
     * @throws CapacityExceededException if not all records fit
     */
    void addAll(long[] handlesOut, int from, int to);

    /**
     * {@link #addAll(long[], int, int)}, then {@code init} writes each record through its chunk, a block's worth at a
     * time, inside an open iteration ({@link #add()}/{@link #remove} throw, {@code addLater}/{@code removeLater}
     * queue). O(count). If {@code init} throws for record {@code i}, the records before it stay, the rest are removed
     * again (handles stale) and the exception is thrown. Guide: docs/tables-and-handles.md, "Holes and their reuse".
     *
     * @param handlesOut receives the new handles in {@code [from, to)}
     * @param from first index to write
     * @param to index after the last one to write
     * @param init writes a new record's fields
     * @throws IllegalArgumentException if {@code init} is null
     * @throws CapacityExceededException as {@link #addAll(long[], int, int)}; the records of earlier blocks' worth
     *     stay added and written
     */
    void addAll(long[] handlesOut, int from, int to, RecordInit init);

    /**
     * Undoes the {@link #add()} that returned {@code handle}, for a failed initialisation. If that add was the last
     * structural change, the structure is exactly as before it ({@link #size()}, {@link #capacity()}, every
     * {@link #stats()} count; the next {@code add()} takes the same slot; an allocated block stays as a zeroed spare
     * outside {@link TableStats#nativeBytes()}). The generation still advances, so {@code handle} is stale; at the
     * slot's last generation it retires as by {@link #remove(long)} and the result is {@code false}. Otherwise (result
     * {@code false}) a live {@code handle} is removed as by {@code remove}, one not live is ignored. O(fields).
     *
     * @param handle a handle this table's last add returned
     * @return whether the table's structure is now exactly what it was before that add
     */
    boolean cancelAdd(long handle);

    /**
     * Removes a record: the slot's generation advances (every copy of the handle is stale) and the slot is freed, or
     * retires at its last generation. O(1), no record byte written.
     *
     * @param handle a live handle of this table
     */
    void remove(long handle);

    /**
     * {@link #removeAll(long[], int, int)} over the whole array.
     *
     * @param handles live handles of this table
     */
    default void removeAll(long[] handles) {
        removeAll(handles, 0, handles.length);
    }

    /**
     * Removes the records of {@code handles[from..to)}, all or nothing: every handle is checked first (one given
     * twice is stale the second time). Removed, and later reused, in slot order. Allocates nothing once a batch of
     * that size was seen. O(k log k) for k handles.
     *
     * @param handles live handles of this table
     * @param from first index read
     * @param to one past the last index read
     * @throws IndexOutOfBoundsException if the range is not within the array
     * @throws InvalidHandleException naming the first bad handle and its position
     */
    void removeAll(long[] handles, int from, int to);

    /**
     * Removes a record once no pass is open: the way to remove inside a pass, where {@link #remove} throws. The
     * record stays live and visited until the last open pass ends ({@link #applyQueued()}); with no pass open it is
     * {@link #remove}. The handle is checked now; queued twice, removed once; any thread of a pass may queue. O(1),
     * allocation-free once the queue exists. Guide: docs/iteration-and-change-versions.md, "Changes during a pass".
     *
     * @param handle a live handle of this table
     */
    void removeLater(long handle);

    /**
     * Adds a record once no pass is open and hands its handle to {@code init}: the way to add inside a pass. Until
     * the last open pass ends the record does not exist (not visited, not in {@link #size()}); with no pass open it
     * is added at once. If {@code init} throws, the record is taken back ({@link #cancelAdd}). For a
     * thread-independent order use {@link Chunk#addLater}.
     *
     * @param init writes the new record's fields; it may add and remove at once (no pass is open when it runs)
     * @throws IllegalArgumentException if {@code init} is null
     * @throws CapacityExceededException with no pass open, as {@link #add()}
     */
    void addLater(java.util.function.LongConsumer init);

    /**
     * Applies what {@code removeLater}/{@code addLater} of the table and of {@link Chunk} queued; the last open
     * pass's end does this: call it only for what is left after an {@code init} threw. Order: removals in slot order,
     * as one structural change; then chunk-queued adds in chunk order; then table-queued adds as queued. A throwing
     * {@code init} stops the adds: its record is taken back, later ones stay queued. O(removals + adds + slots/64).
     *
     * @return the number of records removed and added
     * @throws java.util.ConcurrentModificationException if a pass is open, or another thread is changing the table
     */
    int applyQueued();

    /**
     * {@return whether {@code handle} is live in this table: whether {@code get}/{@code set}/{@code remove} would
     * accept it} O(1); never throws, {@code false} after close.
     *
     * @param handle any value
     */
    boolean contains(long handle);

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/Table.java by codegen/Generate.java: edit the template, not these lines
    /** Reads a {@code byte} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    byte get(long handle, ByteField field);

    /** Writes a {@code byte} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, ByteField field, byte value);

    /** Reads a {@code short} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    short get(long handle, ShortField field);

    /** Writes a {@code short} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, ShortField field, short value);

    /** Reads a {@code char} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    char get(long handle, CharField field);

    /** Writes a {@code char} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, CharField field, char value);

    /** Reads an {@code int} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    int get(long handle, IntField field);

    /** Writes an {@code int} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, IntField field, int value);

    /** Reads a {@code long} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    long get(long handle, LongField field);

    /** Writes a {@code long} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, LongField field, long value);

    /** Reads a {@code float} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    float get(long handle, FloatField field);

    /** Writes a {@code float} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, FloatField field, float value);

    /** Reads a {@code double} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    double get(long handle, DoubleField field);

    /** Writes a {@code double} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, DoubleField field, double value);

    /** Reads a {@code boolean} field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    boolean get(long handle, BooleanField field);

    /** Writes a {@code boolean} field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, BooleanField field, boolean value);

    /** Reads a handle field ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    long get(long handle, HandleField field);

    /** Writes a handle field, stamping its chunk's change version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(long handle, HandleField field, long value);
    // @end-generated


    /** {@return the number of live records; O(1)} */
    int size();

    /** {@return whether {@link #size()} is 0} */
    default boolean isEmpty() {
        return size() == 0;
    }

    /** {@return how many records the table can hold without allocating another block; O(1)} */
    int capacity();

    /**
     * Removes every record (all handles stale; blocks kept). O(slots opened), no record byte written. A slot at its
     * last generation retires, or with {@link HandleLayout#epochBits() epoch bits} moves the table to its next epoch.
     */
    void clear();

    /**
     * {@link #clear()} in O(blocks), looking at no slot; the next adds take the same slots and blocks, the tag is
     * kept, and each block that held a record gets a new structure version. Each reset takes one generation (then the
     * next epoch, with epoch bits); once spent it costs what {@code clear()} does. Guide: docs/tables-and-handles.md,
     * "Emptying a table".
     *
     * @throws IllegalStateException if the table is corrupt
     */
    void reset();

    /**
     * Frees all native memory and the tag; idempotent. Succeeds with an iteration open (its chunks then throw
     * {@link IllegalStateException}) and when corrupt, unless an iteration {@link ChunkIteration#holding holds} it
     * open. A mapped table is checkpointed (unless corrupt), unmapped and its file unlocked and closed.
     *
     * @throws IllegalStateException if an iteration holds it open, naming its holders; the table stays as it was
     * @throws java.io.UncheckedIOException if the checkpoint of a mapped table fails; the table is closed all the
     *     same and its file holds the checkpoint before
     */
    @Override
    void close();

    /** {@return whether {@link #close()} has been called} */
    boolean isClosed();

    /** {@return an open iteration over the chunks (one per block); close it} Fields stay accessible meanwhile. */
    ChunkIteration iterate();

    /**
     * {@link #iterate()} yielding only chunks changed after {@code since} as {@code changes} looks for;
     * {@link ChunkIteration#selects(int)} answers by index. O(fields of the filter) per chunk.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @return the open iteration
     */
    ChunkIteration iterate(ChangeFilter changes, int since);

    /**
     * Visits every chunk in order inside one open iteration. Allocation-free.
     *
     * @param visitor receives each chunk
     */
    void forEachChunk(ChunkVisitor visitor);

    /**
     * {@link #forEachChunk(ChunkVisitor)} over the chunks changed as {@link #iterate(ChangeFilter, int)} selects
     * them, each tested when reached. Allocation-free.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param visitor receives each chunk that changed
     */
    void forEachChunk(ChangeFilter changes, int since, ChunkVisitor visitor);

    /**
     * Visits every chunk once, in no order, on the calling thread and up to {@code parallelism - 1} {@code executor}
     * tasks sharing a counter, inside one iteration; it returns once every visit has ended, all visitors' writes
     * happening-before. A few objects per pass. A visitor may write its chunk's records and read records no visitor
     * writes; a structural change throws {@link java.util.ConcurrentModificationException} (queue it on the
     * {@link Chunk}). The first exception stops the pass and is rethrown at the end, others suppressed in it; a
     * rejected task's chunks go to the other threads. Guide: docs/errors-and-threads.md, "Parallel chunks in Java".
     *
     * @param executor runs the helper tasks; the calling thread works too, so a busy pool, or the caller's own,
     *     cannot deadlock the pass
     * @param parallelism the most threads visiting chunks at once, the calling one included; at least 1
     * @param visitor receives each chunk, on any of those threads; the chunk is valid during the call
     * @throws IllegalArgumentException if {@code executor} or {@code visitor} is null or {@code parallelism < 1}
     */
    void forEachChunk(java.util.concurrent.Executor executor, int parallelism, ChunkVisitor visitor);

    /**
     * {@link #forEachChunk(java.util.concurrent.Executor, int, ChunkVisitor)} over the chunks changed as
     * {@link #iterate(ChangeFilter, int)} selects them, each tested when taken.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param executor runs the helper tasks
     * @param parallelism the most threads visiting chunks at once, the calling one included; at least 1
     * @param visitor receives each chunk that changed, on any of those threads
     */
    void forEachChunk(ChangeFilter changes, int since, java.util.concurrent.Executor executor, int parallelism,
                      ChunkVisitor visitor);

    /**
     * Visits every live record in slot order in one open iteration, skipping holes 64 at a time. Allocation-free.
     *
     * @param visitor receives each live record as (chunk, slot)
     */
    void forEach(RecordVisitor visitor);

    /**
     * {@link #forEach(RecordVisitor)} over the chunks changed as {@link #iterate(ChangeFilter, int)} selects them; a
     * changed chunk's unchanged records are visited too. Allocation-free.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param visitor receives each live record of a changed chunk as (chunk, slot)
     */
    void forEach(ChangeFilter changes, int since, RecordVisitor visitor);

    /**
     * {@return the current change version, that of everything written so far} Moves it on: writes before the call
     * carry it or an earlier one, writes after a later one ({@linkplain ##versions Change versions}). O(1) (once in
     * 2^29 calls O(chunks x fields)); call it while no other thread writes the table.
     */
    int markVersion();

    /**
     * {@return counts and memory of the table; O(1)} After {@link #close()} every count is 0.
     *
     * @throws IllegalStateException if the table is corrupt (docs/errors-and-threads.md)
     */
    TableStats stats();

    /**
     * {@return {@code handle} in readable form, with this table's name and layout ({@code particles#42@3});
     * {@code "null"} for {@link Handles#NULL}} Any value, even after close.
     *
     * @param handle any value
     */
    String format(long handle);
}
