package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.internal.tags.TagRegistry;

/**
 * Static helpers for any table's handles: null, tag and format. A handle is a plain {@code long} (store, send, compare
 * with {@code ==}); its other parts depend on its table's split, read with {@link Table#handleLayout()}. {@link #NULL}
 * ({@code 0L}) refers to nothing in any table.
 */
public final class Handles {
    /** The null handle: valid in no table. */
    public static final long NULL = 0L;

    private Handles() {
    }

    /**
     * {@return {@code true} if it is {@link #NULL}}
     *
     * @param handle a handle
     */
    public static boolean isNull(long handle) {
        return handle == NULL;
    }

    /**
     * {@return its table tag (12 bits)}
     *
     * @param handle any handle
     */
    public static int tag(long handle) {
        return HandleLayout.DEFAULT.tag(handle);
    }

    /**
     * {@return the handle formatted as {@code name#slot@generation} ({@code particles#42@3}), using the name and layout
     * of the open table that owns its tag; {@code tag7#42@3} if no open table has that tag; {@code null} for
     * {@link #NULL}}
     *
     * @param handle the handle
     */
    public static String format(long handle) {
        return TagRegistry.format(handle);
    }
}
