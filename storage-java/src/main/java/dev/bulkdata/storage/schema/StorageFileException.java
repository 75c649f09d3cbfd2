package dev.bulkdata.storage.schema;

import java.io.IOException;

/**
 * A snapshot could not be loaded ({@link dev.bulkdata.storage.Snapshots}) or a mapped table's file opened ({@link dev.bulkdata.storage.TableBuilder#mapped});
 * the message names the file (or channel source) and what is wrong, {@link #reason()} which kind of fault. When
 * thrown, nothing of the load is left: no table, native memory, tag or open file.
 */
public final class StorageFileException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the file. */
    public enum Reason {
        /** The file ends before the end its header announces. */
        TRUNCATED,
        /** The file does not start with the snapshot magic: it is not a bulkdata snapshot. */
        NOT_A_SNAPSHOT,
        /** The file was written by a newer format version, or uses features this version does not know. */
        NEWER_VERSION,
        /** The file was written on a machine of the other byte order. */
        BYTE_ORDER,
        /** A section's CRC32C does not match its bytes: the file was damaged. */
        CHECKSUM,
        /** The checksums match but the content is inconsistent (a length, count, state or link out of place). */
        MALFORMED,
        /**
         * The file's schema is not the expected one (name, layout, or a field's name or type), or a mapped table's
         * options (handle layout, reuse order, capacity limit, fixed tag) are not the builder's.
         */
        SCHEMA_MISMATCH,
        /** The file holds another kind of table than the one asked for. */
        KIND_MISMATCH,
        /**
         * A component table's snapshot does not fit the entity table it is loaded for: saved for another entity
         * table, or after the entity table's snapshot (a component of an entity the entity table has not reached).
         */
        ENTITY_MISMATCH,
        /**
         * The table's tag is held by an open table, or another table handed out handles under it in this process
         * since; load it under a new tag ({@link dev.bulkdata.storage.Snapshots.LoadOption#NEW_TAG}).
         */
        TAG_CONFLICT,
        /** The file of a mapped table is open in another table, in this process or another (its file lock is held). */
        LOCKED
    }

    private final String source;
    private final Reason reason;

    /**
     * An exception for a storage file; public, as an exception's constructor usually is, for code that checks files
     * (a format tool, a test) to report a fault the way the library does.
     *
     * @param source the file or channel source the message names
     * @param reason the kind of fault
     * @param what what is wrong, for the message
     */
    public StorageFileException(String source, Reason reason, String what) {
        super("storage file " + source + ": " + what + " (" + reason + ")");
        this.source = source;
        this.reason = reason;
    }

    /**
     * {@link #StorageFileException(String, Reason, String)} with the cause of the fault.
     *
     * @param source the file or channel source the message names
     * @param reason the kind of fault
     * @param what what is wrong, for the message
     * @param cause the underlying failure
     */
    public StorageFileException(String source, Reason reason, String what, Throwable cause) {
        this(source, reason, what);
        initCause(cause);
    }

    /** {@return the file or source name the storage file was read from} */
    public String source() {
        return source;
    }

    /** {@return what is wrong} */
    public Reason reason() {
        return reason;
    }
}
