/** A user's application module. */
module dev.bulkdata.it.modulepath {
    requires dev.bulkdata.storage;
    requires dev.bulkdata.storage.kotlin;
    requires kotlin.stdlib;
}
