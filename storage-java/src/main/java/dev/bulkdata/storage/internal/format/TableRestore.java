package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.util.function.IntUnaryOperator;

/**
 * Restores a table from checked metadata ({@code docs/format.md}, section 10, checks 6 and 7): its tag, its free list
 * checked against the meta words, then the engine's state through {@link StoredTable#restore}.
 */
final class TableRestore {
    private TableRestore() {
    }

    /**
     * Registers the tag of a table being restored: its own, or with {@code newTag} a new automatic one whose floor may
     * exceed the file's (every slot then moves up by the difference).
     */
    static TagLease lease(SnapshotReader r, Metadata m, boolean newTag, String hint) throws StorageFileException {
        TableState s = m.state();
        try {
            if (newTag) {
                int top = s.floor();
                for (int slot = 1; slot < m.metas().length(); slot++) {
                    if (!MetaWords.isRetired(m.metas().get(slot))) {
                        top = Math.max(top, MetaWords.generation(m.metas().get(slot)));
                    }
                }
                return TagRegistry.registerRenamed(s.schema().name(), s.handles(), s.floor(),
                        s.floor() + s.handles().maxGeneration() - top);
            }
            return TagRegistry.registerRestored(s.schema().name(), s.handles(), s.tag(), s.identity(), s.floor());
        } catch (TagRegistry.TagConflict e) {
            throw r.fail(Reason.TAG_CONFLICT, "table '" + s.schema().name() + "' cannot be loaded under its tag: "
                    + e.getMessage() + hint);
        }
    }

    /**
     * Checks the free list against the metadata, then restores the slot map and the records of {@code table}, whose
     * blocks hold the file's; every generation moves up by {@code shift}.
     */
    static void restore(SnapshotReader r, StoredTable table, Metadata m, TagLease lease, int shift)
            throws StorageFileException {
        TableState s = m.state();
        // Free list: in a BulkTable's dead records' link words (the header's in slot 0); in a PackedTable's payloads.
        int[] list = s.kind() == FileFormat.KIND_BULK ? walkFreeList(r, m, table::link)
                : walkFreeList(r, m, slot -> m.payloads()[slot]);
        MetaWords metas = m.metas();
        int peak = m.peak();
        if (shift > 0) {
            for (int slot = 1; slot < metas.length(); slot++) {
                int meta = metas.get(slot);
                if (!MetaWords.isRetired(meta) && (meta != 0 || slot < s.limit())) {
                    meta = (meta & MetaWords.LIVE) | MetaWords.free(MetaWords.generation(meta) + shift);
                    metas.set(slot, meta);
                    peak = Math.max(peak, MetaWords.generation(meta));
                }
            }
        }
        table.restore(s, list, m.swept(), metas, m.payloads(), m.liveWords(), m.backLinks());
        if (peak >= 0) {
            lease.issued(peak, metas.length() - 1);
        }
    }

    /**
     * {@return the list's slots, head to tail}, checked from the header's link: {@code freeLength} distinct free slots
     * outside a clear's range, ending at the tail, then back at the header (an empty list's header link is not read: a
     * clear leaves it as it was).
     */
    private static int[] walkFreeList(SnapshotReader r, Metadata m, IntUnaryOperator link) throws StorageFileException {
        TableState s = m.state();
        int limit = s.limit();
        int length = s.freeLength();
        if (limit == 0 || length == 0) {
            return new int[0];
        }
        int[] list = new int[length];
        boolean[] seen = new boolean[limit];
        int slot = link.applyAsInt(0);
        for (int i = 0; i < length; i++) {
            list[i] = slot;
            if (slot <= 0 || slot >= limit || seen[slot] || !MetaWords.isFree(m.metas().get(slot))
                    || (slot >= s.reuseCursor() && slot < s.reuseEnd())) {
                throw r.fail(Reason.MALFORMED, "free-list link " + i + " names slot " + slot
                        + ", which is not a free slot it has not named before");
            }
            seen[slot] = true;
            if (i == length - 1 && slot != s.freeTail()) {
                throw r.fail(Reason.MALFORMED, "the free list ends at slot " + slot + ", not at its tail "
                        + s.freeTail());
            }
            slot = link.applyAsInt(slot);
        }
        if (slot != 0) {
            throw r.fail(Reason.MALFORMED, "the free list does not return to the header after " + length
                    + " slots");
        }
        return list;
    }
}
