package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.tags.TagRegistry;

/**
 * Static helpers for handles: pack, unpack and format. Unpacking uses
 * {@link HandleLayout#DEFAULT}; for tables with another split use their
 * {@link Table#handleLayout()}.
 *
 * <p>A handle is a plain {@code long}: store it in arrays, send it over the network, compare it
 * with {@code ==}. {@link #NULL} ({@code 0L}) refers to nothing in any table.
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
     * {@return its slot index (unsigned 32 bits), read in {@link HandleLayout#DEFAULT}}: right
     * only for a handle of a table with the default layout (a builder's given neither a layout
     * nor a {@code maxCapacity}, see {@link TableBuilder#handleLayout}); for any table,
     * {@code table.handleLayout().index(handle)} is right
     *
     * @param handle a handle of the default layout
     */
    public static long index(long handle) {
        return HandleLayout.DEFAULT.index(handle);
    }

    /**
     * {@return its generation (20 bits), read in {@link HandleLayout#DEFAULT}}: right only for a
     * handle of a table with the default layout, like {@link #index}
     *
     * @param handle a handle of the default layout
     */
    public static int generation(long handle) {
        return HandleLayout.DEFAULT.generation(handle);
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
     * Packs a handle of the default layout. No table is consulted.
     *
     * @param tag table tag, 0 to 4095
     * @param generation 0 to {@code 2^20 - 1}
     * @param index slot index, 0 to {@code 2^32 - 1}
     * @return the handle
     * @throws IllegalArgumentException if a part does not fit its bits
     */
    public static long pack(int tag, int generation, long index) {
        return HandleLayout.DEFAULT.pack(tag, generation, index);
    }

    /**
     * Formats a handle as {@code name#index@generation} ({@code particles#42@3}), using the
     * name and layout of the open table that owns its tag; {@code tag7#42@3} if no open table
     * has that tag; {@code null} for {@link #NULL}.
     *
     * @param handle the handle
     * @return the readable form
     */
    public static String format(long handle) {
        HandleLayout layout = TagRegistry.layoutOf(HandleLayout.DEFAULT.tag(handle));
        return (layout != null ? layout : HandleLayout.DEFAULT).format(handle);
    }
}
