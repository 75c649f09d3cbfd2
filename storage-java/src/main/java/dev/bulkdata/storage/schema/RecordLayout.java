package dev.bulkdata.storage.schema;

/**
 * A table's record layout: how its records are arranged inside each 16 KiB block (not to be confused with the
 * {@link HandleLayout}, the bit split of a handle). Both record layouts behave the same through the table API; they
 * differ in which loops are fast.
 *
 * <pre>
 *  SOA (one column per field, per block)      AOS (records of one stride)
 *  +---------------------------------+        +---------------------------------+
 *  | t  t  t  t  t  ...  (slots)     |        | t px py pz vx vy vz pad | t px .. |
 *  | px px px px px ...              |        | t px py pz vx vy vz pad | ...     |
 *  | ...                             |        | ...                             |
 *  +---------------------------------+        +---------------------------------+
 * </pre>
 */
public enum RecordLayout {
    /**
     * Structure of arrays (the default): inside each block every field has its own contiguous column, handed out
     * zero-copy by {@link dev.bulkdata.storage.Chunk#column(Field)}. Best when loops touch a few fields of many records.
     */
    SOA,
    /**
     * Array of structures: records of one stride, fields at fixed offsets laid out with C alignment rules. Best when
     * code touches whole records one at a time.
     */
    AOS
}
