package dev.bulkdata.storage;

/**
 * A table of fixed-size records in 16 KiB native blocks, referenced by 64-bit handles: the
 * interface every kind shares. {@link BulkTable} keeps each record in its slot,
 * {@link PackedTable} keeps the records packed in dense rows, and a builder's
 * {@code mapped(path)} gives either in a file ({@link MappedTable}). Guide:
 * docs/tables-and-handles.md.
 *
 * <p><b>Handles.</b> {@link #add()} returns a {@code long} holding the table's tag, the record's
 * slot and the slot's generation ({@link HandleLayout}). Every access by handle checks all three,
 * so the handle of a removed record, of another table or of a closed one, or a made-up one, is
 * rejected with {@link InvalidHandleException}, never misread; {@link #contains(long)} asks
 * without throwing.
 *
 * <p id="typed"><b>Typed access.</b> One {@code get} and one {@code set} per field type, each
 * taking a typed field of this table's schema: {@code table.set(h, X, table.get(h, X) + 1f)}.
 * O(1), allocation-free: one check of the handle, then one access to the record's bytes. They
 * throw {@link InvalidHandleException} for a null, stale, foreign or forged handle,
 * {@link IllegalArgumentException} for a field of another schema and
 * {@link IllegalStateException} once the table is closed.
 *
 * <p id="versions"><b>Change versions.</b> Every write through the API stamps the chunk it
 * touched with the table's version; {@link #markVersion()} returns it and moves it on, and a
 * filtered pass ({@link ChangeFilter}) visits only the chunks changed since a version. Guide:
 * docs/iteration-and-change-versions.md, "Change versions".
 *
 * <p><b>Errors and threads.</b> Every method that throws leaves the table exactly as it was. One
 * writer for structure ({@code add}, {@code remove}, {@code clear}, {@code reset},
 * {@code cancelAdd}, {@code defragment}, {@code close}); fields of distinct records may be read
 * and written from many threads. A structural change during an open pass throws
 * {@link java.util.ConcurrentModificationException} (queue it: {@link #removeLater},
 * {@link #addLater}); so does one that races another thread's. Guide: docs/errors-and-threads.md.
 * A table is {@link AutoCloseable}; one left unreachable unclosed is freed by a cleaner.
 */
public sealed interface Table extends AutoCloseable permits BulkTable, PackedTable, MappedTable, AbstractTable {
    /** {@return the table's name (its schema's name)} */
    String name();

    /** {@return the schema of the table's records} */
    Schema schema();

    /** {@return how this table's handles split into tag, generation and slot} */
    HandleLayout handleLayout();

    /**
     * Adds a record whose fields are all zero. O(1): reuses a hole if there is one (in a
     * {@link BulkTable}, in its {@link ReuseOrder}; {@link ReuseOrder#SWEEP} may step over up to
     * one summary word per 4,096 slots to find it), otherwise takes the next slot, allocating a
     * block when the last one is full (only the block directory is ever copied, by doubling).
     *
     * @return the new record's handle, never {@link Handles#NULL}
     * @throws CapacityExceededException if the slot space or native memory is used up
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    long add();

    /**
     * Adds {@code handlesOut.length} records, all fields zero, and writes their handles to
     * {@code handlesOut}. All or nothing: if they do not all fit, nothing is added.
     *
     * @param handlesOut receives the new handles
     * @throws CapacityExceededException if not all records fit
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    default void addAll(long[] handlesOut) {
        addAll(handlesOut, 0, handlesOut.length);
    }

    /**
     * Adds {@code to - from} records, all fields zero, writing their handles to
     * {@code handlesOut[from..to)}. All or nothing. O(count).
     *
     * @param handlesOut receives the new handles
     * @param from first index written
     * @param to one past the last index written
     * @throws IndexOutOfBoundsException if the range is not within the array
     * @throws CapacityExceededException if not all records fit
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void addAll(long[] handlesOut, int from, int to);

    /**
     * Adds {@code to - from} records as {@link #addAll(long[], int, int)} does and has
     * {@code init} write each one's fields through its chunk, a block's worth of records at a
     * time, so that each record is written while its memory is still in cache and no handle is
     * looked up again. During {@code init} an iteration of the table is open: chunk access works,
     * {@link #add()} and {@link #remove} throw, {@link #addLater}/{@link #removeLater} queue
     * (applied when the call returns). O(count).
     *
     * <p>If {@code init} throws for the record at {@code i}, the records before it stay added and
     * written, that record and the rest of the call's records are removed again (their handles
     * in {@code handlesOut} are stale), and the exception is thrown.
     *
     * @param handlesOut receives the new handles in {@code [from, to)}
     * @param from first index to write
     * @param to index after the last one to write
     * @param init writes a new record's fields
     * @throws IndexOutOfBoundsException if the range is not within {@code handlesOut}
     * @throws IllegalArgumentException if {@code init} is null
     * @throws CapacityExceededException as {@link #addAll(long[], int, int)}; the records of
     *     earlier blocks' worth stay added and written
     * @throws java.util.ConcurrentModificationException as {@link #add()}
     * @throws IllegalStateException if the table is closed
     */
    void addAll(long[] handlesOut, int from, int to, RecordInit init);

    /**
     * Undoes the {@link #add()} that returned {@code handle}, for code that initialises a new
     * record and must leave the table as it was when the initialisation fails:
     *
     * <pre>{@code
     * long h = table.add();
     * try {
     *     table.set(h, X, parse(text));
     * } catch (RuntimeException e) {
     *     table.cancelAdd(h);
     *     throw e;
     * }
     * }</pre>
     *
     * If {@code handle} came from this table's last structural change, its last
     * {@code add()}, the record is removed and the table's structure is exactly what it was
     * before that add: {@link #size()}, {@link #capacity()} and every count of {@link #stats()}
     * are equal, and the next {@code add()} takes the same slot. A block that add allocated is
     * kept as a zeroed spare for the next growth, outside {@link TableStats#nativeBytes()}. The
     * slot's generation still advances, so {@code handle} and any copy of it stay stale for
     * good; if that was the slot's last generation, the slot is retired as by
     * {@link #remove(long)} and the result is {@code false}.
     *
     * <p>Otherwise, if some other change came between (another add, a remove, a clear), a live
     * {@code handle} is removed as by {@link #remove(long)} and the result is {@code false};
     * a handle that is not live here (null, stale, foreign: for example a record the
     * initialiser already removed) is ignored and the result is {@code false}. O(fields).
     *
     * @param handle a handle this table's last add returned
     * @return whether the table's structure is now exactly what it was before that add
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    boolean cancelAdd(long handle);

    /**
     * Removes a record. Its slot's generation advances (so every copy of the handle becomes
     * stale) and the slot joins the free list, or is retired if its generation is used up. O(1):
     * no record byte is written; the record's old bytes stay until a later add zeroes them (the
     * add that reuses the slot, or in a {@link BulkTable} one that reuses another slot of its
     * 64-slot group while the group holds no record), and an add always hands out an all-zero
     * record.
     *
     * @param handle a live handle of this table
     * @throws InvalidHandleException if the handle is null, stale, foreign or forged
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void remove(long handle);

    /**
     * Removes several records. All or nothing: every handle is checked first (a handle given
     * twice counts as stale the second time) and nothing is removed if one fails.
     *
     * <p>Whatever the order of the handles, the records are removed in slot order
     * ({@link HandleLayout#slot(long)}): memory is touched in address order instead of at
     * random, and the freed slots join the free list in that order, so later adds reuse them
     * in address order too ({@link ReuseOrder#SWEEP} and {@link ReuseOrder#FIFO}; SWEEP reuses
     * holes in slot order whatever the order of removal). The
     * sort uses an {@code int[]} the table keeps (grown to the largest batch), so a call
     * allocates nothing once that batch size was seen. O(k log k) for k handles.
     *
     * @param handles live handles of this table
     * @throws InvalidHandleException naming the first bad handle and its position
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    default void removeAll(long[] handles) {
        removeAll(handles, 0, handles.length);
    }

    /**
     * Removes the records of {@code handles[from..to)}; all or nothing, as
     * {@link #removeAll(long[])}. O(count * fields).
     *
     * @param handles live handles of this table
     * @param from first index read
     * @param to one past the last index read
     * @throws IndexOutOfBoundsException if the range is not within the array
     * @throws InvalidHandleException naming the first bad handle and its position
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void removeAll(long[] handles, int from, int to);

    /**
     * Removes a record once no pass over the table is open: the way to remove records from
     * inside {@link #forEach}, {@link #forEachChunk} (also with an {@code Executor}), a loop over
     * {@link #iterate()}, or Kotlin's {@code forEach} and {@code processChunks}, where
     * {@link #remove} throws. While a pass is open the removal is queued and the record stays
     * live, readable and visited until the last open pass ends; then the queue is applied
     * ({@link #applyQueued()} gives the order). With no pass open it is {@link #remove}.
     *
     * <p>The handle is checked now: a handle that is not live throws here, not at the end of the
     * pass. A record queued twice is removed once. Any thread of a pass may queue (a parallel
     * pass's visitors too); the removals are applied in slot order whatever the order they
     * were queued in. O(1), allocates nothing once the table's queue exists (a bit per slot,
     * made at the first queued removal).
     *
     * @param handle a live handle of this table
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws java.util.ConcurrentModificationException with no pass open, as {@link #remove}
     * @throws IllegalStateException if the table is closed
     */
    void removeLater(long handle);

    /**
     * Adds a record once no pass over the table is open, and hands its handle to {@code init}
     * to write its fields: the way to add records from inside a pass, where {@link #add()}
     * throws. While a pass is open the add is queued: the record does not exist before the last
     * open pass ends (it is not visited, not counted in {@link #size()}, and has no handle yet:
     * {@code init} receives it). With no pass open the record is added and {@code init} runs at
     * once. If {@code init} throws, the record is taken back ({@link #cancelAdd}) and the
     * exception thrown. To add from the chunks of a parallel pass in an order that does not
     * depend on the threads, queue through the chunk ({@link Chunk#addLater}).
     *
     * <pre>{@code
     * table.forEach((chunk, s) -> {
     *     if (chunk.get(s, LIFE) <= 0f) {
     *         chunk.removeLater(s);                               // expired
     *         table.addLater(h -> table.set(h, LIFE, 1f));       // and a new one in its place
     *     }
     * });                                                         // both applied here
     * }</pre>
     *
     * @param init writes the new record's fields; it may read and write this table and add or
     *     remove at once (no pass is open when it runs)
     * @throws IllegalArgumentException if {@code init} is null
     * @throws CapacityExceededException with no pass open, as {@link #add()}
     * @throws IllegalStateException if the table is closed
     */
    void addLater(java.util.function.LongConsumer init);

    /**
     * Applies the changes queued by {@link #removeLater}, {@link #addLater} and
     * {@link Chunk#removeLater}/{@link Chunk#addLater}, which happens by itself when the last
     * open pass over the table ends; call it only to apply what is left after an {@code init}
     * threw. The order: every queued removal, in slot order, as one structural change; then the
     * queued adds, those queued through chunks in chunk-index order (in the order queued within
     * a chunk), then those queued through the table in the order queued. Removals go first, so
     * the adds reuse the freed slots and a table that expires and spawns as many records in a
     * pass does not grow. An {@code init} that throws stops the adds: its record is taken back,
     * the adds after it stay queued, and the exception is thrown (at the end of a pass that
     * threw itself, suppressed in the pass's exception). O(removals + adds + slots / 64).
     *
     * @return the number of records removed and added
     * @throws java.util.ConcurrentModificationException if a pass is open, or another thread is
     *     changing the table
     * @throws IllegalStateException if the table is closed
     */
    int applyQueued();

    /**
     * Whether a handle refers to a live record of this table. O(1); never throws for any
     * handle value, including after {@link #close()} (then it answers {@code false}).
     *
     * @param handle any value
     * @return {@code true} if {@code get}/{@code set}/{@code remove} would accept it
     */
    boolean contains(long handle);

    // The typed get and set by handle (Typed access), one pair per field type:
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


    /**
     * Returns the number of live records; O(1).
     *
     * @return the number of live records; O(1)
     * @throws IllegalStateException if the table is closed
     */
    int size();

    /**
     * Returns whether {@link #size()} is 0.
     *
     * @return whether {@link #size()} is 0
     * @throws IllegalStateException if the table is closed
     */
    default boolean isEmpty() {
        return size() == 0;
    }

    /**
     * Returns how many records the table can hold without allocating another block; O(1).
     *
     * @return how many records the table can hold without allocating another block; O(1)
     * @throws IllegalStateException if the table is closed
     */
    int capacity();

    /**
     * Removes every record: every handle handed out so far becomes stale, and the blocks stay
     * for reuse. O(slots opened): each live slot's generation advances (one pass over the slots'
     * metadata; no record byte is written). A slot at its last generation moves the table to its
     * next epoch if its layout has {@link HandleLayout#epochBits() epoch bits}, else retires. See
     * {@link #reset()}, the O(blocks) purge.
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void clear();

    /**
     * Removes every record at once, the fast purge of a table emptied and refilled every frame
     * (the {@code reset()} of the article "Game Engine Containers - handle_map"): like
     * {@link #clear()}, every handle from before is stale ({@code STALE}) and the next adds take
     * the same slots and blocks again, but no slot is looked at: O(blocks), whatever the number
     * of records (the live bits of each block that held records; a {@link ReuseOrder#SWEEP}
     * table's free bits, one step per 4,096 slots). The tag is kept; the structure version of
     * every block that held a record moves on; a mapped table saves the new state at its next
     * checkpoint. Each reset takes one generation (past the last, the next epoch of a layout
     * with {@link HandleLayout#epochBits() epoch bits}); once the budget is spent it retires the
     * live slots at their last generation as {@code clear()} does, and costs what it costs.
     * Contract and budget: docs/tables-and-handles.md, "Emptying a table" and "Generation
     * budget".
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open (nothing changes)
     * @throws IllegalStateException if the table is closed or corrupt
     */
    void reset();

    /**
     * Frees all native memory and the table's tag. Idempotent. Succeeds also while an
     * iteration is open (its chunks then throw {@link IllegalStateException}) and on a corrupt
     * table, unless an open iteration holds the table open ({@link ChunkIteration#holding},
     * as an Arrow export does while its consumer may read the blocks). A mapped table is
     * checkpointed first (unless corrupt: then the file keeps its last checkpoint), then
     * unmapped and its file unlocked and closed.
     *
     * @throws IllegalStateException if an open iteration holds the table open, naming its
     *     holders; the table is then unchanged and still open
     * @throws java.io.UncheckedIOException if the checkpoint of a mapped table fails; the table
     *     is closed all the same and its file holds the checkpoint before
     */
    @Override
    void close();

    /** {@return whether {@link #close()} has been called} */
    boolean isClosed();

    /**
     * Opens an iteration over the table's chunks (one per block). While it is open, adding,
     * removing or clearing fails with {@link java.util.ConcurrentModificationException};
     * field reads and writes are allowed, from many threads for distinct records. Close it
     * when done, best with try-with-resources:
     *
     * <pre>{@code
     * try (ChunkIteration chunks = table.iterate()) {
     *     for (Chunk chunk : chunks) { ... }
     * }
     * }</pre>
     *
     * @return the open iteration
     * @throws IllegalStateException if the table is closed
     */
    ChunkIteration iterate();

    /**
     * Opens an iteration whose iterator yields only the chunks that changed after
     * {@code since} in a way {@code changes} looks for (see Change versions, in the class
     * documentation); {@link ChunkIteration#selects(int)} tells code that hands chunks out by
     * index which to take. Each chunk is tested when the pass reaches it: O(fields of the
     * filter) per chunk, nothing per record.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @return the open iteration
     * @throws IllegalArgumentException if {@code changes} is null or names fields of another schema
     * @throws IllegalStateException if the table is closed
     */
    ChunkIteration iterate(ChangeFilter changes, int since);

    /**
     * Visits every chunk, in order, with an iteration open for the duration of the call.
     * Allocation-free.
     *
     * @param visitor receives each chunk
     * @throws IllegalStateException if the table is closed
     */
    void forEachChunk(ChunkVisitor visitor);

    /**
     * Visits, in order, the chunks that changed after {@code since} in a way {@code changes}
     * looks for (see Change versions, in the class documentation), with an iteration open for
     * the duration of the call. Each chunk is tested when the pass reaches it. Allocation-free;
     * O(chunks x fields of the filter) plus the visits.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param visitor receives each chunk that changed
     * @throws IllegalArgumentException if {@code changes} is null or names fields of another schema
     * @throws IllegalStateException if the table is closed
     */
    void forEachChunk(ChangeFilter changes, int since, ChunkVisitor visitor);

    /**
     * Visits every chunk on several threads: the calling thread and up to
     * {@code parallelism - 1} tasks submitted to {@code executor} take chunks from a shared
     * counter, so each chunk is visited once, by one of them, in no particular order. One
     * iteration is open for the whole pass; the call returns once every visit has ended, and
     * every visitor's writes happen-before the return. A few objects per pass, none per chunk.
     *
     * <p>A visitor may read and write the records of its chunk, and read records no visitor
     * writes; an add, remove, clear, cancelAdd or defragment throws
     * {@link java.util.ConcurrentModificationException} naming the thread (queue them:
     * {@link Chunk#removeLater}, {@link Chunk#addLater}). The first exception stops the pass (no
     * chunk is started after it) and is rethrown once every visit has ended, with the others
     * suppressed in it. A task the executor rejects is not retried: the other threads take its
     * chunks. Guide: docs/errors-and-threads.md, "Parallel chunks in Java".
     *
     * @param executor runs the helper tasks; the calling thread works too, so a busy pool, or
     *     the caller's own, cannot deadlock the pass
     * @param parallelism the most threads visiting chunks at once, the calling one included; at least 1
     * @param visitor receives each chunk, on any of those threads; the chunk is valid during the call
     * @throws IllegalArgumentException if {@code executor} or {@code visitor} is null or
     *     {@code parallelism < 1}
     * @throws IllegalStateException if the table is closed
     */
    void forEachChunk(java.util.concurrent.Executor executor, int parallelism, ChunkVisitor visitor);

    /**
     * {@link #forEachChunk(java.util.concurrent.Executor, int, ChunkVisitor)} over the chunks
     * that changed after {@code since} in a way {@code changes} looks for (see Change versions,
     * in the class documentation); each chunk is tested when a thread takes it, before its
     * visit. Same rules.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param executor runs the helper tasks
     * @param parallelism the most threads visiting chunks at once, the calling one included; at least 1
     * @param visitor receives each chunk that changed, on any of those threads
     * @throws IllegalArgumentException if {@code changes}, {@code executor} or {@code visitor}
     *     is null, {@code changes} names fields of another schema, or {@code parallelism < 1}
     * @throws IllegalStateException if the table is closed
     */
    void forEachChunk(ChangeFilter changes, int since, java.util.concurrent.Executor executor, int parallelism,
                      ChunkVisitor visitor);

    /**
     * Visits every live record, in slot order, with an iteration open for the duration of the
     * call. Holes are skipped 64 slots at a time. Allocation-free.
     *
     * @param visitor receives each live record as (chunk, slot)
     * @throws IllegalStateException if the table is closed
     */
    void forEach(RecordVisitor visitor);

    /**
     * Visits every live record of the chunks that changed after {@code since} in a way
     * {@code changes} looks for, in slot order, with an iteration open for the duration of the
     * call: {@link #forEachChunk(ChangeFilter, int, ChunkVisitor)} with every live record of
     * each chunk visited. A chunk is the unit: its unchanged records are visited too.
     * Allocation-free.
     *
     * @param changes what counts as a change
     * @param since a version from {@link #markVersion()}
     * @param visitor receives each live record of a changed chunk as (chunk, slot)
     * @throws IllegalArgumentException if {@code changes} is null or names fields of another schema
     * @throws IllegalStateException if the table is closed
     */
    void forEach(ChangeFilter changes, int since, RecordVisitor visitor);

    /**
     * Returns the table's current change version and moves its counter on: every write before
     * this call is stamped with the returned version or an earlier one, every write after it
     * with a later one. Record the result after a pass, and give it to the next pass to visit
     * only what changed since (see Change versions, in the class documentation). O(1) (once in
     * 2^29 calls, O(chunks x fields)); call it on the writer thread while no other thread
     * writes the table.
     *
     * @return the version of everything written so far
     * @throws IllegalStateException if the table is closed
     */
    int markVersion();

    /**
     * Returns counts and memory of the table; O(1). After {@link #close()} every count is 0,
     * native bytes included: the memory is freed.
     *
     * @return counts and memory of the table
     * @throws IllegalStateException if the table is corrupt (see Threads)
     */
    TableStats stats();

    /**
     * Formats a handle with this table's name and layout: {@code particles#42@3}. Works for any
     * value and after close.
     *
     * @param handle any value
     * @return the readable form; {@code "null"} for {@link Handles#NULL}
     */
    String format(long handle);
}
