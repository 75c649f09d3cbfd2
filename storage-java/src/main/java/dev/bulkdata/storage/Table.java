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
 * taking a typed field of this table's schema. O(1), allocation-free: one check of the handle,
 * then one access to the record's bytes. They throw {@link InvalidHandleException} for a null,
 * stale, foreign or forged handle, {@link IllegalArgumentException} for a field of another
 * schema and {@link IllegalStateException} once the table is closed.
 *
 * <p id="versions"><b>Change versions.</b> Every write through the API stamps the chunk it
 * touched with the table's version; {@link #markVersion()} returns it and moves it on, and a
 * filtered pass ({@link ChangeFilter}) visits only the chunks changed since a version. Guide:
 * docs/iteration-and-change-versions.md, "Change versions".
 *
 * <p><b>Errors and threads.</b> Every method that throws leaves the table exactly as it was. One
 * writer for structure ({@code add}, {@code remove}, {@code clear}, {@code reset},
 * {@code cancelAdd}, {@code defragment}, {@code close}); fields of distinct records may be read
 * and written from many threads. A structural change during an open pass, or racing another
 * thread's, throws {@link java.util.ConcurrentModificationException} (queue it:
 * {@link #removeLater}, {@link #addLater}). Guide: docs/errors-and-threads.md. A table is
 * {@link AutoCloseable}; one left unreachable unclosed is freed by a cleaner.
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
     * {@link BulkTable}, in its {@link ReuseOrder}), otherwise takes the next slot, allocating a
     * block when the last one is full (only the block directory is ever copied, by doubling).
     *
     * @return the new record's handle, never {@link Handles#NULL}
     * @throws CapacityExceededException if the slot space or native memory is used up
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    long add();

    /**
     * {@link #addAll(long[], int, int)} over the whole array.
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
     * {@code handlesOut[from..to)}. All or nothing: if they do not all fit, nothing is added.
     * O(count).
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
     * Adds records as {@link #addAll(long[], int, int)} and has {@code init} write each one's
     * fields through its chunk, a block's worth at a time. During {@code init} an iteration is
     * open: chunk access works, {@link #add()} and {@link #remove} throw, {@link #addLater} and
     * {@link #removeLater} queue. O(count). If {@code init} throws for record {@code i}, the
     * records before it stay added and written, the rest of the call's are removed again (their
     * handles stale) and the exception is thrown. Guide: docs/tables-and-handles.md, "Holes and
     * their reuse".
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
     * Undoes the {@link #add()} that returned {@code handle}, for an initialisation that failed.
     * If that add was the table's last structural change, the record is removed and the
     * structure is exactly as before it: {@link #size()}, {@link #capacity()} and every count of
     * {@link #stats()} are equal, and the next {@code add()} takes the same slot (a block the add
     * allocated is kept as a zeroed spare, outside {@link TableStats#nativeBytes()}). The slot's
     * generation still advances, so {@code handle} stays stale; at the slot's last generation the
     * slot retires as by {@link #remove(long)} and the result is {@code false}.
     *
     * <p>Otherwise (another change came between) a live {@code handle} is removed as by
     * {@link #remove(long)}, one not live here is ignored, and the result is {@code false}.
     * O(fields).
     *
     * @param handle a handle this table's last add returned
     * @return whether the table's structure is now exactly what it was before that add
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    boolean cancelAdd(long handle);

    /**
     * Removes a record: its slot's generation advances (every copy of the handle becomes stale)
     * and the slot joins the free list, or retires if its generation is used up. O(1): no record
     * byte is written; a later add zeroes the record it hands out.
     *
     * @param handle a live handle of this table
     * @throws InvalidHandleException if the handle is null, stale, foreign or forged
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void remove(long handle);

    /**
     * {@link #removeAll(long[], int, int)} over the whole array.
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
     * Removes the records of {@code handles[from..to)}. All or nothing: every handle is checked
     * first (one given twice is stale the second time) and nothing is removed if one fails.
     * Whatever their order, records are removed in slot order, so memory is touched, and freed
     * slots later reused, in address order. Allocates nothing once a batch of that size was seen.
     * O(k log k) for k handles.
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
     * Removes a record once no pass over the table is open: the way to remove from inside
     * {@link #forEach}, {@link #forEachChunk} or a loop over {@link #iterate()}, where
     * {@link #remove} throws. While a pass is open the record stays live and visited until the
     * last open pass ends, then the queue is applied ({@link #applyQueued()}); with no pass open
     * it is {@link #remove}. The handle is checked now; a record queued twice is removed once;
     * any thread of a pass may queue. O(1), allocation-free once the table's queue exists.
     * Guide: docs/iteration-and-change-versions.md, "Changes during a pass".
     *
     * @param handle a live handle of this table
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws java.util.ConcurrentModificationException with no pass open, as {@link #remove}
     * @throws IllegalStateException if the table is closed
     */
    void removeLater(long handle);

    /**
     * Adds a record once no pass over the table is open and hands its handle to {@code init}:
     * the way to add from inside a pass, where {@link #add()} throws. While a pass is open the
     * add is queued and the record does not exist (not visited, not in {@link #size()}) until the
     * last open pass ends; with no pass open it is added and {@code init} runs at once. If
     * {@code init} throws, the record is taken back ({@link #cancelAdd}) and the exception
     * thrown. For an order independent of threads in a parallel pass, use {@link Chunk#addLater}.
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
     * {@link Chunk#removeLater}/{@link Chunk#addLater}; the end of the last open pass does this
     * by itself, so call it only to apply what is left after an {@code init} threw. Order: every
     * queued removal in slot order, as one structural change; then the adds queued through
     * chunks in chunk order, then those queued through the table in the order queued. An
     * {@code init} that throws stops the adds: its record is taken back, the later adds stay
     * queued, and the exception is thrown. O(removals + adds + slots / 64).
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
     * {@return the number of live records; O(1)}
     *
     * @throws IllegalStateException if the table is closed
     */
    int size();

    /**
     * {@return whether {@link #size()} is 0}
     *
     * @throws IllegalStateException if the table is closed
     */
    default boolean isEmpty() {
        return size() == 0;
    }

    /**
     * {@return how many records the table can hold without allocating another block; O(1)}
     *
     * @throws IllegalStateException if the table is closed
     */
    int capacity();

    /**
     * Removes every record: every handle handed out so far becomes stale; the blocks stay for
     * reuse. O(slots opened): each live slot's generation advances, no record byte is written. A
     * slot at its last generation moves the table to its next epoch if its layout has
     * {@link HandleLayout#epochBits() epoch bits}, else retires. {@link #reset()} is the O(blocks)
     * purge.
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void clear();

    /**
     * Removes every record in O(blocks), looking at no slot: as with {@link #clear()} every handle
     * from before is stale and the next adds take the same slots and blocks. The tag is kept; the
     * structure version of every block that held a record moves on; a mapped table saves the new
     * state at its next checkpoint. Each reset takes one generation (past the last, the next
     * epoch, if the layout has {@link HandleLayout#epochBits() epoch bits}); once that budget is
     * spent it costs what {@code clear()} costs. Guide: docs/tables-and-handles.md, "Emptying a
     * table" and "Generation budget".
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open (nothing changes)
     * @throws IllegalStateException if the table is closed or corrupt
     */
    void reset();

    /**
     * Frees all native memory and the table's tag. Idempotent. Succeeds while an iteration is
     * open (its chunks then throw {@link IllegalStateException}) and on a corrupt table, unless an
     * open iteration holds the table open ({@link ChunkIteration#holding}). A mapped table is
     * checkpointed first (unless corrupt), then unmapped and its file unlocked and closed.
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
     * Opens an iteration over the table's chunks (one per block); close it, best with
     * try-with-resources. While it is open, adding, removing or clearing throws
     * {@link java.util.ConcurrentModificationException}; field reads and writes are allowed, from
     * many threads for distinct records.
     *
     * @return the open iteration
     * @throws IllegalStateException if the table is closed
     */
    ChunkIteration iterate();

    /**
     * Opens an iteration whose iterator yields only the chunks that changed after
     * {@code since} in a way {@code changes} looks for ({@linkplain ##versions Change versions});
     * {@link ChunkIteration#selects(int)} tells code that hands chunks out by index which to
     * take. O(fields of the filter) per chunk, nothing per record.
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
     * {@link #forEachChunk(ChunkVisitor)} over the chunks that changed after {@code since} in a
     * way {@code changes} looks for ({@linkplain ##versions Change versions}), each tested when
     * the pass reaches it. Allocation-free; O(chunks x fields of the filter) plus the visits.
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
     * {@code parallelism - 1} tasks on {@code executor} take chunks from a shared counter, so
     * each chunk is visited once, in no particular order. One iteration is open for the whole
     * pass; the call returns once every visit has ended, and every visitor's writes
     * happen-before the return. A few objects per pass, none per chunk.
     *
     * <p>A visitor may read and write its chunk's records and read records no visitor writes;
     * a structural change throws {@link java.util.ConcurrentModificationException} naming the
     * thread (queue it: {@link Chunk#removeLater}, {@link Chunk#addLater}). The first exception
     * stops the pass and is rethrown once every visit has ended, the others suppressed in it. A
     * task the executor rejects is not retried: the other threads take its chunks. Guide:
     * docs/errors-and-threads.md, "Parallel chunks in Java".
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
     * that changed after {@code since} in a way {@code changes} looks for, each tested when a
     * thread takes it. Same rules.
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
     * {@link #forEach(RecordVisitor)} over the chunks that changed after {@code since} in a way
     * {@code changes} looks for. A chunk is the unit: its unchanged records are visited too.
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
     * with a later one ({@linkplain ##versions Change versions}). O(1) (once in 2^29 calls,
     * O(chunks x fields)); call it on the writer thread while no other thread writes the table.
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
