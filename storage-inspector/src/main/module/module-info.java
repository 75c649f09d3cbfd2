// Compiled alone for class-file version 61 (see storage-java's module-info and the parent pom's
// execution module-descriptor-for-jar-tool); it holds no code.
/**
 * A web page and a JSON API over a running program's tables, served by the JDK's own HTTP
 * server and answered on the tables' owner thread. Start with
 * {@link dev.bulkdata.storage.inspector.Inspector}.
 */
module dev.bulkdata.storage.inspector {
    exports dev.bulkdata.storage.inspector;

    requires transitive dev.bulkdata.storage;
    // The SQL console registers the live tables in DuckDB (reached through java.sql's
    // DriverManager; DuckDB's driver and arrow-c-data are found at run time, not required here).
    requires dev.bulkdata.storage.arrow;
    requires java.sql;
    requires jdk.httpserver;
}
