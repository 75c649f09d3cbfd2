package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.HandleBits;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.internal.format.FileFormat;

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
 * Saves a {@link BulkTable} or {@link PackedTable} to a file or channel, and loads it back as an ordinary in-memory
 * table of the same kind; saves a {@link ComponentTable} and loads it for its entity table ({@link #loadComponents}).
 * Tables that refer to each other through {@linkplain HandleField handle fields} are checked with
 * {@link #danglingReferences} and, after a load under a new tag, mended with {@link #remap}.
 *
 * <p>A loaded table is exactly the saved one: size, iteration order, records, every slot's generation, retired slots,
 * free list (the next {@code add()} returns what it would have), reuse order, layout, capacity limit, tag and schema.
 * It loads under its own tag, so every saved handle stays valid, if no open table holds the tag and no other table used
 * it in this process; else {@code TAG_CONFLICT}, unless {@link LoadOption#NEW_TAG} (then {@link #remap}). A schema that
 * gained, lost or reordered fields loads by field name (added fields at their {@link Schema.Builder#loadDefault load
 * default}); a changed type throws {@code SCHEMA_MISMATCH}. Save and load are O(slots + blocks), nothing per record; a
 * save holds the table's iteration guard. A null table or component table throws {@link IllegalArgumentException}, a
 * closed one {@link IllegalStateException}, except a {@link #danglingReferences} target (it counts as holding nothing).
 * Guide: docs/saving-and-mapped-tables.md.
 */
public final class Snapshots {
    /** Options of a load. */
    public enum LoadOption {
        /** Load under a new automatic tag and identity (own tag taken); handles then differ: {@link #remap} mends. */
        NEW_TAG,
        /** Require the expected schema exactly (layout, fields, order, types): any difference throws {@code SCHEMA_MISMATCH}. */
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
     * @throws java.util.ConcurrentModificationException if another thread changes its structure
     */
    public static void save(Table table, Path path) throws IOException {
        AbstractTable t = checked(table);
        saveTo(path, out -> write(t, out));
    }

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
     * {@link #save(Table, Path)} to a channel, from its position; the channel stays open.
     *
     * @param table an open {@link BulkTable} or {@link PackedTable} of this library
     * @param out where to write
     * @throws IOException if writing fails
     */
    public static void save(Table table, WritableByteChannel out) throws IOException {
        write(checked(table), Objects.requireNonNull(out, "out"));
    }

    private interface ChannelWriter {
        void write(WritableByteChannel out) throws IOException;
    }

    /**
     * Saves a component table to a file, replacing it: rows in order, each row's entity and record. Save the entity
     * table at the same point and load it first ({@link #loadComponents}). O(rows + blocks).
     *
     * @param components an open component table
     * @param path the file
     * @throws IOException if writing fails; an earlier file at {@code path} is then left as it was
     */
    public static void save(ComponentTable components, Path path) throws IOException {
        checked(components);
        saveTo(path, out -> save(components, out));
    }

    /**
     * {@link #save(ComponentTable, Path)} to a channel, from its position; it stays open.
     *
     * @param components an open component table
     * @param out where to write
     * @throws IOException if writing fails
     */
    public static void save(ComponentTable components, WritableByteChannel out) throws IOException {
        checked(components);
        Objects.requireNonNull(out, "out");
        components.save(out);
    }

    /**
     * Loads a component table saved with {@link #save(ComponentTable, Path)} for {@code entities}: the entity table it
     * was saved with, or that table loaded from a snapshot of the same point or later. Each component comes back in its
     * row (stale for an entity removed since). O(rows + blocks); the schema may have changed as a table's.
     *
     * @param path the file
     * @param entities the entity table, open
     * @param expected the schema to load under, or null to take the file's
     * @param options {@link LoadOption#EXACT_SCHEMA} or none
     * @return the component table, which the caller closes
     * @throws StorageFileException if the file is not a valid snapshot of a component table ({@code KIND_MISMATCH} for
     *     a table's snapshot), holds a schema that does not load under {@code expected} ({@code SCHEMA_MISMATCH}), or
     *     does not fit {@code entities} ({@code ENTITY_MISMATCH}: saved for another entity table, or with a component
     *     of an entity that {@code entities} has not reached); nothing stays open
     * @throws IOException if reading fails
     * @throws IllegalArgumentException for {@link LoadOption#NEW_TAG} (components follow their entity table's tag)
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
     * {@link #loadComponents(Path, Table, Schema, LoadOption...)} from a channel, from its position to the
     * snapshot's end; it stays open.
     *
     * @param in the channel
     * @param source a name for the source, for messages
     * @param entities the entity table, open
     * @param expected the schema to load under, or null to take the snapshot's
     * @param options {@link LoadOption#EXACT_SCHEMA} or none
     * @return the component table
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

    private static void checked(ComponentTable components) {
        if (components == null) {
            throw new IllegalArgumentException("component table is null");
        }
        components.ensureOpen();
    }

    private static AbstractTable checked(Table table) {
        if (!(table instanceof AbstractTable t)) { // Table is sealed: only null is not one
            throw new IllegalArgumentException("table is null");
        }
        t.ensureOpen();
        return t;
    }

    /**
     * {@link #load(Path, Class, Schema, LoadOption...)} of either kind, with the file's schema.
     *
     * @param path the file
     * @param options load options
     * @return the table, a {@link BulkTable} or {@link PackedTable} as saved
     * @throws IOException if reading fails
     */
    public static Table load(Path path, LoadOption... options) throws IOException {
        return load(path, Table.class, null, options);
    }

    /**
     * {@link #load(Path, Class, Schema, LoadOption...)} of either kind.
     *
     * @param path the file
     * @param expected the schema to load under
     * @param options load options
     * @return the table, a {@link BulkTable} or {@link PackedTable} as saved
     * @throws IOException if reading fails
     */
    public static Table load(Path path, Schema expected, LoadOption... options) throws IOException {
        return load(path, Table.class, expected, options);
    }

    /**
     * Loads a table of a given kind saved with {@link #save}. With a schema, the loaded table uses {@code expected}
     * itself, so the caller's field objects work on it.
     *
     * @param path the file
     * @param kind {@code BulkTable.class}, {@code PackedTable.class} or {@code Table.class} for either
     * @param expected the schema to load under (the file's, or an earlier version of it), or null to take the file's
     * @param options load options
     * @param <T> the kind
     * @return the table
     * @throws StorageFileException if the file is no valid snapshot, holds another kind ({@code KIND_MISMATCH}) or a
     *     schema not loadable under {@code expected} ({@code SCHEMA_MISMATCH}), or its tag is taken; nothing stays open
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
     * {@link #load(Path, Class, Schema, LoadOption...)} from a channel, from its position to the snapshot's end;
     * it stays open.
     *
     * @param in the channel
     * @param source a name for the source, for messages
     * @param kind {@code BulkTable.class}, {@code PackedTable.class} or {@code Table.class} for either
     * @param expected the schema to load under, or null to take the snapshot's
     * @param options load options
     * @param <T> the kind
     * @return the table
     * @throws StorageFileException as there; no memory is held for a length the bytes do not back
     * @throws IOException if reading fails
     */
    public static <T extends Table> T load(ReadableByteChannel in, String source, Class<T> kind, Schema expected,
                                           LoadOption... options) throws IOException {
        return read(Objects.requireNonNull(in, "in"), -1, String.valueOf(source), kind, expected, options);
    }

    /**
     * After {@code loaded} came back under a new tag ({@link LoadOption#NEW_TAG}), gives each value in
     * {@code referrer}'s handle fields naming its saved tag the new tag and generation: valid stays valid, stale stays
     * stale (unmovable becomes null). Does nothing under the own tag or for a pair already remapped; run it before new
     * references are written. O(live records) per handle field aimed at {@code loaded}; holds {@code referrer}'s
     * iteration guard.
     *
     * @param referrer the table whose handle fields are rewritten, open
     * @param loaded a table returned by {@link #load}, open
     * @return how many values were rewritten
     * @throws java.util.ConcurrentModificationException if {@code referrer}'s structure is being changed
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
     * {@link #remap(Table, Table)} for a component table: every row, also those of removed entities not swept out
     * yet. O(rows) per handle field aimed at {@code loaded}.
     *
     * @param referrer the component table whose handle fields are rewritten, open
     * @param loaded a table returned by {@link #load}, open
     * @return how many values were rewritten
     */
    public static long remap(ComponentTable referrer, Table loaded) {
        checked(referrer);
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
     * Counts values in {@code referrer}'s handle fields naming no live record of the field's target among
     * {@code targets} (stale, foreign, made up, or target absent); null never dangles. Run it after loading a set of
     * tables. O(live records x handle fields); changes nothing.
     *
     * @param referrer the table whose handle fields are checked, open
     * @param targets the open tables the fields may refer to, found by name (the first of a name counts);
     *     {@code referrer} itself if it refers to itself
     * @return the number of dangling references
     * @throws IllegalArgumentException if a target is null
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
     * {@link #danglingReferences(Table, Table...)} for a component table, over the components of live entities.
     * O(rows × handle fields); changes nothing.
     *
     * @param referrer the component table whose handle fields are checked, open
     * @param targets the open tables the fields may refer to, found by name
     * @return the number of dangling references
     * @throws IllegalArgumentException if a target is null
     */
    public static long danglingReferences(ComponentTable referrer, Table... targets) {
        checked(referrer);
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
            int savedTag = loaded.savedTag == 0 ? loaded.slots.tag() : loaded.savedTag;
            return new Remap(loaded.name(), loaded.handles, savedTag, loaded.slots.tag(), loaded.generationShift);
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
            return HandleBits.retagged(layout, value, tag, (int) generation);
        }
    }

    private static <T extends Table> T read(ReadableByteChannel in, long size, String source, Class<T> kind,
                                            Schema expected, LoadOption... options) throws IOException {
        int code = kind == BulkTable.class ? FileFormat.KIND_BULK
                : kind == PackedTable.class ? FileFormat.KIND_PACKED : 0;
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
