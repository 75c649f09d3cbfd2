package dev.bulkdata.storage.internal;

import dev.bulkdata.storage.HandleLayout;

/**
 * Hands out table tags (1 to {@link HandleLayout#MAX_TAG}) and remembers, for every open table,
 * its name and handle layout, so that a handle can be printed with the name of its table and a
 * foreign handle can be reported with the table it belongs to.
 *
 * <p>Tags are handed out round-robin, skipping tags in use, so a closed table's tag is reused
 * as late as possible. At most {@link HandleLayout#MAX_TAG} tables can be open at once.
 *
 * <p>Thread-safe: all methods synchronize on the class. Only table creation and closing call
 * the mutating methods; lookups happen on error paths and when formatting.
 */
public final class TagRegistry {
    private static final String[] NAMES = new String[HandleLayout.MAX_TAG + 1];
    private static final HandleLayout[] LAYOUTS = new HandleLayout[HandleLayout.MAX_TAG + 1];
    private static int lastTag;

    private TagRegistry() {
    }

    /**
     * Reserves a tag for a new table.
     *
     * @param name the table's name
     * @param layout the table's handle layout
     * @return the tag, 1 to {@link HandleLayout#MAX_TAG}
     * @throws IllegalStateException if every tag is in use by an open table
     */
    public static synchronized int register(String name, HandleLayout layout) {
        for (int i = 1; i <= HandleLayout.MAX_TAG; i++) {
            int tag = (lastTag + i - 1) % HandleLayout.MAX_TAG + 1;
            if (NAMES[tag] == null) {
                NAMES[tag] = name;
                LAYOUTS[tag] = layout;
                lastTag = tag;
                return tag;
            }
        }
        throw new IllegalStateException("cannot create table '" + name + "': all " + HandleLayout.MAX_TAG
                + " table tags are in use; close tables that are no longer needed");
    }

    /**
     * Frees a tag. Releasing a tag that is not in use does nothing.
     *
     * @param tag a tag returned by {@link #register}
     */
    public static synchronized void release(int tag) {
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
        return tag > 0 && tag < NAMES.length ? NAMES[tag] : null;
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
