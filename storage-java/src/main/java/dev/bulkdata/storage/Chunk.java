package dev.bulkdata.storage;

import java.lang.foreign.MemorySegment;

/**
 * One block of a table seen during an iteration: a fixed run of {@link #slotCount()} slots,
 * some live, some holes. Visit the live slots 64 at a time with {@link #liveBits(int)}, or run
 * by run with {@link #nextLive(int)} and {@link #nextHole(int)}; read and write their fields by
 * slot, and hand whole columns to loops or native code with {@link #column(Field)} (for
 * reading) and {@link #writableColumn(Field)} (for writing, which stamps the field's change
 * version: {@link #changedSince(Field, int)}).
 *
 * <pre>{@code
 * MemorySegment px = chunk.writableColumn(PX);        // once per chunk, outside the loop
 * MemorySegment vx = chunk.column(VX);
 * int n = chunk.slotCount();
 * if (chunk.liveCount() == n) {                        // no hole: one loop from 0
 *     for (int s = 0; s < n; s++) {
 *         px.setAtIndex(F, s, px.getAtIndex(F, s) + vx.getAtIndex(F, s) * dt);
 *     }
 * } else {
 *     for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
 *         for (long live = chunk.liveBits(w); live != 0; live &= live - 1) {   // 64 slots at a time
 *             int s = (w << 6) + Long.numberOfTrailingZeros(live);
 *             px.setAtIndex(F, s, px.getAtIndex(F, s) + vx.getAtIndex(F, s) * dt);
 *         }
 *     }
 * }
 * // F = ValueLayout.JAVA_FLOAT_UNALIGNED
 * }</pre>
 *
 * <p>This is the loop shape to write over columns. A loop from 0 over a chunk without holes is
 * the JIT's best case (the segments' checks leave the loop); where there are holes, the set
 * bits of each word. Read and write with the {@code _UNALIGNED} value layouts: the column
 * values are aligned anyway, and the aligned layouts' alignment checks add code to every access,
 * which in a loop of a few records' fields can pass the JIT's inlining budget and leave each
 * access a call. The slot accessors ({@code chunk.set(s, PX, chunk.get(s, PX) + ...)}) fit the
 * same loops but test the slot's live bit on every access. Walking runs,
 * {@code for (int start = chunk.nextLive(0), end; start >= 0; start = chunk.nextLive(end))}
 * with {@code end = chunk.nextHole(start)}, gives each run of live slots as {@code [start, end)}:
 * the unit for work on whole runs (a bulk copy, a native call); a chunk without holes, and
 * every chunk of a {@link PackedTable}, is a single run, found in O(1). Stepping with
 * {@code for (s = nextLive(0); s >= 0; s = nextLive(s + 1))} makes each step wait for the last.
 * The {@code storage-vector} kernels take whole chunks.
 *
 * <p>Slot accessors check that the slot lies in the chunk and is live (reading or writing a hole
 * throws {@link IllegalArgumentException}); they cost no allocation and no handle check. In a
 * chunk without holes (every slot live) {@link #liveBits(int)} and {@link #nextLive(int)} read
 * no bitmap word: they answer from the live count, {@code nextLive} in O(1).
 *
 * <p id="typed"><b>Typed access</b>: one {@code get} and one {@code set} per field type read and
 * write a field of the record in a slot of this chunk, by the typed field of the table's schema
 * ({@code chunk.set(s, X, chunk.get(s, X) + 1f)}). Each is O(1) and allocation-free; each throws
 * {@link IndexOutOfBoundsException} if the slot is not in this chunk,
 * {@link IllegalArgumentException} if the slot holds no record or the field belongs to another
 * schema, and {@link IllegalStateException} if the chunk is no longer valid (below).
 * They are declared in {@link GeneratedChunkAccessors}, written for every field type from one
 * template.
 *
 * <p><b>Validity</b>: a chunk may be used only while an iteration of its table is open (between
 * {@link Table#iterate()} and {@link ChunkIteration#close()}, or inside
 * {@link Table#forEach(RecordVisitor)} and {@link Table#forEachChunk(ChunkVisitor)}), since
 * only then can no record be added, removed or moved. Every accessor of a chunk kept past that
 * throws {@link IllegalStateException}, as it does once the table is closed: keep handles
 * ({@link #handle(int)}), not chunks. The check is one read of the table's iteration count. A
 * {@link MemorySegment} from {@link #column(Field)} or {@link #records()} (and their writable
 * forms) is raw memory: it
 * stays usable until the table closes, and using it after the iteration is the caller's
 * responsibility.
 *
 * <p>Threads: distinct slots may be read and written from many threads at once, as long as no
 * thread adds, removes or clears (the table's single-writer rule).
 */
public interface Chunk extends GeneratedChunkAccessors {
    /** {@return this chunk's position in the table, from 0} */
    int index();

    /** {@return the number of slots in this chunk (the schema's slots per block)} */
    int slotCount();

    /**
     * Returns the schema of the chunk's table: the fields its typed accessors and
     * {@link #column(Field)} accept, and the layout of {@link #records()}.
     *
     * @return the schema of the chunk's table
     */
    Schema schema();

    /** {@return the number of live records in this chunk; O(1)} */
    int liveCount();

    /**
     * Returns whether it holds a live record.
     *
     * @param slot a slot of this chunk
     * @return whether it holds a live record
     * @throws IndexOutOfBoundsException if {@code slot} is not in {@code [0, slotCount())}
     */
    boolean isLive(int slot);

    /**
     * Finds the next live slot, skipping holes 64 at a time.
     *
     * @param from the first slot to look at; may be {@code slotCount()}
     * @return the first live slot at or after {@code from}, or -1 if there is none
     */
    int nextLive(int from);

    /**
     * Finds the end of the run of live slots that starts at {@code from}: the first hole at or
     * after it. With {@link #nextLive(int)} it walks the chunk run by run, each run a counted
     * loop (see the class comment). O(1) in a chunk without holes and in a packed table's chunk,
     * else O(holes skipped / 64).
     *
     * @param from the first slot to look at; may be {@code slotCount()}
     * @return the first slot at or after {@code from} that holds no record, or
     *     {@code slotCount()} if there is none
     * @throws IndexOutOfBoundsException if {@code from} is negative
     */
    int nextHole(int from);

    /** {@return the number of 64-bit words of the live bitmap: {@code ceil(slotCount() / 64)}} */
    int liveWordCount();

    /**
     * The live bitmap, 64 slots at a time: bit {@code b} of word {@code w} is set if slot
     * {@code w * 64 + b} is live.
     *
     * @param word a word index, {@code 0 <= word < liveWordCount()}
     * @return the word
     * @throws IndexOutOfBoundsException if {@code word} is out of range
     */
    long liveBits(int word);

    /**
     * Returns the handle of the record in that slot.
     *
     * @param slot a live slot of this chunk
     * @return the handle of the record in that slot
     * @throws IllegalArgumentException if the slot is a hole
     */
    long handle(int slot);

    /**
     * Queues the removal of the record in {@code slot}, applied when the last open pass over the
     * table ends, as {@link Table#removeLater(long)} with {@code handle(slot)} does, without
     * making the handle. Any thread visiting this chunk may call it. O(1), allocates nothing.
     *
     * @param slot a live slot of this chunk
     * @throws IndexOutOfBoundsException if the slot is not in this chunk
     * @throws IllegalArgumentException if the slot is a hole
     * @throws IllegalStateException if the chunk is no longer valid, or it is a
     *     {@link ComponentTable}'s chunk (queue the entity's removal on the entity table:
     *     {@code entities.removeLater(chunk.handle(slot))})
     */
    void removeLater(int slot);

    /**
     * Queues an add to the chunk's table, applied when the last open pass ends, as
     * {@link Table#addLater} does, ordered by this chunk's {@link #index()}: the adds queued
     * from the chunks of a pass are applied in chunk order, and in the order queued within one
     * chunk, whichever threads ran which chunks (a parallel pass, Kotlin's coroutines). O(1)
     * amortized under the queue's lock; allocates the queue's entry.
     *
     * @param init receives the new record's handle once it is added, to write its fields
     * @throws IllegalArgumentException if {@code init} is null
     * @throws IllegalStateException if the chunk is no longer valid, or it is a
     *     {@link ComponentTable}'s chunk
     */
    void addLater(java.util.function.LongConsumer init);

    /**
     * The column of a field, for reading: a read-only, zero-copy view of the field's values for
     * every slot of this chunk, value {@code s} at byte {@code s * field.type().byteSize()}, in
     * native byte order. A write through it throws {@link IllegalArgumentException} (the
     * segment is {@linkplain MemorySegment#isReadOnly() read-only}); take
     * {@link #writableColumn(Field)} to write. Reading through it costs what reading the block
     * costs: take it once per chunk visit, outside the loop. Holes hold no defined value: a
     * removed record's old bytes stay until a later add zeroes them (see
     * {@link Table#remove(long)}; a snapshot save writes the free list's saved form, a slot
     * number, into 4 bytes of one column of each hole), and slots never used read zero. Mask with
     * {@link #liveBits(int)} when a hole matters.
     *
     * @param field a field of the table's schema
     * @return the read-only column; valid until the table is closed
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table's layout is {@link Layout#AOS} (use
     *     {@link #records()})
     */
    MemorySegment column(Field field);

    /**
     * The column of a field, for writing: the zero-copy view of {@link #column(Field)}, writable.
     * Taking it stamps the field's change version in this chunk
     * ({@link #changedSince(Field, int)} is then true for every version before now), whether or
     * not anything is written through it: take it only for the chunks you write, once per visit.
     * Writing a hole through it is harmless: a hole's bytes belong to no record, and the add
     * that reuses the slot zeroes them (a kernel may write whole columns, holes included). Never
     * write a slot never used: its bytes would reappear in the record that first takes it. Writes through the
     * view after it was taken are not stamped again: a pass that keeps a view past
     * {@link Table#markVersion()} must take it again.
     *
     * @param field a field of the table's schema
     * @return the writable column; valid until the table is closed
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws IllegalStateException if the table's layout is {@link Layout#AOS} (use
     *     {@link #writableRecords()})
     */
    MemorySegment writableColumn(Field field);

    /**
     * The whole block, for reading: a read-only, zero-copy view of every slot's bytes
     * ({@link Schema#blockBytes()} long). In {@link Layout#AOS} slot {@code s} starts at byte
     * {@code s * schema.slotBytes()}; a field's value is at
     * {@code field.blockOffset() + s * field.slotStride()} in both layouts. A write through it
     * throws {@link IllegalArgumentException} (read-only). Holes hold no defined value (see
     * {@link #column(Field)}).
     *
     * @return the block's segment, read-only; valid until the table is closed
     */
    MemorySegment records();

    /**
     * The whole block, for writing: {@link #records()}, writable. Taking it stamps the change
     * version of every field in this chunk (see {@link #writableColumn(Field)}, whose rules for
     * holes apply).
     *
     * @return the block's segment; valid until the table is closed
     */
    MemorySegment writableRecords();

    /**
     * Whether a field of this chunk was written after {@code version}: by {@code set} (by
     * handle or by slot), a {@link #writableColumn(Field)} or {@link #writableRecords()} taken,
     * or a record added to or moved into the chunk (see {@link Table#markVersion()}). O(1).
     *
     * @param field a field of the table's schema
     * @param version a version from {@link Table#markVersion()} of this table; any other value
     *     counts every chunk as changed
     * @return whether the field changed in this chunk after {@code version}
     * @throws IllegalArgumentException if the field belongs to another schema
     * @throws UnsupportedOperationException for a chunk of a {@link ComponentTable}, which
     *     keeps no versions
     */
    boolean changedSince(Field field, int version);

    /**
     * Whether this chunk's set of records changed after {@code version}: a record was added to
     * it, removed from it, or moved into, out of or within it (a {@link PackedTable}'s
     * swap-and-pop and {@code defragment}), or the table was cleared. O(1).
     *
     * @param version a version from {@link Table#markVersion()} of this table; any other value
     *     counts every chunk as changed
     * @return whether the chunk's structure changed after {@code version}
     * @throws UnsupportedOperationException for a chunk of a {@link ComponentTable}
     */
    boolean structureChangedSince(int version);

    // The typed get and set by slot: GeneratedChunkAccessors.
}
