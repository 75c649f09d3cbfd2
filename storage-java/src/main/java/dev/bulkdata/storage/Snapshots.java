package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.format.FileLayout;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Saves a {@link BulkTable} or {@link PackedTable} to a file or channel, and loads it back as an
 * ordinary in-memory table of the same kind; saves a {@link ComponentTable} and loads it for its
 * entity table ({@link #loadComponents}). Tables that refer to each other through handle fields
 * ({@link HandleField}) are checked with {@link #danglingReferences} and, after a load under a
 * new tag, mended with {@link #remap}.
 *
 * <pre>{@code
 * Snapshots.save(particles, Path.of("particles.bulk"));
 * try (BulkTable loaded = Snapshots.load(Path.of("particles.bulk"), BulkTable.class, schema)) {
 *     loaded.get(h, PX);          // h, kept from before the save, is valid here
 * }
 * }</pre>
 *
 * <h2>What a loaded table is</h2>
 * Exactly the saved table: its size, iteration order, every live record's bytes, every slot's
 * generation, its retired slots, its free list in order (so the next {@code add()} returns the
 * handle it would have returned before the save), its reuse order, handle layout, capacity
 * limit, tag and schema (name, layout, fields). Two things are not kept: the add that
 * {@link Table#cancelAdd} could undo exactly (after a load it is a plain remove), and the order
 * a {@link PackedTable#defragment} pass last completed (the loaded table is fragmented).
 *
 * <h2>Tags and identity</h2>
 * A table loaded under its own tag accepts every handle the saved table did. Every table has a
 * random <em>identity</em>, made when it is built and kept by its snapshots. A snapshot is
 * loaded under its tag if no open table holds that tag and no table of another identity
 * handed out handles under it earlier in this process (such a table's handles could match the
 * restored slots); otherwise loading throws {@link SnapshotException} ({@code TAG_CONFLICT}),
 * unless {@link LoadOption#NEW_TAG} is given. Give a table that you save a fixed tag
 * ({@code BulkTable.Builder.tag}, {@link HandleLayout#MIN_FIXED_TAG} and up), which automatic
 * tags never take, so that it finds its tag free in a new run. Loading a snapshot of the same
 * table again after using a later one is a rollback: handles made after the older save may
 * name other records in it.
 *
 * <h2>Schema changes</h2>
 * A load given an expected schema takes a snapshot saved under an earlier version of it: the
 * fields are matched by name, whatever their order and the layout ({@link Layout#SOA} or
 * {@link Layout#AOS}). A field the snapshot lacks reads its load default
 * ({@link Schema.Builder#loadDefault}), zero if none is declared, in every loaded record; a
 * field the expected schema lacks is dropped; a field of both keeps its value. A field whose
 * type (or a handle field's target table) differs, or another table name, throws
 * {@link SnapshotException} ({@code SCHEMA_MISMATCH}) naming it; so does any difference with
 * {@link LoadOption#EXACT_SCHEMA}. Slots, generations, the free list and the tag are kept as
 * always, so every handle of the saved table stays valid. Such a load copies each record field
 * by field: O(slots × fields), holding the snapshot's blocks 16 at a time besides the table's.
 *
 * <h2>Files</h2>
 * A header, the metadata (schema, handle layout, tag, identity, slot states, free list), the
 * blocks and a CRC32C per block, in the saving machine's byte order (another byte order is
 * refused); every section is checked when loading. The format is specified in
 * {@code docs/format.md} of the source repository. {@code save(table, path)} writes a
 * temporary file beside {@code path} and moves it into place, so an interrupted save leaves
 * any earlier file at {@code path} as it was; it does not force the data to the disk.
 *
 * <h2>Costs and threads</h2>
 * Save and load are O(slots + blocks): block memory goes to and from the channel directly,
 * nothing is done per record. A save holds the table's iteration guard: adds and removes on
 * it meanwhile throw {@link java.util.ConcurrentModificationException}; field writes from other
 * threads during a save are not detected and may be saved half-done.
 */
public final class Snapshots {
    /** Options of a load. */
    public enum LoadOption {
        /**
         * Load under a new automatic tag, with a new identity: for a snapshot whose own tag is
         * taken (held by an open table, or used by another table in this process). The loaded
         * table's handles then differ from the saved ones in the tag and, if that tag's floor
         * requires it, in the generation, which every slot is moved up by; {@link #remap}
         * rewrites the references that other tables' handle fields hold to it.
         */
        NEW_TAG,
        /**
         * Require the expected schema exactly: same layout, the same fields in the same order,
         * of the same types. Without it a snapshot whose schema differs from the expected one
         * in fields added, dropped or reordered, or in its layout, is loaded under the expected
         * schema (see "Schema changes" above); with it that throws {@code SCHEMA_MISMATCH}.
         */
        EXACT_SCHEMA
    }

    private Snapshots() {
    }

    /**
     * Saves a table to a file, replacing the file if it exists.
     *
     * @param table an open {@link BulkTable} or {@link PackedTable} of this library
     * @param path the file
     * @throws IOException if writing fails; an earlier file at {@code path} is then left as it was
     * @throws IllegalArgumentException if {@code table} is not a table of this library
     * @throws IllegalStateException if {@code table} is closed
     * @throws java.util.ConcurrentModificationException if another thread changes its structure
     */
    public static void save(Table table, Path path) throws IOException {
        AbstractTable t = checked(table);
        saveTo(path, out -> write(t, out));
    }

    /** Writes through {@code writer} into a temporary file beside {@code path}, then moves it into place. */
    private static void saveTo(Path path, ChannelWriter writer) throws IOException {
        Objects.requireNonNull(path, "path");
        Path temporary = path.resolveSibling(path.getFileName() + ".tmp-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        boolean moved = false;
        try {
            try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                writer.write(out);
            }
            Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            moved = true;
        } finally {
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
        }
    }

    /**
     * Writes a snapshot of a table to a channel, from its current position; the channel stays
     * open.
     *
     * @param table an open {@link BulkTable} or {@link PackedTable} of this library
     * @param out where to write
     * @throws IOException if writing fails
     * @throws IllegalArgumentException if {@code table} is not a table of this library
     * @throws IllegalStateException if {@code table} is closed
     */
    public static void save(Table table, WritableByteChannel out) throws IOException {
        write(checked(table), Objects.requireNonNull(out, "out"));
    }

    private interface ChannelWriter {
        void write(WritableByteChannel out) throws IOException;
    }

    // ---------------------------------------------------------------------------------------
    // Component tables

    /**
     * Saves a component table to a file, replacing the file if it exists: its rows in order,
     * each row's entity (slot and generation) and record. The file names its entity table by
     * that table's identity; save the entity table too, at the same point, and load it first
     * ({@link #loadComponents}). While saving, the component table's structural changes throw
     * {@link java.util.ConcurrentModificationException}. O(rows + blocks).
     *
     * @param components an open component table
     * @param path the file
     * @throws IOException if writing fails; an earlier file at {@code path} is then left as it was
     * @throws IllegalStateException if {@code components} is closed
     */
    public static void save(ComponentTable components, Path path) throws IOException {
        Objects.requireNonNull(components, "components");
        saveTo(path, out -> save(components, out));
    }

    /**
     * Writes a snapshot of a component table to a channel, from its current position; the
     * channel stays open. See {@link #save(ComponentTable, Path)}.
     *
     * @param components an open component table
     * @param out where to write
     * @throws IOException if writing fails
     * @throws IllegalStateException if {@code components} is closed
     */
    public static void save(ComponentTable components, WritableByteChannel out) throws IOException {
        Objects.requireNonNull(components, "components");
        Objects.requireNonNull(out, "out");
        components.save(out);
    }

    /**
     * Loads a component table saved with {@link #save(ComponentTable, Path)} for the entities of
     * {@code entities}: the entity table it was saved with, or that table loaded from a snapshot
     * made at the same point as the component table's (or later), under its own tag or a new
     * one ({@link LoadOption#NEW_TAG}: every entity handle is then moved as the entity table's
     * were). Every entity that had a component when it was saved has it again, in the same row
     * (size, row order, records and owners as saved); a component of an entity removed since is
     * stale, as it would have become. Not kept: the order a {@link ComponentTable#defragment}
     * pass reached (the loaded table defragments from scratch). O(rows + blocks). The schema
     * may have changed since the save as a table's may (see "Schema changes" above).
     *
     * @param path the file
     * @param entities the entity table, open
     * @param expected the schema to load under, or null to take the file's
     * @param options {@link LoadOption#EXACT_SCHEMA} or none
     * @return the component table, which the caller closes
     * @throws SnapshotException if the file is not a valid snapshot of a component table
     *     ({@code KIND_MISMATCH} for a table's snapshot), holds a schema that does not load
     *     under {@code expected} ({@code SCHEMA_MISMATCH}), or does not fit
     *     {@code entities} ({@code ENTITY_MISMATCH}: saved for another entity table, or with a
     *     component of an entity that {@code entities} has not reached); nothing stays open
     * @throws IOException if reading fails
     * @throws IllegalArgumentException if {@code entities} is not a table of this library, or
     *     an option is {@link LoadOption#NEW_TAG} (components follow their entity table's tag)
     * @throws IllegalStateException if {@code entities} is closed
     */
    public static ComponentTable loadComponents(Path path, Table entities, Schema expected, LoadOption... options)
            throws IOException {
        Objects.requireNonNull(path, "path");
        AbstractTable owner = checked(entities);
        boolean exact = exact(options);
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ)) {
            return StoredTables.readComponents(in, in.size(), path.toString(), owner, expected, exact);
        }
    }

    /** {@return whether the options of a component table's load ask for the exact schema} */
    private static boolean exact(LoadOption... options) {
        boolean exact = false;
        for (LoadOption option : options) {
            if (option == LoadOption.NEW_TAG) {
                throw new IllegalArgumentException("a component table is loaded under its entity table's tag;"
                        + " load the entity table with NEW_TAG instead");
            }
            exact |= option == LoadOption.EXACT_SCHEMA;
        }
        return exact;
    }

    /**
     * Loads a component table from a channel, from its current position; the channel stays open
     * and is read up to the snapshot's end. See {@link #loadComponents(Path, Table, Schema, LoadOption...)}.
     *
     * @param in the channel
     * @param source a name for the source, for messages
     * @param entities the entity table, open
     * @param expected the schema to load under, or null to take the snapshot's
     * @param options {@link LoadOption#EXACT_SCHEMA} or none
     * @return the component table
     * @throws SnapshotException as {@link #loadComponents(Path, Table, Schema, LoadOption...)}
     * @throws IOException if reading fails
     */
    public static ComponentTable loadComponents(ReadableByteChannel in, String source, Table entities,
                                                Schema expected, LoadOption... options) throws IOException {
        AbstractTable owner = checked(entities);
        boolean exact = exact(options);
        return StoredTables.readComponents(Objects.requireNonNull(in, "in"), -1, String.valueOf(source), owner,
                expected, exact);
    }

    private static void write(AbstractTable table, WritableByteChannel out) throws IOException {
        table.beginIteration();
        try {
            StoredTables.write(table, out);
        } finally {
            table.endIteration();
        }
    }

    private static AbstractTable checked(Table table) {
        if (!(table instanceof AbstractTable t)) {
            throw new IllegalArgumentException("table=" + table + " is not a BulkTable or PackedTable of this library");
        }
        t.ensureOpen();
        return t;
    }

    /**
     * Loads a table saved with {@link #save}, with the file's schema.
     *
     * @param path the file
     * @param options load options
     * @return the table, a {@link BulkTable} or {@link PackedTable} as saved
     * @throws SnapshotException if the file is not a valid snapshot or its tag is taken
     * @throws IOException if reading fails
     */
    public static Table load(Path path, LoadOption... options) throws IOException {
        return load(path, Table.class, null, options);
    }

    /**
     * Loads a table saved with {@link #save}, checking its schema: the loaded table uses
     * {@code expected} itself, so the caller's field objects work on it.
     *
     * @param path the file
     * @param expected the schema to load under: the file's, or an earlier version of it (see
     *     "Schema changes" above)
     * @param options load options
     * @return the table, a {@link BulkTable} or {@link PackedTable} as saved
     * @throws SnapshotException if the file is not a valid snapshot, holds a schema that does not
     *     load under {@code expected} ({@code SCHEMA_MISMATCH}) or its tag is taken
     * @throws IOException if reading fails
     */
    public static Table load(Path path, Schema expected, LoadOption... options) throws IOException {
        return load(path, Table.class, expected, options);
    }

    /**
     * Loads a table of a given kind saved with {@link #save}.
     *
     * @param path the file
     * @param kind {@code BulkTable.class}, {@code PackedTable.class} or {@code Table.class} for either
     * @param expected the schema to load under (the file's, or an earlier version of it: see
     *     "Schema changes" above), or null to take the file's
     * @param options load options
     * @param <T> the kind
     * @return the table
     * @throws SnapshotException if the file is not a valid snapshot, holds another kind
     *     ({@code KIND_MISMATCH}) or a schema that does not load under {@code expected}
     *     ({@code SCHEMA_MISMATCH}), or its tag is taken; nothing stays open
     * @throws IOException if reading fails
     */
    public static <T extends Table> T load(Path path, Class<T> kind, Schema expected, LoadOption... options)
            throws IOException {
        Objects.requireNonNull(path, "path");
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ)) {
            return read(in, in.size(), path.toString(), kind, expected, options);
        }
    }

    /**
     * Loads a table from a channel, from its current position; the channel stays open and is
     * read up to the snapshot's end.
     *
     * @param in the channel
     * @param source a name for the source, for messages
     * @param kind {@code BulkTable.class}, {@code PackedTable.class} or {@code Table.class} for either
     * @param expected the schema to load under (see "Schema changes" above), or null to take the
     *     snapshot's
     * @param options load options
     * @param <T> the kind
     * @return the table
     * @throws SnapshotException if the bytes are not a valid snapshot, hold another kind or
     *     schema, or its tag is taken; no memory is held for a length the bytes do not back
     * @throws IOException if reading fails
     */
    public static <T extends Table> T load(ReadableByteChannel in, String source, Class<T> kind, Schema expected,
                                           LoadOption... options) throws IOException {
        return read(Objects.requireNonNull(in, "in"), -1, String.valueOf(source), kind, expected, options);
    }

    // ---------------------------------------------------------------------------------------
    // References between tables: handle fields

    /**
     * Rewrites the references to {@code loaded} held in {@code referrer}'s handle fields, after
     * {@code loaded} came back under a new tag ({@link LoadOption#NEW_TAG}). In every live record
     * of {@code referrer}, every {@link HandleField} whose {@link HandleField#target() target} is
     * {@code loaded.name()} and whose value carries the tag {@code loaded} was saved with gets
     * {@code loaded}'s tag, and its generation moved up by as much as the load moved
     * {@code loaded}'s slots; its slot index stays. So a reference that was valid in the saved
     * table is valid in the loaded one, and one that was stale stays stale. Other values (the
     * null handle, handles of other tags) are left as they are; a value whose generation cannot
     * be moved that far (ahead of every generation the saved table had: it named no record)
     * becomes the null handle.
     *
     * <p>Does nothing and returns 0 if {@code loaded} was not loaded under a new tag (its
     * handles are the saved ones), and for a pair of tables already remapped: a second call with
     * the same referrer and loaded table changes nothing, also when the new tag happens to equal
     * the old one. Run it after both tables are loaded and before new references to
     * {@code loaded} are written into {@code referrer}. A table that refers to itself is its own
     * referrer. O(live records of
     * {@code referrer}) for each of its handle fields aimed at {@code loaded}; holds
     * {@code referrer}'s iteration guard meanwhile.
     *
     * @param referrer the table whose handle fields are rewritten, open
     * @param loaded a table returned by {@link #load}, open
     * @return how many values were rewritten
     * @throws IllegalArgumentException if either is not a table of this library
     * @throws IllegalStateException if either is closed
     * @throws java.util.ConcurrentModificationException if {@code referrer}'s structure is
     *     being changed
     */
    public static long remap(Table referrer, Table loaded) {
        AbstractTable from = checked(referrer);
        AbstractTable to = checked(loaded);
        Remap remap = Remap.of(to);
        if (!remap.moves() || to.remapped(from)) {
            return 0;
        }
        long[] count = new long[1];
        for (HandleField field : handleFields(from.schema(), remap.name)) {
            from.forEach((chunk, slot) -> {
                long value = chunk.get(slot, field);
                long moved = remap.apply(value);
                if (moved != value) {
                    chunk.set(slot, field, moved);
                    count[0]++;
                }
            });
        }
        to.markRemapped(from);
        return count[0];
    }

    /**
     * {@link #remap(Table, Table)} for the handle fields of a component table: every row, also
     * those of removed entities not swept out yet; once per referrer and loaded table, as there.
     * O(rows) per handle field aimed at {@code loaded}.
     *
     * @param referrer the component table whose handle fields are rewritten, open
     * @param loaded a table returned by {@link #load}, open
     * @return how many values were rewritten
     * @throws IllegalArgumentException if {@code loaded} is not a table of this library
     * @throws IllegalStateException if either is closed
     */
    public static long remap(ComponentTable referrer, Table loaded) {
        Objects.requireNonNull(referrer, "referrer");
        AbstractTable to = checked(loaded);
        Remap remap = Remap.of(to);
        if (!remap.moves() || to.remapped(referrer)) {
            return 0;
        }
        int rows = referrer.size();
        long count = 0;
        for (HandleField field : handleFields(referrer.schema(), remap.name)) {
            for (int row = 0; row < rows; row++) {
                long value = referrer.getAt(row, field);
                long moved = remap.apply(value);
                if (moved != value) {
                    referrer.setAt(row, field, moved);
                    count++;
                }
            }
        }
        to.markRemapped(referrer);
        return count;
    }

    /**
     * Counts the references in {@code referrer}'s handle fields that name no live record: in
     * every live record, every non-null value of a {@link HandleField} that the table of the
     * field's target name among {@code targets} does not {@link Table#contains contain} (a
     * stale, foreign or made-up handle), or whose target is not among {@code targets} (absent).
     * The null handle is never dangling. Run it after loading a set of tables (and
     * {@link #remap}) to find references that a load broke: a table loaded from an older
     * snapshot than its referrers, or not loaded at all. O(live records × handle fields); holds
     * {@code referrer}'s iteration guard meanwhile; changes nothing.
     *
     * @param referrer the table whose handle fields are checked, open
     * @param targets the open tables the fields may refer to, found by name (the first of a
     *     name counts); {@code referrer} itself if it refers to itself
     * @return the number of dangling references
     * @throws IllegalArgumentException if {@code referrer} is not a table of this library or a
     *     target is null
     * @throws IllegalStateException if {@code referrer} is closed
     */
    public static long danglingReferences(Table referrer, Table... targets) {
        AbstractTable from = checked(referrer);
        long[] count = new long[1];
        for (Field f : from.schema().fields()) {
            if (f instanceof HandleField field) {
                Table target = target(field, targets);
                from.forEach((chunk, slot) -> {
                    long value = chunk.get(slot, field);
                    if (value != Handles.NULL && (target == null || !target.contains(value))) {
                        count[0]++;
                    }
                });
            }
        }
        return count[0];
    }

    /**
     * {@link #danglingReferences(Table, Table...)} for the handle fields of a component table:
     * the components of live entities (a removed entity's component is invisible and not
     * counted). O(rows × handle fields); changes nothing.
     *
     * @param referrer the component table whose handle fields are checked, open
     * @param targets the open tables the fields may refer to, found by name
     * @return the number of dangling references
     * @throws IllegalArgumentException if a target is null
     * @throws IllegalStateException if {@code referrer} is closed
     */
    public static long danglingReferences(ComponentTable referrer, Table... targets) {
        Objects.requireNonNull(referrer, "referrer");
        long count = 0;
        for (Field f : referrer.schema().fields()) {
            if (f instanceof HandleField field) {
                Table target = target(field, targets);
                for (int row = 0, rows = referrer.size(); row < rows; row++) {
                    long value = referrer.getAt(row, field);
                    if (value != Handles.NULL && referrer.entities().contains(referrer.entityAt(row))
                            && (target == null || !target.contains(value))) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private static Table target(HandleField field, Table... targets) {
        for (Table t : targets) {
            if (t == null) {
                throw new IllegalArgumentException("a target table is null (checking " + field + ")");
            }
            if (t.name().equals(field.target())) {
                return t;
            }
        }
        return null;
    }

    private static java.util.List<HandleField> handleFields(Schema schema, String target) {
        java.util.List<HandleField> list = new java.util.ArrayList<>();
        for (Field f : schema.fields()) {
            if (f instanceof HandleField h && h.target().equals(target)) {
                list.add(h);
            }
        }
        return list;
    }

    /** How a table loaded under a new tag maps its saved handles: tag and generation shift. */
    private record Remap(String name, HandleLayout layout, int savedTag, int tag, int shift) {
        static Remap of(AbstractTable loaded) {
            int savedTag = loaded.savedTag == 0 ? loaded.index.tag() : loaded.savedTag;
            return new Remap(loaded.name(), loaded.handles, savedTag, loaded.index.tag(), loaded.generationShift);
        }

        boolean moves() {
            return savedTag != tag || shift != 0;
        }

        long apply(long value) {
            if (value == Handles.NULL || layout.tag(value) != savedTag) {
                return value;
            }
            long generation = (long) layout.generation(value) + shift;
            if (generation > layout.maxGeneration()) {
                return Handles.NULL;
            }
            long generationBits = (long) layout.maxGeneration() << layout.indexBits();
            long rest = value & ~(((long) HandleLayout.MAX_TAG << HandleLayout.TAG_SHIFT) | generationBits);
            return rest | (long) tag << HandleLayout.TAG_SHIFT | generation << layout.indexBits();
        }
    }

    private static <T extends Table> T read(ReadableByteChannel in, long size, String source, Class<T> kind,
                                            Schema expected, LoadOption... options) throws IOException {
        int code = kind == BulkTable.class ? FileLayout.KIND_BULK
                : kind == PackedTable.class ? FileLayout.KIND_PACKED : 0;
        if (code == 0 && kind != Table.class) {
            throw new IllegalArgumentException("kind=" + kind + ": use BulkTable.class, PackedTable.class or Table.class");
        }
        boolean newTag = false;
        boolean exact = false;
        for (LoadOption option : options) {
            newTag |= option == LoadOption.NEW_TAG;
            exact |= option == LoadOption.EXACT_SCHEMA;
        }
        return kind.cast(StoredTables.read(in, size, source, expected, code, newTag, exact));
    }
}
