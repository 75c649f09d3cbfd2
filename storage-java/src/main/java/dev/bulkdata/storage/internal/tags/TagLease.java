package dev.bulkdata.storage.internal.tags;

/**
 * One table's hold on a tag, from {@link TagRegistry#register}: the tag, the generation its slots start at (the tag's
 * floor), and what the table has handed out (generations, slots, epoch: {@link #issued(int, int)}), which
 * {@link TagRegistry#release} turns into the next table's floor. Shared with the table's cleaner and holding no table,
 * so a table dropped unclosed still reports it. Written by the table's writer only; read by release once the table is
 * closed or unreachable.
 */
public final class TagLease {
    /** The table's tag, 1 to {@link dev.bulkdata.storage.schema.HandleLayout#MAX_TAG}. */
    public final int tag;
    /** The generation every slot of the table starts at: no earlier table under this tag made a handle the table could accept. */
    public final int floor;
    /** The name of the last closed table that held this tag, or null if it is new. */
    public final String previousName;
    /** The table's identity: random, non-zero, made when the table was first built, restored with its snapshot. */
    public final long identity;
    /** The largest generation in a handle the table made; -1 before the first. */
    int peakGeneration = -1;
    /** The largest slot in a handle the table made; 0 before the first. */
    long peakSlot;
    /** The table's epoch, the highest it reached (epochs only rise); 0 before the first change of epoch. */
    int epoch;
    /** Set by {@link TagRegistry#release}. */
    boolean released;

    TagLease(int tag, int floor, String previousName, long identity) {
        this.tag = tag;
        this.floor = floor;
        this.previousName = previousName;
        this.identity = identity;
    }

    /**
     * Records the table's epoch after it moved on: every handle it makes from now has it, above its generation.
     *
     * @param epoch the table's epoch
     */
    public void epoch(int epoch) {
        this.epoch = epoch;
    }

    /**
     * Records that the table made a handle with this generation and slot; O(1), storing only when a peak rises.
     *
     * @param generation the handle's generation
     * @param slot the handle's slot
     */
    public void issued(int generation, int slot) {
        if (generation > peakGeneration) {
            peakGeneration = generation;
        }
        if (slot > peakSlot) {
            peakSlot = slot;
        }
    }
}
