// Compiled alone for class-file version 61 (see storage-java's module-info and the parent pom's
// execution module-descriptor-for-jar-tool); it holds no code.
/**
 * Optional SIMD column kernels over the chunks of bulkdata tables: fill, scale,
 * {@code a += b * k}, sum, min, max and a comparison to a slot mask, written with the
 * incubating Vector API. Start with {@link dev.bulkdata.storage.vector.Kernels}.
 */
module dev.bulkdata.storage.vector {
    exports dev.bulkdata.storage.vector;

    requires transitive dev.bulkdata.storage;
    // Incubating: a module that requires it resolves it; the class path needs
    // --add-modules jdk.incubator.vector (docs/simd-kernels.md). Without it the kernels run
    // their scalar loops (Kernels.vectorized()).
    requires static jdk.incubator.vector;
}
