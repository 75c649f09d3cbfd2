package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.InvalidHandleException;

/**
 * The messages of a full table and of a handle not live: slow paths that read the slot map's state after
 * {@link SlotMap#find} or {@link SlotMap#reserve} said no.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SlotRejections {
    /** Names other tags' tables, for a foreign handle's message: the seam the tag registry implements. */
    public interface Owners {
        /** {@return the name of the open table with {@code tag}, or null} */
        String nameOf(int tag);

        /** {@return the name of the last closed table with {@code tag}, or null} */
        String closedNameOf(int tag);

        /** {@return whether an open table holds {@code tag} and an earlier table under it made {@code handle}} */
        boolean predatesHolder(int tag, long handle);

        /** {@return {@code handle} as text, in the layout and name of the open table with its tag if any} */
        String format(long handle);
    }

    private SlotRejections() {
    }

    /**
     * {@return why {@code requested} more records do not fit in {@code slots}}: what it has room for (the free list and
     * the slots never opened), and its counters, {@code size} the table's live records
     */
    public static CapacityExceededException full(SlotMap slots, long requested, int size) {
        int listed = slots.listLength();
        return new CapacityExceededException("table '" + slots.name + "' is full: " + requested
                + " record(s) requested, room for " + (listed + slots.freshSlots()) + "; size=" + size
                + ", holes=" + listed + ", retired=" + slots.retired + ", maxSlot=" + slots.maxSlot + " ("
                + slots.layout + ")");
    }

    /** {@return why a take found slot {@code slot} in the free list, which is not free} */
    public static IllegalStateException corruptList(SlotMap slots, int slot) {
        return new IllegalStateException("free list of table '" + slots.name + "' is corrupt: it"
                + " names slot " + slot + ", which is not a free slot; nothing was added.");
    }

    /**
     * Explains why {@code handle} is not live here; {@code previousName}: the tag's last closed table, or null;
     * {@code owners} names the tables of other tags.
     */
    public static InvalidHandleException rejection(SlotMap slots, long handle, String previousName, Owners owners) {
        HandleLayout layout = slots.layout;
        String tableName = slots.name;
        int tag = slots.tag();
        int floor = slots.floor;
        int limit = slots.limit;
        String text = layout.format(tableName, handle);
        if (handle == 0L) {
            return invalid(tableName, handle, InvalidHandleException.Reason.NULL,
                    "null handle passed to table '" + tableName + "'");
        }
        int handleTag = layout.tag(handle);
        if (handleTag != tag) {
            String owner = owners.nameOf(handleTag);
            String closedOwner = owners.closedNameOf(handleTag);
            if (owner != null && !owners.predatesHolder(handleTag, handle)) {
                return invalid(tableName, handle, InvalidHandleException.Reason.FOREIGN, "handle "
                        + owners.format(handle) + " belongs to table '" + owner + "' (tag " + handleTag
                        + "), not to table '" + tableName + "' (tag " + tag + ")");
            }
            String maker = layout.format(closedOwner == null ? "tag" + handleTag : closedOwner, handle);
            if (owner != null) {
                return invalid(tableName, handle, InvalidHandleException.Reason.CLOSED, "handle " + maker
                        + " was made by an earlier table with tag " + handleTag
                        + (closedOwner == null ? "" : " (the last was '" + closedOwner + "')") + ", closed since;"
                        + " table '" + owner + "' holds the tag now and never accepts those handles, nor does table '"
                        + tableName + "' (tag " + tag + ")");
            }
            if (closedOwner != null) {
                return invalid(tableName, handle, InvalidHandleException.Reason.CLOSED, "handle " + maker + " has tag "
                        + handleTag + ", whose last table, '" + closedOwner + "', is closed: no open table has tag "
                        + handleTag + ", so no table accepts it, and table '" + tableName + "' has tag " + tag
                        + " (a handle made up with that tag reads the same)");
            }
            return invalid(tableName, handle, InvalidHandleException.Reason.FORGED, "handle " + maker + " has tag "
                    + handleTag + ", but table '" + tableName + "' has tag " + tag + " and no table in this process has held tag "
                    + handleTag);
        }
        long slot = layout.slot(handle);
        int generation = layout.generation(handle);
        if (layout.hasStrayBits(handle)) {
            return invalid(tableName, handle, InvalidHandleException.Reason.FORGED, "handle 0x"
                    + Long.toHexString(handle) + " (slot " + slot + ", generation " + generation
                    + ") has bits set outside " + layout + " of table '" + tableName + "'; no table made it");
        }
        if (slot == 0) {
            return invalid(tableName, handle, InvalidHandleException.Reason.FORGED, "handle " + text
                    + " names slot 0, the free-list header of table '" + tableName + "', which never holds a record");
        }
        int handleEpoch = layout.epoch(handle);
        if (handleEpoch == 0 && generation < floor) {
            String earlier = layout.format(previousName == null ? "tag" + tag : previousName, handle);
            return invalid(tableName, handle, InvalidHandleException.Reason.CLOSED, "handle " + earlier
                    + " (generation " + generation + ") was made by an earlier table with tag " + tag
                    + (previousName == null ? "" : " (the last was '" + previousName + "')")
                    + ", closed since; table '" + tableName + "' reuses the tag and starts every slot at generation "
                    + floor + ", so it never accepts those tables' handles");
        }
        if (handleEpoch != slots.epoch) {
            if (handleEpoch < slots.epoch) {
                return invalid(tableName, handle, InvalidHandleException.Reason.STALE, "stale handle " + text
                        + " (slot " + slot + ", generation " + generation + ", epoch " + handleEpoch + "): table '"
                        + tableName + "' has been emptied since (clear or reset) and is in epoch " + slots.epoch
                        + ", so every handle from before is stale");
            }
            return invalid(tableName, handle, InvalidHandleException.Reason.FORGED, "handle " + text + " (slot "
                    + slot + ", generation " + generation + ") has epoch " + handleEpoch + ", but table '" + tableName
                    + "' is in epoch " + slots.epoch + "; this table never handed it out");
        }
        if (slot >= limit) {
            String opened = limit <= 1 ? "has not handed out any slot yet" : "has opened only slots 1.." + (limit - 1);
            return invalid(tableName, handle, InvalidHandleException.Reason.OUT_OF_RANGE, "handle " + text
                    + " names slot " + slot + " (generation " + generation + "), but table '" + tableName + "' "
                    + opened);
        }
        int meta = slots.logicalMeta((int) slot);
        int current = SlotMeta.generation(meta);
        String where = " (table '" + tableName + "', slot " + slot + "): handle generation " + generation
                + ", slot generation " + current + ", slot is " + SlotMeta.state(meta);
        if (generation < current || (generation == current && SlotMeta.isRetired(meta))) {
            return invalid(tableName, handle, InvalidHandleException.Reason.STALE, "stale handle " + text + where
                    + "; its record was removed");
        }
        return invalid(tableName, handle, InvalidHandleException.Reason.FORGED, "handle " + text + where
                + "; this table never handed it out");
    }

    private static InvalidHandleException invalid(String table, long handle, InvalidHandleException.Reason reason,
                                                  String message) {
        return new InvalidHandleException(table, handle, reason, message);
    }
}
