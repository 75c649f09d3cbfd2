// Compiled alone for class-file version 61 (see storage-java's module-info and the parent pom's
// execution module-descriptor-for-jar-tool); it holds no code.
/**
 * Tables as Arrow C streams: zero-copy columns for DuckDB, Polars, DataFusion and other
 * consumers of the Arrow C data interface, written with the FFM API alone. Start with
 * {@link dev.bulkdata.storage.arrow.ArrowExport}; for SQL over live tables,
 * {@link dev.bulkdata.storage.arrow.DuckDbViews}.
 */
module dev.bulkdata.storage.arrow {
    exports dev.bulkdata.storage.arrow;

    requires transitive dev.bulkdata.storage;
    // DuckDbViews takes a java.sql.Connection; DuckDB's driver and arrow-c-data are reached by
    // reflection, so they are not required here.
    requires transitive java.sql;
}
