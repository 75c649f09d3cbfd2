module dev.bulkdata.storage {
    exports dev.bulkdata.storage;
}
