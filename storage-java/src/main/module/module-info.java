/**
 * bulkdata's core: fixed-size records in 16 KiB native blocks, referenced by generational
 * 64-bit handles. Start with {@link dev.bulkdata.storage.Schema} and
 * {@link dev.bulkdata.storage.BulkTable} or
 * {@link dev.bulkdata.storage.PackedTable}.
 */
module dev.bulkdata.storage {
    exports dev.bulkdata.storage;

    // Flight recorder events of the tables (internal.TableEvents; README, Observability).
    requires jdk.jfr;
}
