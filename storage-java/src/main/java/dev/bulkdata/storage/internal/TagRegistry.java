package dev.bulkdata.storage.internal;

import dev.bulkdata.storage.CapacityExceededException;
import dev.bulkdata.storage.HandleLayout;

/**
 * Hands out table tags (1 to {@link HandleLayout#MAX_TAG}) so that no handle of a closed table
 * is ever accepted by a later table, and remembers, for every open table, its name and handle
 * layout, so that a handle can be printed with the name of its table and a foreign handle can
 * be reported with the table it belongs to.
 *
 * <h2>Tag reuse</h2>
 * There are only {@value HandleLayout#MAX_TAG} tags, so a program that opens and closes tables
 * reuses them. A handle of a closed table still carries its tag; if a later table under the
 * same tag could hand out the same bits, the old handle would read the new table's record.
 * The registry prevents it with a <em>generation floor</em> per tag:
 * <ul>
 * <li>while a table is open, its {@link TagLease} records the largest generation and the
 *     largest slot index it has handed out in a handle;
 * <li>when the tag is released, the registry folds them into {@code bound[tag]}: an upper
 *     bound of the low 52 bits ({@code generation << indexBits | index}) of every handle ever
 *     made under the tag, whatever the layout;
 * <li>a new table under the tag, with {@code indexBits} index bits, starts every slot at
 *     generation {@code (bound >>> indexBits) + 1}. An old handle, read in the new layout,
 *     either has bits outside that layout (rejected as forged) or a generation below the
 *     floor, which no slot of the new table ever has: it is rejected.
 * </ul>
 * Each reuse raises the floor by what the closed tables used, so slots of later tables retire
 * sooner. A tag whose floor is above the new table's {@link HandleLayout#maxGeneration()} is
 * skipped; if no tag is free and usable, opening fails with {@link CapacityExceededException}.
 * Tags are handed out round-robin, skipping tags in use, so a closed table's tag is reused as
 * late as possible.
 *
 * <p>Thread-safe: all methods synchronize on the class. Only table creation and closing call
 * the mutating methods; lookups happen on error paths and when formatting.
 */
public final class TagRegistry {
    private static final int TAGS = HandleLayout.MAX_TAG + 1;
    private static final String[] NAMES = new String[TAGS];
    private static final HandleLayout[] LAYOUTS = new HandleLayout[TAGS];
    /** Name of the last table that held the tag and is now closed; null if none. */
    private static final String[] CLOSED_NAMES = new String[TAGS];
    /** Upper bound of the low 52 bits of every handle made under the tag; -1 if none was made. */
    private static final long[] BOUNDS = new long[TAGS];
    private static int lastTag;

    static {
        java.util.Arrays.fill(BOUNDS, -1L);
    }

    private TagRegistry() {
    }

    /**
     * Reserves a tag for a new table.
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @return the lease: the tag and the generation the table's slots start at
     * @throws CapacityExceededException if every tag is in use by an open table or too worn
     *     by closed tables for this layout
     */
    public static synchronized TagLease register(String name, HandleLayout layout) {
        for (int i = 1; i < TAGS; i++) {
            int tag = (lastTag + i - 1) % HandleLayout.MAX_TAG + 1;
            if (NAMES[tag] == null) {
                long floor = floor(tag, layout);
                if (floor <= layout.maxGeneration()) {
                    NAMES[tag] = name;
                    LAYOUTS[tag] = layout;
                    lastTag = tag;
                    return new TagLease(tag, (int) floor, CLOSED_NAMES[tag]);
                }
            }
        }
        int open = 0;
        for (int tag = 1; tag < TAGS; tag++) {
            open += NAMES[tag] != null ? 1 : 0;
        }
        throw new CapacityExceededException("cannot open table '" + name + "': " + open + " of the "
                + HandleLayout.MAX_TAG + " table tags are held by open tables, and the other "
                + (HandleLayout.MAX_TAG - open) + " have been reused so often that a table with " + layout
                + " could not tell its handles from those of the closed tables; close tables that are no longer"
                + " needed, or use a handle layout with more generation bits");
    }

    /** The first generation a new table with {@code layout} may use under {@code tag}. */
    private static long floor(int tag, HandleLayout layout) {
        long bound = BOUNDS[tag];
        return bound < 0 ? 0 : (bound >>> layout.indexBits()) + 1;
    }

    /**
     * Frees a lease's tag and remembers what its table handed out. Releasing twice does nothing.
     *
     * @param lease a lease returned by {@link #register}
     */
    public static synchronized void release(TagLease lease) {
        int tag = lease.tag();
        if (lease.released) {
            return;
        }
        lease.released = true;
        HandleLayout layout = LAYOUTS[tag];
        if (lease.peakGeneration >= 0 && layout != null) {
            long index = lease.peakIndex;
            long indexBound = index == 0 ? 0 : (Long.highestOneBit(index) << 1) - 1;
            long bound = ((long) lease.peakGeneration << layout.indexBits()) | indexBound;
            BOUNDS[tag] = Math.max(BOUNDS[tag], bound);
        }
        CLOSED_NAMES[tag] = NAMES[tag];
        NAMES[tag] = null;
        LAYOUTS[tag] = null;
    }

    /**
     * Returns the name of the open table with this tag, or {@code null}.
     *
     * @param tag any value
     * @return the name of the open table with this tag, or {@code null}
     */
    public static synchronized String nameOf(int tag) {
        return tag > 0 && tag < TAGS ? NAMES[tag] : null;
    }

    /**
     * Returns the name of the last closed table that held this tag, or {@code null}.
     *
     * @param tag any value
     * @return the name of the last closed table with this tag, or {@code null}
     */
    public static synchronized String closedNameOf(int tag) {
        return tag > 0 && tag < TAGS ? CLOSED_NAMES[tag] : null;
    }

    /**
     * Returns the handle layout of the open table with this tag, or {@code null}.
     *
     * @param tag any value
     * @return the handle layout of the open table with this tag, or {@code null}
     */
    public static synchronized HandleLayout layoutOf(int tag) {
        return tag > 0 && tag < LAYOUTS.length ? LAYOUTS[tag] : null;
    }
}
