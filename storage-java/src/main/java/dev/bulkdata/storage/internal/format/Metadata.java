package dev.bulkdata.storage.internal.format;

/**
 * A table's metadata as {@link MetadataReader} parsed and checked it, ready for {@link TableRestore}.
 *
 * @param swept the free slots in a clear's range {@code [reuseCursor, reuseEnd)}
 * @param liveWords a BulkTable's live bits ({@link MetaWords#liveWords}); empty for a PackedTable
 * @param payloads a PackedTable's payload per entry; empty for a BulkTable
 * @param backLinks a PackedTable's slot per row; empty for a BulkTable
 * @param peak the highest generation of a slot not retired, -1 if there is none
 * @param change how the file's records become the expected schema's, or null: {@code state} then holds the schema
 *     the table is restored with
 */
record Metadata(TableState state, MetaWords metas, int swept, long[] liveWords, int[] payloads, int[] backLinks,
                int peak, SchemaChange change) {
    /** {@return this metadata under {@link #change}'s schema: the state with it, a BulkTable's live words for it} */
    Metadata changed() {
        TableState s = state.withSchema(change.to);
        long[] words = liveWords.length == 0 ? liveWords
                : MetaWords.liveWords(metas, Math.min(s.limit(), s.entryCount()), change.to.slotsPerBlock());
        return new Metadata(s, metas, swept, words, payloads, backLinks, peak, null);
    }
}
