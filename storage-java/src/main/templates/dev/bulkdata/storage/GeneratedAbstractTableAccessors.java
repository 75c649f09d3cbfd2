package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.memory.BlockArena;

import java.lang.foreign.MemorySegment;

/**
 * Generated from a template: the typed accessors by handle of {@link AbstractTable}, one
 * {@code get} and one {@code set} per field type, written once for both table kinds over the
 * one part each kind provides: a handle resolves to its record index by the kind's rule
 * ({@link #recordOf}: a BulkTable's slot, a PackedTable's row), and records are numbered so
 * that record {@code r} lives in segment {@code r >>> recordShift} at position
 * {@code r & recordMask}; a {@code set} stamps the field's change version in chunk
 * {@code r >>> recordShift} ({@link ChangeVersions}). See ARCHITECTURE.md, Per-type code;
 * everything else of a table is in {@link AbstractTable}.
 */
abstract sealed class GeneratedAbstractTableAccessors implements Table permits AbstractTable {
    private static final MemorySegment[] NO_SEGMENTS = new MemorySegment[0];

    final Schema schema;
    /** The blocks' segments, indexed by {@code record >>> recordShift}; kept by the kind. */
    MemorySegment[] segments = NO_SEGMENTS;
    /**
     * The address space holding the blocks of records {@code [0, regionRecords)}, block
     * {@code b} at byte {@code b << BlockArena.BLOCK_SHIFT}, or null ({@code regionRecords} 0):
     * a lookup reads such a record from this one segment, without loading its block's segment.
     * Set by the kind when its first block is allocated ({@link #adoptRegion}).
     */
    MemorySegment region;
    int regionRecords;
    /**
     * Whether {@link #region} holds every record the table can have: then a lookup tests this
     * one flag, the same for every call, which C2 moves out of a caller's loop, instead of
     * comparing each record with {@link #regionRecords}.
     */
    boolean regionHoldsAll;
    /** Record index to segment and position: both kinds put {@code slotsPerBlock} records in a block. */
    final int recordShift;
    final int recordMask;
    /** The chunks' change versions: every write by handle stamps its field in its chunk. */
    final ChangeVersions versions;

    GeneratedAbstractTableAccessors(Schema schema) {
        this.schema = schema;
        this.versions = new ChangeVersions(schema);
        this.recordShift = Integer.numberOfTrailingZeros(schema.slotsPerBlock());
        this.recordMask = schema.slotsPerBlock() - 1;
    }

    /**
     * Resolves a handle to the index of its record in {@link #segments}: record {@code r} is
     * at position {@code r & recordMask} of segment {@code r >>> recordShift}.
     *
     * @throws InvalidHandleException if the handle is not live in this table
     * @throws IllegalStateException if the table is closed or corrupt
     */
    abstract int recordOf(long handle);

    /** Takes the arena's reserved range, if it has one, for the lookups by handle. */
    final void adoptRegion(BlockArena arena) {
        region = arena.region();
        regionRecords = (int) Math.min(arena.regionBlocks() << recordShift, Integer.MAX_VALUE);
        regionHoldsAll = arena.regionHoldsAll();
    }

    // @each-type
    @Override
    public final float get(long handle, FloatField field) {
        schema.check(field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            return field.get(region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT, record & recordMask);
        }
        return field.get(segments[record >>> recordShift], record & recordMask);
    }

    @Override
    public final void set(long handle, FloatField field, float value) {
        schema.check(field);
        int record = recordOf(handle);
        if (regionHoldsAll || record < regionRecords) {
            field.set(region, (long) (record >>> recordShift) << BlockArena.BLOCK_SHIFT, record & recordMask, value);
        } else {
            field.set(segments[record >>> recordShift], record & recordMask, value);
        }
        versions.stampField(record >>> recordShift, field.index());
    }
    // @end
}
