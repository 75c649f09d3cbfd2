// This descriptor lives in src/main/module, off the main source path, and is compiled alone for
// class-file version 61 (Java 17) by the parent pom's execution module-descriptor-for-jar-tool:
// maven-jar-plugin validates module-info.class with the JDK that runs Maven, which may be older
// than the JDK 25 that compiles every other class. It holds no code, so nothing is lost.
/**
 * bulkdata's core: fixed-size records in 16 KiB native blocks, referenced by generational
 * 64-bit handles. Start with {@link dev.bulkdata.storage.schema.Schema} and
 * {@link dev.bulkdata.storage.BulkTable} or
 * {@link dev.bulkdata.storage.PackedTable}.
 */
module dev.bulkdata.storage {
    exports dev.bulkdata.storage;
    exports dev.bulkdata.storage.schema;

    // Flight recorder events of the tables (internal.events.TableEvents; docs/observability.md).
    requires jdk.jfr;
}
