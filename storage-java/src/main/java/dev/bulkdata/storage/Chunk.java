package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.BooleanField;
import dev.bulkdata.storage.schema.ByteField;
import dev.bulkdata.storage.schema.CharField;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.ShortField;

import java.lang.foreign.MemorySegment;

/**
 * One block of a table seen during an iteration: a fixed run of {@link #slotCount()} slots, some live, some holes.
 * Visit the live slots 64 at a time with {@link #liveBits(int)}, or run by run with {@link #nextLive(int)} and
 * {@link #nextHole(int)}; read and write their fields by slot, and hand whole columns to loops or native code with
 * {@link #column(Field)} (reading) and {@link #writableColumn(Field)} (writing, which stamps the field's change
 * version: {@link #changedSince(Field, int)}). Read columns with the {@code _UNALIGNED} value layouts; guide:
 * docs/iteration-and-change-versions.md, "Passes over a table" (the loop shape).
 *
 * <p id="typed"><b>Typed access</b>: one {@code get} and one {@code set} per field type, by slot and typed field: O(1),
 * allocation-free, checking the slot and its live bit on every access. A method given a slot ({@code isLive},
 * {@code handle}, {@code removeLater}, {@code get}, {@code set}) throws {@link IndexOutOfBoundsException} for a slot
 * outside the chunk (as {@code nextLive} and {@code nextHole} for a negative {@code from}), and all but {@code isLive}
 * {@link IllegalArgumentException} for a hole; a field of another schema throws {@link IllegalArgumentException}.
 *
 * <p><b>Validity and threads</b>: a chunk may be used only while an iteration of its table is open; afterwards every
 * accessor throws {@link IllegalStateException} (keep handles, not chunks). A {@link MemorySegment} from
 * {@link #column(Field)} or {@link #records()} is raw memory, usable until the table closes. Distinct slots may be
 * used from many threads at once.
 */
public interface Chunk {
    /**
     * {@return the chunk's number: its block's position in the table, from 0}. Chunk {@code c} holds the table's
     * slots (a packed or component table's rows) from {@code c * slotCount()}.
     */
    int index();

    /** {@return the number of slots in this chunk (the schema's slots per block)} */
    int slotCount();

    /** {@return the schema of the chunk's table: the fields its accessors accept, the layout of {@link #records()}} */
    Schema schema();

    /** {@return the number of live records in this chunk; O(1)} */
    int liveCount();

    /**
     * {@return whether {@code slot} holds a live record}
     *
     * @param slot a slot of this chunk
     */
    boolean isLive(int slot);

    /**
     * {@return the first live slot at or after {@code from}, or -1} Skips holes 64 at a time.
     *
     * @param from the first slot to look at; may be {@code slotCount()}
     */
    int nextLive(int from);

    /**
     * {@return the end of the run of live slots at {@code from}: the first slot at or after it holding no record, or
     * {@code slotCount()} if none} O(1) in a chunk without holes or of a packed table, else O(holes skipped / 64).
     *
     * @param from the first slot to look at; may be {@code slotCount()}
     */
    int nextHole(int from);

    /** {@return the number of 64-bit words of the live bitmap: {@code ceil(slotCount() / 64)}} */
    int liveWordCount();

    /**
     * {@return the live bitmap's word {@code word}: bit {@code b} is set if slot {@code word * 64 + b} is live}
     *
     * @param word a word index, {@code 0 <= word < liveWordCount()}
     * @throws IndexOutOfBoundsException if {@code word} is out of range
     */
    long liveBits(int word);

    /**
     * {@return the handle of the record in {@code slot}}
     *
     * @param slot a live slot of this chunk
     */
    long handle(int slot);

    /**
     * Queues the removal of the record in {@code slot}, applied when the last open pass over the table ends, as
     * {@link Table#removeLater(long)} with {@code handle(slot)} does, without making the handle. Any thread visiting
     * this chunk may call it. O(1), allocates nothing.
     *
     * @param slot a live slot of this chunk
     * @throws IllegalStateException for a {@link ComponentTable}'s chunk (queue the entity's removal on the entity
     *     table: {@code entities.removeLater(chunk.handle(slot))})
     */
    void removeLater(int slot);

    /**
     * Queues an add to the chunk's table until the last open pass ends, as {@link Table#addLater} does, in this
     * chunk's {@link #index()} order whichever thread ran it. O(1) amortized; allocates the queue's entry.
     *
     * @param init receives the new record's handle once it is added, to write its fields
     * @throws IllegalArgumentException if {@code init} is null
     * @throws IllegalStateException for a {@link ComponentTable}'s chunk
     */
    void addLater(java.util.function.LongConsumer init);

    /**
     * The column of a field, for reading: a read-only zero-copy view of its values for every slot, value {@code s} at
     * byte {@code s * field.type().byteSize()}, native byte order. Take it once per chunk visit. Holes hold no
     * defined value: mask with {@link #liveBits(int)}.
     *
     * @param field a field of the table's schema
     * @return the read-only column; valid until the table is closed
     * @throws IllegalStateException if the table's layout is {@link RecordLayout#AOS} (use {@link #records()})
     */
    MemorySegment column(Field field);

    /**
     * The column of a field, for writing: {@link #column(Field)}, writable. Taking it stamps the field's change version
     * in this chunk, once (take it only for the chunks you write; a view kept past {@link Table#markVersion()} is not
     * stamped again). Writing a hole is harmless (the add that reuses it zeroes it); never write a slot never used.
     *
     * @param field a field of the table's schema
     * @return the writable column; valid until the table is closed
     * @throws IllegalStateException if the table's layout is {@link RecordLayout#AOS} (use {@link #writableRecords()})
     */
    MemorySegment writableColumn(Field field);

    /**
     * The whole block, for reading: a read-only zero-copy view of every slot's bytes ({@link Schema#blockBytes()}
     * long); a field's value is at {@code field.blockOffset() + s * field.slotStride()} in both layouts.
     *
     * @return the block's segment, read-only; valid until the table is closed
     */
    MemorySegment records();

    /**
     * {@return {@link #records()}, writable; valid until the table is closed} Taking it stamps the change version of
     * every field in this chunk ({@link #writableColumn(Field)}'s hole rules apply).
     */
    MemorySegment writableRecords();

    /**
     * {@return whether {@code field} was written in this chunk after {@code version}}: by {@code set} (by handle or
     * slot), a {@link #writableColumn(Field)} or {@link #writableRecords()} taken, or a record added to or moved into
     * the chunk ({@link Table#markVersion()}). O(1).
     *
     * @param field a field of the table's schema
     * @param version a version from this table's {@link Table#markVersion()}; any other counts every chunk as changed
     * @throws UnsupportedOperationException for a chunk of a {@link ComponentTable}, which keeps no versions
     */
    boolean changedSince(Field field, int version);

    /**
     * {@return whether this chunk's set of records changed after {@code version}}: a record was added to it, removed
     * from it, or moved into, out of or within it (a {@link PackedTable}'s swap-and-pop and {@code defragment}), or
     * the table was cleared. O(1).
     *
     * @param version a version from this table's {@link Table#markVersion()}; any other counts every chunk as changed
     * @throws UnsupportedOperationException for a chunk of a {@link ComponentTable}
     */
    boolean structureChangedSince(int version);

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/Chunk.java by codegen/Generate.java: edit the template, not these lines
    /** Reads a {@code byte} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    byte get(int slot, ByteField field);

    /** Writes a {@code byte} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, ByteField field, byte value);

    /** Reads a {@code short} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    short get(int slot, ShortField field);

    /** Writes a {@code short} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, ShortField field, short value);

    /** Reads a {@code char} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    char get(int slot, CharField field);

    /** Writes a {@code char} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, CharField field, char value);

    /** Reads an {@code int} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    int get(int slot, IntField field);

    /** Writes an {@code int} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, IntField field, int value);

    /** Reads a {@code long} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    long get(int slot, LongField field);

    /** Writes a {@code long} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, LongField field, long value);

    /** Reads a {@code float} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    float get(int slot, FloatField field);

    /** Writes a {@code float} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, FloatField field, float value);

    /** Reads a {@code double} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    double get(int slot, DoubleField field);

    /** Writes a {@code double} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, DoubleField field, double value);

    /** Reads a {@code boolean} field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    boolean get(int slot, BooleanField field);

    /** Writes a {@code boolean} field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, BooleanField field, boolean value);

    /** Reads a handle field of a slot's record ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing") // Typed access documents every pair
    long get(int slot, HandleField field);

    /** Writes a handle field of a slot's record, stamping its version ({@linkplain ##typed Typed access}). */
    @SuppressWarnings("doclint:missing")
    void set(int slot, HandleField field, long value);
    // @end-generated
}
