package dev.bulkdata.storage.internal.tags;

import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.internal.core.SlotRejections;
import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;

/**
 * Hands out table tags (1 to {@link HandleLayout#MAX_TAG}) so that no handle of a closed table is ever accepted by a
 * later table, and remembers each open table's name and handle layout, to print a handle with its table's name and
 * report a foreign handle's table. Tag choice, generation floors and identities: ARCHITECTURE.md, "Handles and tags".
 *
 * <p>Thread-safe: every method but {@link #checkFixed} (which reads no state) synchronizes on the class.
 */
public final class TagRegistry {
    private static final int TAGS = HandleLayout.MAX_TAG + 1;
    private static final String[] NAMES = new String[TAGS];
    private static final HandleLayout[] LAYOUTS = new HandleLayout[TAGS];
    /** The generation the open table with the tag starts its slots at (valid while NAMES is set). */
    private static final int[] FLOORS = new int[TAGS];
    private static final String[] CLOSED_NAMES = new String[TAGS];
    /** Upper bound of the low 52 bits of every handle made under the tag; -1 if none was made. */
    private static final long[] BOUNDS = new long[TAGS];
    /** The identity of the last table that made handles under the tag (valid while BOUNDS >= 0). */
    private static final long[] MAKERS = new long[TAGS];
    /** {@code BOUNDS} of the handles made under the tag before the last run of identity {@code MAKERS}; -1: none. */
    private static final long[] OTHERS = new long[TAGS];
    private static final int AUTOMATIC_TAGS = HandleLayout.MIN_FIXED_TAG - 1;
    private static int lastTag;

    /** The registry as a handle's rejection names the tables of other tags. */
    public static final SlotRejections.Owners OWNERS = new SlotRejections.Owners() {
        @Override
        public String nameOf(int tag) {
            return TagRegistry.nameOf(tag);
        }

        @Override
        public String closedNameOf(int tag) {
            return TagRegistry.closedNameOf(tag);
        }

        @Override
        public boolean predatesHolder(int tag, long handle) {
            return TagRegistry.predatesHolder(tag, handle);
        }

        @Override
        public String format(long handle) {
            return TagRegistry.format(handle);
        }
    };

    static {
        java.util.Arrays.fill(BOUNDS, -1L);
        java.util.Arrays.fill(OTHERS, -1L);
    }

    private TagRegistry() {
    }

    /**
     * {@return the lease of a tag reserved for a new table: the tag and the generation the table's slots start at}
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @throws CapacityExceededException if every tag is in use by an open table or too worn by closed tables for this layout
     */
    public static synchronized TagLease register(String name, HandleLayout layout) {
        int tag = freeAutomaticTag(name, layout, layout.maxGeneration());
        return hold(tag, name, layout, (int) floor(tag, layout), newIdentity());
    }

    /**
     * {@return the lease of a fixed tag reserved for a new table, with a new identity}
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @param tag a tag from {@link HandleLayout#MIN_FIXED_TAG} to {@link HandleLayout#MAX_TAG}
     * @throws IllegalArgumentException if {@code tag} is not a fixed tag
     * @throws IllegalStateException if an open table holds the tag
     * @throws CapacityExceededException if earlier tables under the tag wore it out for this layout
     */
    public static synchronized TagLease registerFixed(String name, HandleLayout layout, int tag) {
        checkFixed(tag);
        if (NAMES[tag] != null) {
            throw new IllegalStateException("cannot open table '" + name + "' with tag " + tag + ": the open table '"
                    + NAMES[tag] + "' holds it; close it first or give this table another fixed tag");
        }
        long floor = floor(tag, layout);
        if (floor > layout.maxGeneration()) {
            throw new CapacityExceededException("cannot open table '" + name + "' with tag " + tag + ": earlier"
                    + " tables under the tag handed out generations up to " + (floor - 1) + ", the most " + layout
                    + " can tell apart from its own; use a handle layout with more generation bits or another tag");
        }
        return hold(tag, name, layout, (int) floor, newIdentity());
    }

    /**
     * Checks that a tag is one of the fixed tags.
     *
     * @param tag any value
     * @throws IllegalArgumentException if it is not
     */
    public static void checkFixed(int tag) {
        if (tag < HandleLayout.MIN_FIXED_TAG || tag > HandleLayout.MAX_TAG) {
            throw new IllegalArgumentException("tag=" + tag + " is not a fixed tag: fixed tags are "
                    + HandleLayout.MIN_FIXED_TAG + " to " + HandleLayout.MAX_TAG
                    + " (HandleLayout.MIN_FIXED_TAG to MAX_TAG); lower tags are handed out automatically");
        }
    }

    /**
     * {@return the lease of a table's own tag reserved for it restored from a snapshot, keeping its identity}
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @param tag the tag the table had when it was saved
     * @param identity the table's identity, from the snapshot
     * @param floor the table's floor, from the snapshot
     * @throws TagConflict if an open table holds the tag, or a table of another identity made handles under it in this
     *     process with a generation of {@code floor} or more
     */
    public static synchronized TagLease registerRestored(String name, HandleLayout layout, int tag, long identity,
                                                         int floor) {
        if (tag < 1 || tag > HandleLayout.MAX_TAG) {
            throw new IllegalArgumentException("tag=" + tag + " is outside [1, " + HandleLayout.MAX_TAG + "]");
        }
        if (NAMES[tag] != null) {
            throw new TagConflict("its tag " + tag + " is held by the open table '" + NAMES[tag] + "'");
        }
        long others = BOUNDS[tag] >= 0 && MAKERS[tag] != identity ? BOUNDS[tag] : OTHERS[tag];
        if (floor(others, layout) > floor) {
            throw new TagConflict("another table under its tag " + tag + " (the last was '" + CLOSED_NAMES[tag]
                    + "') handed out handles in this process that the restored slots could accept (generations"
                    + " from " + floor + " up to " + (floor(others, layout) - 1) + ")");
        }
        return hold(tag, name, layout, floor, identity);
    }

    /**
     * Reserves a new automatic tag, with a new identity, for a table restored from a snapshot under another tag: the
     * free tag with the lowest floor (a never-used tag has floor 0).
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @param minFloor the table's own floor (from the snapshot)
     * @param maxFloor the highest tag floor the caller can accept
     * @return the lease; its floor is the larger of the tag's floor and {@code minFloor}, and the caller lifts its
     *     slots by what the tag's floor adds
     * @throws CapacityExceededException if no free automatic tag has a floor of at most {@code maxFloor}
     */
    public static synchronized TagLease registerRenamed(String name, HandleLayout layout, int minFloor,
                                                        int maxFloor) {
        int best = -1;
        long bestFloor = Long.MAX_VALUE;
        for (int tag = 1; tag <= AUTOMATIC_TAGS && bestFloor > 0; tag++) {
            long floor = floor(tag, layout);
            if (NAMES[tag] == null && floor < bestFloor) {
                best = tag;
                bestFloor = floor;
            }
        }
        if (best < 0 || bestFloor > maxFloor) {
            throw new CapacityExceededException("cannot load table '" + name + "' under a new tag: every free"
                    + " automatic tag has been used so much that the table's generations (up to "
                    + (layout.maxGeneration() - maxFloor) + " below the layout's last) cannot be moved above it");
        }
        return hold(best, name, layout, (int) Math.max(bestFloor, minFloor), newIdentity());
    }

    /** A tag conflict of a restored table: the message says what holds or used the tag. */
    public static final class TagConflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TagConflict(String message) {
            super(message);
        }
    }

    private static TagLease hold(int tag, String name, HandleLayout layout, int floor, long identity) {
        NAMES[tag] = name;
        LAYOUTS[tag] = layout;
        FLOORS[tag] = floor;
        return new TagLease(tag, floor, CLOSED_NAMES[tag], identity);
    }

    private static long newIdentity() {
        long identity;
        do {
            identity = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        } while (identity == 0);
        return identity;
    }

    /** A free automatic tag whose floor is at most {@code maxFloor}, round-robin. */
    private static int freeAutomaticTag(String name, HandleLayout layout, long maxFloor) {
        for (int i = 1; i <= AUTOMATIC_TAGS; i++) {
            int tag = (lastTag + i - 1) % AUTOMATIC_TAGS + 1;
            if (NAMES[tag] == null && floor(tag, layout) <= maxFloor) {
                lastTag = tag;
                return tag;
            }
        }
        int open = 0;
        for (int tag = 1; tag <= AUTOMATIC_TAGS; tag++) {
            open += NAMES[tag] != null ? 1 : 0;
        }
        throw new CapacityExceededException("cannot open table '" + name + "': " + open + " of the "
                + AUTOMATIC_TAGS + " automatic table tags are held by open tables, and the other "
                + (AUTOMATIC_TAGS - open) + " have been reused so often that a table with " + layout
                + " could not tell its handles from those of the closed tables; close tables that are no longer"
                + " needed, or use a handle layout with more generation bits");
    }

    private static long floor(int tag, HandleLayout layout) {
        return floor(BOUNDS[tag], layout);
    }

    /** The first generation above every handle within {@code bound} (-1: none), read in {@code layout}. */
    private static long floor(long bound, HandleLayout layout) {
        return HandleBits.stampsAbove(layout, bound);
    }

    /**
     * Frees a lease's tag and remembers what its table handed out. Releasing twice does nothing.
     *
     * @param lease a lease returned by {@link #register}
     */
    public static synchronized void release(TagLease lease) {
        int tag = lease.tag;
        if (lease.released) {
            return;
        }
        lease.released = true;
        HandleLayout layout = LAYOUTS[tag];
        if (lease.peakGeneration >= 0 && layout != null) {
            long slot = lease.peakSlot;
            long slotBound = slot == 0 ? 0 : (Long.highestOneBit(slot) << 1) - 1;
            // The bound covers handles of every epoch up to the table's last (the epoch sits above the generation).
            long bound = HandleBits.payloadBound(layout, lease.epoch, lease.peakGeneration, slotBound);
            if (BOUNDS[tag] < 0 || MAKERS[tag] != lease.identity) {
                OTHERS[tag] = BOUNDS[tag];
                MAKERS[tag] = lease.identity;
            }
            BOUNDS[tag] = Math.max(BOUNDS[tag], bound);
        }
        CLOSED_NAMES[tag] = NAMES[tag];
        NAMES[tag] = null;
        LAYOUTS[tag] = null;
    }

    /**
     * {@return the name of the open table with this tag, or {@code null}}
     *
     * @param tag any value
     */
    public static synchronized String nameOf(int tag) {
        return tag > 0 && tag < TAGS ? NAMES[tag] : null;
    }

    /**
     * {@return the name of the last closed table that held this tag, or {@code null}}
     *
     * @param tag any value
     */
    public static synchronized String closedNameOf(int tag) {
        return tag > 0 && tag < TAGS ? CLOSED_NAMES[tag] : null;
    }

    /**
     * {@return true if an open table holds {@code tag} and {@code handle} was made by an earlier table under it}: read
     * in the holder's layout, its epoch is 0 and its generation below the holder's floor, so every table rejects it.
     *
     * @param tag the handle's tag
     * @param handle the handle
     */
    public static synchronized boolean predatesHolder(int tag, long handle) {
        HandleLayout layout = tag > 0 && tag < TAGS ? LAYOUTS[tag] : null;
        return layout != null && layout.epoch(handle) == 0 && layout.generation(handle) < FLOORS[tag];
    }

    /**
     * {@return the handle layout of the open table with this tag, or {@code null}}
     *
     * @param tag any value
     */
    public static synchronized HandleLayout layoutOf(int tag) {
        return tag > 0 && tag < LAYOUTS.length ? LAYOUTS[tag] : null;
    }

    /**
     * {@return {@code handle} formatted with the name and layout of the open table that holds its tag, or as
     * {@code tag7#42@3} in the default layout if none does; {@code "null"} for 0}
     *
     * @param handle any value
     */
    public static synchronized String format(long handle) {
        int tag = HandleLayout.DEFAULT.tag(handle);
        HandleLayout layout = layoutOf(tag);
        String name = nameOf(tag);
        return layout != null && name != null ? layout.format(name, handle)
                : HandleLayout.DEFAULT.format("tag" + tag, handle);
    }
}
