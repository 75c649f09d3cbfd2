package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.TagLease;
import dev.bulkdata.storage.internal.TagRegistry;

/**
 * The options every table kind has, shared by {@link BulkTable.Builder} and
 * {@link PackedTable.Builder}: the handle layout, a cap on the index space and a fixed tag. Each
 * setter checks its value at once, returns the kind's own builder for chaining and leaves the
 * builder unchanged when it throws. Not thread-safe.
 *
 * @param <B> the kind's builder
 * @param <T> the kind's table
 */
public abstract sealed class TableBuilder<B extends TableBuilder<B, T>, T extends Table>
        permits BulkTable.Builder, PackedTable.Builder {
    final Schema schema;
    HandleLayout handleLayout = HandleLayout.DEFAULT;
    int maxCapacity = Integer.MAX_VALUE;
    private int tag;

    TableBuilder(Schema schema) {
        if (schema == null) {
            throw new IllegalArgumentException("schema is null");
        }
        this.schema = schema;
    }

    /**
     * Sets how handles split into index and generation bits; default {@link HandleLayout#DEFAULT}.
     *
     * @param layout the handle layout
     * @return this builder
     * @throws IllegalArgumentException if {@code layout} is null
     */
    public B handleLayout(HandleLayout layout) {
        if (layout == null) {
            throw new IllegalArgumentException("handle layout is null; use HandleLayout.DEFAULT");
        }
        this.handleLayout = layout;
        return self();
    }

    /**
     * Caps the index space: the table never uses more than {@code slots} slots (live, free and
     * retired together); an add beyond it throws {@link CapacityExceededException}. Without a
     * cap the limit is the handle layout's {@link HandleLayout#maxIndex()}.
     *
     * @param slots the largest number of slots, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code slots < 1}
     */
    public B maxCapacity(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("maxCapacity=" + slots + " must be at least 1");
        }
        this.maxCapacity = slots;
        return self();
    }

    /**
     * Gives the table a fixed tag instead of an automatic one, so that its handles carry the
     * same tag in every run of the program: what a table saved with {@link Snapshots} needs to
     * be loaded under its own tag while other tables are open (automatic tags are handed out
     * from 1 up, fixed ones never). The table still gets a new identity: its slots start above
     * every generation earlier tables under the tag handed out in this process, so their handles
     * stay rejected.
     *
     * @param tag {@link HandleLayout#MIN_FIXED_TAG} to {@link HandleLayout#MAX_TAG}
     * @return this builder
     * @throws IllegalArgumentException if {@code tag} is outside that range
     */
    public B tag(int tag) {
        TagRegistry.checkFixed(tag);
        this.tag = tag;
        return self();
    }

    /**
     * Creates the table. It holds no native memory until the first add. The builder may build
     * again: each table is new, with its own tag.
     *
     * @return the new, empty table
     * @throws IllegalStateException if all automatic table tags are in use by open tables, or an
     *     open table holds the fixed {@link #tag(int)}
     * @throws CapacityExceededException if earlier tables under the fixed tag handed out every
     *     generation this handle layout has
     */
    public abstract T build();

    /** {@return a new lease on the table's tag: the fixed one if set, else an automatic one} */
    final TagLease lease() {
        return tag == 0
                ? TagRegistry.register(schema.name(), handleLayout)
                : TagRegistry.registerFixed(schema.name(), handleLayout, tag);
    }

    @SuppressWarnings("unchecked") // B is this class's own subclass, by the permits clause
    private B self() {
        return (B) this;
    }
}
