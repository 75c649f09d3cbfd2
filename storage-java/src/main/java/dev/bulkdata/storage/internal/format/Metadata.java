package dev.bulkdata.storage.internal.format;

/**
 * A table's metadata as {@link MetadataReader} parsed and checked it: the state and the slot
 * sections, ready for {@link TableRestore}.
 *
 * @param swept the free slots in a clear's range {@code [reuseCursor, reuseEnd)}
 * @param liveWords a BulkTable's live bits ({@link MetaWords#liveWords}); empty for a PackedTable
 * @param payloads a PackedTable's payload per entry; empty for a BulkTable
 * @param backLinks a PackedTable's slot per row; empty for a BulkTable
 * @param peak the highest generation of a slot not retired, -1 if there is none
 */
record Metadata(TableState state, MetaWords metas, int swept, long[] liveWords, int[] payloads, int[] backLinks,
                int peak) {
}
