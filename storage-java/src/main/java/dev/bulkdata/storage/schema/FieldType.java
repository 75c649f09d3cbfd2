package dev.bulkdata.storage.schema;

/** The primitive types a {@link Field} can have, with their width in bytes. */
public enum FieldType {
    /** 1 byte, {@code byte}. */
    BYTE(1),
    /** 2 bytes, {@code short}. */
    SHORT(2),
    /** 2 bytes, {@code char} (UTF-16 code unit). */
    CHAR(2),
    /** 4 bytes, {@code int}. */
    INT(4),
    /** 8 bytes, {@code long}. */
    LONG(8),
    /** 4 bytes, {@code float}. */
    FLOAT(4),
    /** 8 bytes, {@code double}. */
    DOUBLE(8),
    /** 1 byte, {@code boolean} stored as {@code 0} or {@code 1}. */
    BOOLEAN(1),
    /**
     * 8 bytes, a {@code long} handle of the table the field names ({@link HandleField#target()}); {@code 0} is the null
     * handle. Declared with {@link Schema.Builder#addHandle}.
     */
    HANDLE(8);

    private final int byteSize;

    FieldType(int byteSize) {
        this.byteSize = byteSize;
    }

    /** {@return the width of one value in bytes: 1, 2, 4 or 8} */
    public int byteSize() {
        return byteSize;
    }
}
