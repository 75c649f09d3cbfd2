package dev.bulkdata.storage;

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
 * ordinary in-memory table of the same kind.
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
 * <h2>Files</h2>
 * The format is one header, the metadata (schema, handle layout, tag, identity, slot states,
 * free list), then the blocks, each at a 16 KiB-aligned offset, and a CRC32C per block; every
 * section is checked when loading. The numbers are in the saving machine's byte order; another
 * byte order is refused. {@code save(table, path)} writes a temporary file beside {@code path}
 * and moves it into place, so an interrupted save leaves any earlier file at {@code path} as it
 * was; it does not force the data to the disk.
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
         * Load under a new automatic tag, with a new identity, if the snapshot's own tag is
         * taken (held by an open table, or used by another table in this process). The loaded
         * table's handles then differ from the saved ones in the tag and, if that tag's floor
         * requires it, in the generation, which every slot is moved up by.
         */
        NEW_TAG
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
        Objects.requireNonNull(path, "path");
        Path temporary = path.resolveSibling(path.getFileName() + ".tmp-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        boolean moved = false;
        try {
            try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                write(t, out);
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

    private static void write(AbstractTable table, WritableByteChannel out) throws IOException {
        table.beginIteration();
        try {
            SnapshotFormat.write(table, out);
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
     * @param expected the schema the file must hold (same name, layout, field names and types,
     *     in order)
     * @param options load options
     * @return the table, a {@link BulkTable} or {@link PackedTable} as saved
     * @throws SnapshotException if the file is not a valid snapshot, holds another schema
     *     ({@code SCHEMA_MISMATCH}) or its tag is taken
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
     * @param expected the schema the file must hold, or null to take the file's
     * @param options load options
     * @param <T> the kind
     * @return the table
     * @throws SnapshotException if the file is not a valid snapshot, holds another kind
     *     ({@code KIND_MISMATCH}) or schema, or its tag is taken; nothing stays open
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
     * @param expected the schema the snapshot must hold, or null to take the snapshot's
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

    private static <T extends Table> T read(ReadableByteChannel in, long size, String source, Class<T> kind,
                                            Schema expected, LoadOption... options) throws IOException {
        int code = kind == BulkTable.class ? SnapshotFormat.KIND_BULK
                : kind == PackedTable.class ? SnapshotFormat.KIND_PACKED : 0;
        if (code == 0 && kind != Table.class) {
            throw new IllegalArgumentException("kind=" + kind + ": use BulkTable.class, PackedTable.class or Table.class");
        }
        boolean newTag = false;
        for (LoadOption option : options) {
            newTag |= option == LoadOption.NEW_TAG;
        }
        return kind.cast(SnapshotFormat.read(in, size, source, expected, code, newTag));
    }
}
