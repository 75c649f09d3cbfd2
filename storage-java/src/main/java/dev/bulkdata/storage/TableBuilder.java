package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.CheckpointFallback;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.format.MappedOpen;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The options every table kind has, shared by {@link BulkTable.Builder} and {@link PackedTable.Builder}: the handle
 * layout, a cap on the slot space, a memory budget, a fixed tag, and for a {@link #mapped(Path)} file (tables in memory
 * ignore these) checkpoint fallback, block checksums and exact schema. Each setter checks its value at once, returns
 * the kind's own builder for chaining and leaves the builder unchanged when it throws. Not thread-safe.
 *
 * @param <B> the kind's builder
 * @param <T> the kind's table
 * @param <M> the kind's table mapped from a file ({@link MappedTable})
 */
public abstract sealed class TableBuilder<B extends TableBuilder<B, T, M>, T extends Table, M extends T>
        permits BulkTable.Builder, PackedTable.Builder {
    final Schema schema;
    private HandleLayout handleLayout;
    int maxCapacity = Integer.MAX_VALUE;
    private long memoryBudget = Long.MAX_VALUE;
    private int tag;
    private CheckpointFallback fallback = CheckpointFallback.AFTER_CRASH;
    private boolean blockChecksums;
    private boolean exactSchema;

    TableBuilder(Schema schema) {
        if (schema == null) {
            throw new IllegalArgumentException("schema is null");
        }
        MemoryBudget.limit(); // read the process-wide budget now: a bad property fails here, not in an add
        this.schema = schema;
    }

    /**
     * Sets how handles split into slot, generation and epoch bits, cap or not; default {@link HandleLayout#DEFAULT}
     * or, with a {@link #maxCapacity(int) cap}, {@link HandleLayout#forCapacity(int) forCapacity} of it.
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
     * Caps the slot space: the table never uses more than {@code slots} slots (live, free and retired together); an
     * add beyond it throws {@link CapacityExceededException}. Uncapped, the limit is {@link HandleLayout#maxSlot()}.
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
     * Caps the native memory of the table's blocks, on top of the process-wide {@link MemoryBudget}. A block counts
     * from when the table first takes it until the table closes (one given back by {@link Table#cancelAdd(long)} stays
     * counted). An add, {@code addAll} or load that would pass either budget throws {@link CapacityExceededException}.
     * Mapped tables ({@link #mapped(Path)}) count against no budget. Default: no cap.
     *
     * @param bytes the cap in bytes, at least 1 ({@link Long#MAX_VALUE}: no cap of its own)
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes < 1}
     */
    public B memoryBudget(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("memoryBudget=" + bytes + " must be at least 1 byte (Long.MAX_VALUE"
                    + " for no cap of the table's own)");
        }
        this.memoryBudget = bytes;
        return self();
    }

    /**
     * Gives the table a fixed tag, so its handles carry the same tag in every run: what a saved table needs to load
     * under its own tag while other tables are open (automatic tags never take a fixed one). Handles of earlier
     * tables under the tag in this process stay rejected.
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
     * Sets whether {@link #mapped(Path)} may open a file at the checkpoint before its newest one; default
     * {@link CheckpointFallback#AFTER_CRASH}.
     *
     * @param fallback when to fall back
     * @return this builder
     * @throws IllegalArgumentException if {@code fallback} is null
     */
    public B checkpointFallback(CheckpointFallback fallback) {
        if (fallback == null) {
            throw new IllegalArgumentException("checkpoint fallback is null; use CheckpointFallback.AFTER_CRASH");
        }
        this.fallback = fallback;
        return self();
    }

    /**
     * Sets whether a file that {@link #mapped(Path)} creates keeps a CRC32C per block (a reopened file needs its
     * creation setting); default off. Computed at each {@link MappedTable#checkpoint()} for the changed blocks (the
     * table keeps change versions, so a set by handle pays the stamp), checked on opening a cleanly closed file
     * (O(bytes)) and by {@link MappedTable#verify()}.
     *
     * @param on whether blocks carry checksums
     * @return this builder
     */
    public B blockChecksums(boolean on) {
        this.blockChecksums = on;
        return self();
    }

    /**
     * Sets whether {@link #mapped(Path)} reopens only a file of exactly this builder's schema; default off (a changed
     * schema is migrated). With it on, any difference throws {@link StorageFileException} ({@code SCHEMA_MISMATCH})
     * and the file stays as it was.
     *
     * @param on whether the schema must match exactly
     * @return this builder
     */
    public B exactSchema(boolean on) {
        this.exactSchema = on;
        return self();
    }

    /**
     * Creates a new table with its own tag and no native memory until the first add; the builder may build again.
     *
     * @return the new, empty table
     * @throws IllegalStateException if all automatic table tags are in use by open tables, or an open table holds the
     *     fixed {@link #tag(int)}
     * @throws CapacityExceededException if earlier tables under the fixed tag used up the layout's generations
     */
    public abstract T build();

    /**
     * Opens a table whose blocks are regions of {@code file} mapped into memory (it may exceed the heap and free
     * memory): a {@link MappedTable} of this builder's kind. An absent or empty file is created; otherwise the table
     * of its last completed {@link MappedTable#checkpoint() checkpoint} reopens with every record, generation, free
     * slot, identity and tag, so handles stay valid (give it a fixed {@link #tag(int)}). A schema changed as
     * {@link Snapshots} allows migrates the file (O(slots x fields)). After a crash it reopens to exactly the last
     * checkpoint's structure; values written since may or may not be there, never torn. Locked while open. Opening
     * reads the metadata, not the blocks: O(slots). Guide: docs/saving-and-mapped-tables.md, "Mapped tables".
     *
     * @param file the table's file
     * @return the open table
     * @throws StorageFileException if the file is not a mapped table's file, is damaged ({@code CHECKSUM}, unless the
     *     {@link #checkpointFallback(CheckpointFallback) fallback option} allows the checkpoint before), holds
     *     another kind, a schema that does not reopen under this one ({@code SCHEMA_MISMATCH}) or other options
     *     (layout, reuse order, capacity, checksums, tag), its tag is taken ({@code TAG_CONFLICT}), or another table
     *     holds the file ({@code LOCKED})
     * @throws IOException if the file cannot be opened, read or written
     * @throws IllegalArgumentException if {@code file} is null
     * @throws IllegalStateException as {@link #build()} when the file is created
     */
    @SuppressWarnings("unchecked") // StoredTables.openMapped makes the mapped table of this builder's kind
    public final M mapped(Path file) throws IOException {
        if (file == null) {
            throw new IllegalArgumentException("file is null");
        }
        return (M) StoredTables.openMapped(file, new MappedOpen.Expected(kind(), schema, reuseOrder(), layout(),
                maxCapacity, tag, fallback, blockChecksums, exactSchema), this::buildMapped);
    }

    /** {@return a new, empty mapped table of this builder's kind and options, for {@link #mapped} to give a file} */
    abstract AbstractTable buildMapped();

    /** {@return {@code table} with this builder's options that apply after construction} */
    final <X extends AbstractTable> X configured(X table) {
        table.arena.budget(memoryBudget);
        return table;
    }

    abstract byte kind();

    abstract ReuseOrder reuseOrder();

    /** {@return the handle layout of the tables this builder makes: the one set, else the one {@link #maxCapacity} chooses} */
    final HandleLayout layout() {
        return handleLayout != null ? handleLayout : HandleLayout.forCapacity(maxCapacity);
    }

    /** {@return a new lease on the table's tag: the fixed one if set, else an automatic one} */
    final TagLease lease() {
        HandleLayout layout = layout();
        return tag == 0
                ? TagRegistry.register(schema.name(), layout)
                : TagRegistry.registerFixed(schema.name(), layout, tag);
    }

    @SuppressWarnings("unchecked") // B is this class's own subclass, by the permits clause
    private B self() {
        return (B) this;
    }
}
