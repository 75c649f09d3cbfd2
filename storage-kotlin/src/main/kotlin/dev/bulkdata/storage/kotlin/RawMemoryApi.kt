package dev.bulkdata.storage.kotlin

/**
 * Marks the accessors that hand out a chunk's off-heap memory as a raw [MemorySegment][java.lang.foreign.MemorySegment]
 * ([TypedChunk.column], [TypedChunk.records], their writable forms) or the core chunk ([TypedChunk.core]): calling them
 * without `@OptIn(RawMemoryApi::class)` does not compile. Nothing checks a segment per access: it covers holes as well
 * as live records (a hole's bytes belong to no record, and the add that reuses the slot zeroes them; bytes written into
 * a slot never used reappear in the record that first takes it), and a segment kept after its pass keeps working (until
 * the table is closed) while the records it shows may have moved or been removed. The typed accessors
 * (`chunk[slot, column]`) check the slot, the column's table and the pass on every call.
 */
@RequiresOptIn(
    level = RequiresOptIn.Level.ERROR,
    message = "Raw off-heap memory: a MemorySegment is not checked per access (holes included, still" +
        " usable after the pass). Use chunk[slot, column], or opt in with @OptIn(RawMemoryApi::class).",
)
@Retention(AnnotationRetention.BINARY)
@Target(AnnotationTarget.FUNCTION, AnnotationTarget.PROPERTY)
@MustBeDocumented
public annotation class RawMemoryApi
