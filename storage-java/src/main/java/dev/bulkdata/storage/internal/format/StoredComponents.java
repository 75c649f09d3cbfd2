package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.internal.memory.BlockArena;

import java.lang.foreign.MemorySegment;
import java.nio.IntBuffer;

/** A ComponentTable as the format sees it, implemented by the engine ({@code dev.bulkdata.storage.StoredTables}). */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public interface StoredComponents {
    /** {@return the entity table the rows belong to} */
    StoredTable entities();

    Schema schema();

    // ---- Saving: the caller holds the table's join guard

    int rows();

    /** Writes each row's entity slot, then each row's entity generation, in row order. */
    void putRows(IntBuffer out);

    MemorySegment[] segments();

    int blockCount();

    // ---- Restoring: a new, empty table that the engine made (Engine#createComponents)

    BlockArena arena();

    /** Allocates row block {@code b} (blocks in order) and returns it, to be filled from the file. */
    MemorySegment restoreBlock(int b);

    /** Sets the rows: row {@code r} belongs to the entity in slot {@code keys[r]} at generation {@code owners[r]}. */
    void restoreRows(int[] keys, int[] owners);

    void close();
}
