package dev.bulkdata.storage;

/**
 * A table of fixed-size records in 16 KiB native blocks, referenced by 64-bit handles. This is
 * the interface every table kind shares; {@link BulkTable} is the kind with stable slots,
 * {@link PackedTable} the kind whose records are always packed into dense rows.
 *
 * <h2>Handles</h2>
 * {@link #add()} returns a handle: a {@code long} holding the table's tag, the record's slot
 * and the slot's generation (see {@link HandleLayout}). Every access by handle checks all
 * three, so a handle of a removed record, of another table, or one made up, is rejected with
 * {@link InvalidHandleException}, never misread. {@link #contains(long)} asks without throwing.
 *
 * <p>Tags are 12 bits: tables get tags 1 to {@code HandleLayout.MIN_FIXED_TAG - 1} (3,839) in turn,
 * the rest being fixed tags a builder asks for, so tags are reused once 3,839 tables have been
 * opened; a handle of a closed table is still never accepted by a later table: a table under a
 * reused tag starts every slot's generation above every generation the tag's earlier tables
 * handed out (its slots retire correspondingly sooner), and rejects older handles as
 * {@link InvalidHandleException.Reason#CLOSED}. If no free tag is usable for a table's handle
 * layout, opening it throws {@link CapacityExceededException}.
 *
 * <h2 id="typed">Typed access</h2>
 * Fields are read and written by handle with one {@code get} and one {@code set} per field
 * type, each taking the typed field ({@link FloatField}, {@link IntField}, ...) of this table's
 * schema: {@code float x = table.get(h, X); table.set(h, X, x + 1f);}. Each is O(1) and
 * allocation-free: one validity check of the handle (tag, slot, generation), then one access to
 * the record's bytes. Each throws {@link InvalidHandleException} if the handle is null, stale,
 * foreign or forged, {@link IllegalArgumentException} if the field belongs to another schema,
 * and {@link IllegalStateException} if the table is closed.
 * They are declared in {@link GeneratedTableAccessors}, written for every field type from one
 * template.
 *
 * <h2 id="versions">Change versions</h2>
 * A table keeps a version counter and, for each chunk, a <em>structure version</em> and one
 * version per field. Every write through the table's API stamps what it touched with the
 * table's current version:
 * <ul>
 * <li>{@code set} by handle and {@link Chunk}{@code .set} by slot: that field of the record's chunk;
 * <li>{@link Chunk#writableColumn(Field)}: that field of the chunk, when the view is taken;
 *     {@link Chunk#writableRecords()}: every field of the chunk;
 * <li>{@code add}, {@code addAll}: the structure and every field of the chunk the record lands in;
 * <li>{@code remove}, {@code removeAll}, {@code cancelAdd}: the structure of the chunk the record
 *     leaves; in a {@link PackedTable}, the record moved into the gap stamps the structure and
 *     every field of the chunk it moves into and the structure of the chunk it leaves;
 * <li>{@code clear}: the structure of every chunk that held a record;
 * <li>{@code PackedTable.defragment}: the structure and every field of both chunks of each swap.
 * </ul>
 * Reading never stamps, and neither does a write through a view taken for reading (it throws).
 * {@link #markVersion()} returns the current version {@code V} and moves the counter on, so that
 * every write after the call is newer than {@code V}: a pass that records {@code V} asks later
 * which chunks changed since ({@link Chunk#changedSince(Field, int)},
 * {@link Chunk#structureChangedSince(int)}, or a filtered pass with a {@link ChangeFilter}):
 *
 * <pre>{@code
 * ChangeFilter moved = ChangeFilter.of(PX, PY);
 * int seen = table.markVersion();             // everything written so far is at or before seen
 * // ... the frame writes some records ...
 * table.forEachChunk(moved, seen, chunk -> upload(chunk));   // only chunks where PX or PY changed
 * seen = table.markVersion();                 // the next frame sees the writes after this
 * }</pre>
 *
 * A version is exact for 2^30 calls of {@code markVersion} (about a
 * billion: 200 days at 60 calls a second); any value older than that, or not from this table,
 * counts every chunk as changed. A chunk is stamped, not a record: a chunk with a changed field
 * may hold many unchanged records. Versions cost a stamp check per {@code set}, nothing per
 * read, and 4 bytes per field and chunk on the heap ({@code (fields + 1) * 4} bytes per 16 KiB
 * block). A new table's counter is at 1. Versions live in memory only: a table loaded by
 * {@link Snapshots#load} starts as a new one does (counter at 1, every chunk stamped 1), so
 * versions of the saved table mean nothing to it; start with a full pass and a
 * {@code markVersion()} of the loaded table.
 *
 * <h2>Errors</h2>
 * Every method that throws leaves the table exactly as it was. After {@link #close()} every
 * method except {@code close}, {@code isClosed}, {@code contains} (which answers
 * {@code false}), {@code name}, {@code schema}, {@code handleLayout}, {@code format},
 * {@code stats} (every count 0: the memory is freed) and {@code BulkTable.reuseOrder} throws
 * {@link IllegalStateException}; freed memory is never touched.
 *
 * <h2>Threads</h2>
 * A table has a single writer for its structure: {@code add}, {@code remove}, {@code clear},
 * {@code cancelAdd}, {@code defragment} and {@code close} must not run while any other thread
 * uses the table. Reads and writes of fields of <em>distinct</em> records may run from many
 * threads at once (this is what per-chunk parallel iteration does); the table holds no locks. A
 * structural change while an iteration of this table is open ({@link #iterate()},
 * {@link #forEach(RecordVisitor)}, {@link #forEachChunk(ChunkVisitor)}) fails fast with
 * {@link java.util.ConcurrentModificationException}. A {@link Chunk} is valid only while an
 * iteration of its table is open; used later, it throws {@link IllegalStateException}.
 *
 * <p>Two threads changing the structure at once are caught: each structural change first
 * claims the table with one compare-and-set, and a change that starts while another thread's
 * change runs throws {@link java.util.ConcurrentModificationException} and changes nothing (the
 * loser is refused, not queued). Field reads and writes are not claimed: one that races a
 * structural change of another thread is a data race the table does not detect. A table that
 * finds its structure broken (a change failing with an internal error) marks itself corrupt:
 * every call but {@code close()} then throws {@link IllegalStateException} saying so.
 *
 * <p>A table is {@link AutoCloseable}: use try-with-resources or call {@link #close()}. A
 * table that becomes unreachable without being closed has its memory freed by a cleaner.
 */
public interface Table extends GeneratedTableAccessors, AutoCloseable {
    /** {@return the table's name (its schema's name)} */
    String name();

    /** {@return the schema of the table's records} */
    Schema schema();

    /** {@return how this table's handles split into tag, generation and index} */
    HandleLayout handleLayout();

    /**
     * Adds a record whose fields are all zero. O(1): reuses a hole if there is one (in a
     * {@link BulkTable}, in its {@link ReuseOrder}; {@link ReuseOrder#SWEEP} may step over up to
     * one summary word per 4,096 slots to find it), otherwise takes the next slot, allocating a
     * block when the last one is full (only the block directory is ever copied, by doubling).
     *
     * @return the new record's handle, never {@link Handles#NULL}
     * @throws CapacityExceededException if the index space or native memory is used up
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
     * ({@link HandleLayout#index(long)}): memory is touched in address order instead of at
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

    // The typed get and set by handle: GeneratedTableAccessors.


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
     * Removes every record: every handle handed out so far becomes stale. The blocks stay
     * allocated for reuse. O(slots opened): one pass over the slots' metadata; no record byte is
     * written (an add zeroes a reused record).
     *
     * <p>Each live slot's generation advances. In a {@link HandleLayout} with epoch bits
     * ({@link HandleLayout#epochBits()}), a clear that would retire a slot (one at the last
     * generation) moves the table to its next epoch instead and every slot starts its
     * generations again, so a table emptied every frame keeps its slots for
     * {@code 2^(epochBits + generationBits)} clears; see {@link #reset()}, and
     * {@code docs/tables-and-handles.md}, "Generation budget", for the exact numbers.
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open
     * @throws IllegalStateException if the table is closed
     */
    void clear();

    /**
     * Removes every record at once, the fast purge of a table emptied and refilled every frame
     * (the {@code reset()} of the article "Game Engine Containers - handle_map"): like
     * {@link #clear()}, without looking at any slot on its own.
     *
     * <ul>
     * <li><b>Handles from before</b> are all stale ({@link InvalidHandleException.Reason#STALE}),
     *     for every later access and {@code contains} ({@code false}), however many resets follow
     *     within the table's budget: every opened slot takes one generation above the highest
     *     the table has handed out in its epoch; when that is past the last generation, the table
     *     moves to its next epoch ({@link HandleLayout#epochBits()}) and every slot starts again
     *     at its first generation, retired slots too. A table resets
     *     {@code 2^epochBits * (2^generationBits - floor)} times before any slot retires, where
     *     {@code floor} is the generation its slots start at (0 unless its tag was used by
     *     earlier tables; fewer if removals advanced some slot further); past that, a reset retires the live slots at the
     *     last generation, as {@code clear()} does, and reports them in {@link #stats()} and the
     *     {@code dev.bulkdata.SlotRetirement} flight-recorder event. The {@link HandleLayout#DEFAULT}
     *     layout has no epoch bits: give the table a {@code maxCapacity}, whose layout
     *     ({@link HandleLayout#forCapacity}) has them, or choose a layout with as few index bits
     *     as the table needs ({@code docs/tables-and-handles.md}, "Generation budget").
     * <li><b>Slots and blocks</b>: the blocks stay allocated; the next adds take the same slots
     *     again, from slot 1 up (in the table's reuse order), so a table refilled to the same size
     *     never grows.
     * <li><b>Tag</b>: unchanged; handles of this table stay {@code FOREIGN} to other tables.
     * <li><b>Change versions</b>: like {@code clear()}, the structure version of every block
     *     that held a record moves on; field versions are kept.
     * <li><b>Mapped table</b>: allowed; the epoch is part of the table's state, saved by the
     *     next {@link #checkpoint()} (and by {@link Snapshots#save}), which saves the slots not
     *     taken since the reset as free at their new generation.
     * <li><b>Threads</b>: a structural change, for the table's single writer, like {@code clear()}.
     * </ul>
     *
     * <p>Cost: O(blocks), whatever the number of records: no slot's metadata word and no record
     * byte is written. The table only notes the new generation (or epoch) and that every opened
     * slot is free; lookups stop short of the slots not taken since, and an add writes a slot's
     * word when it takes it, as every add does. Per block: the live bits of a block that held
     * records are cleared (a {@link BulkTable}'s {@code slotsPerBlock / 64} words). A
     * {@link ReuseOrder#SWEEP} table also empties its free bits, one step per 4,096 slots. Once
     * the budget is spent (no epoch left) a reset costs what {@code clear()} does: one pass over
     * every opened slot's word, reading each. {@code clear()} always makes that pass.
     *
     * @throws java.util.ConcurrentModificationException if an iteration is open (nothing changes)
     * @throws IllegalStateException if the table is closed or corrupt
     */
    void reset();

    /**
     * Makes everything written to a mapped table before this call durable: a crash of the
     * process or the machine after it returns reopens the file to exactly this table's
     * structure (live handles, generations, free list, tag) and every record as written before
     * the call, unless written again later (see {@link TableBuilder#mapped} for what a
     * reopened file shows of writes after its last checkpoint). Incremental: it forces the
     * blocks' pages written since the last checkpoint, then builds the metadata in memory
     * (O(slots): 4 bytes per slot, 8 in a {@code PackedTable}, plus its rows' back-links) and
     * writes and forces only its 4 KiB pages that differ from what the file holds (field writes
     * change none; each added or removed record a few). Holds the
     * table's iteration guard meanwhile, like {@link Snapshots#save}: structural changes from
     * other threads throw {@link java.util.ConcurrentModificationException}; field writes from
     * other threads during the call may or may not be covered.
     *
     * @throws java.io.IOException if writing or forcing the file fails; the file then still holds the
     *     previous checkpoint
     * @throws IllegalStateException if the table is closed or corrupt, or is not mapped from a
     *     file
     */
    void checkpoint() throws java.io.IOException;

    /**
     * Checks the blocks of a mapped table opened with
     * {@link TableBuilder#blockChecksums(boolean) block checksums} against the CRC32C the last
     * checkpoint stored for each: every block not changed since that checkpoint (by the change
     * versions: a write through the table's API, a writable view taken, an add, removal or
     * move). A block changed since is skipped, its checksum is the next checkpoint's; so is
     * every block after an open that found the table not closed (a crash), until the next
     * checkpoint. A write through a writable view taken before the last checkpoint and kept
     * after it is not seen by the versions and is reported as damage: take views again after
     * a checkpoint. O(bytes of the blocks checked). Holds the table's iteration guard, like
     * {@link #checkpoint()}; call it while no other thread writes the table.
     *
     * @return the number of blocks checked
     * @throws SnapshotException ({@code CHECKSUM}) naming the first block whose bytes no longer
     *     match its checksum: the file was changed by something other than this table
     * @throws java.io.IOException if reading the file fails
     * @throws IllegalStateException if the table is closed, not mapped from a file, or its
     *     file has no block checksums
     */
    int verify() throws java.io.IOException;

    /**
     * {@return which checkpoint of its file this mapped table was opened at, and why that one}
     * ({@link OpenedCheckpoint}: created, closed cleanly, not closed, or a fallback past an
     * interrupted or damaged checkpoint). O(1); answers also after {@link #close()}.
     *
     * @throws IllegalStateException if the table is not mapped from a file
     */
    OpenedCheckpoint openedCheckpoint();

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
     * counter, so each chunk is visited exactly once, by one of them, in no particular order.
     * One iteration is open for the whole pass (structural changes throw
     * {@link java.util.ConcurrentModificationException} meanwhile, from any thread); the call
     * returns once every visit has ended and the iteration is closed, and every visitor's
     * writes happen-before the return. Allocates a few objects per pass, none per chunk. The
     * Kotlin {@code processChunks} is the same pass on coroutines.
     *
     * <p><b>What a visitor may do</b> (the one-writer-per-chunk rule): read and write the
     * records of the chunk it was handed, through the chunk or by handle, and read fields of
     * records that no visitor writes. It must not add, remove, clear, cancelAdd or defragment
     * (that throws {@link java.util.ConcurrentModificationException}, naming the thread and the
     * pass, and changes nothing), must not write records of another chunk (a data race the
     * table does not detect), must not close the table, and must not keep the chunk: once the
     * pass has returned, the chunk throws {@link IllegalStateException} (unless another
     * iteration of the table is still open).
     *
     * <p><b>Failures</b>: the first exception a visitor throws stops the pass (no further chunk
     * is started; those running finish), and is rethrown once every visit has ended, with the
     * exceptions of other chunks suppressed in it; the iteration is closed either way. A task
     * the executor rejects is not retried: the other threads, at least the calling one, take its
     * chunks. With {@code parallelism} 1, or a table of one chunk, nothing is submitted. Tasks
     * that start after the pass returned (a busy executor) do nothing.
     *
     * @param executor runs the helper tasks (a {@link java.util.concurrent.ForkJoinPool}, a
     *     fixed thread pool, ...); the calling thread works too, so a pool busy with other work,
     *     or the caller's own pool, cannot deadlock the pass
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
