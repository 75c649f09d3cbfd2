package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotEntries;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.internal.memory.AddressSpace;
import dev.bulkdata.storage.internal.memory.BlockArena;
import dev.bulkdata.storage.internal.tags.TagLease;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A {@link SlotMap} on its own, for its unit and model tests: under a tag registered for it,
 * its entries in heap pages ({@link Entries#HEAP}) or in a range reserved in a
 * {@link BlockArena} ({@link SlotMap#reserveRange}, {@link Entries#RANGE}), and its free-list
 * links either beside each meta word (stride 2, as a {@link PackedTable}'s) or in an array here
 * (stride 1, as a {@link BulkTable}'s links in its dead records). Closing releases the tag.
 */
final class SlotMapFixture implements AutoCloseable {
    /** Where the index keeps its entries. */
    enum Entries {
        HEAP, RANGE
    }

    final TagLease lease;
    final HandleLayout layout;
    /** Stride 2: a payload beside each meta word, which also holds the free slots' links. */
    final boolean payloads;
    /** The arena the range is reserved in; null for {@link Entries#HEAP}. */
    private final BlockArena arena;
    /** Stride 1: each slot's link; null at stride 2 (links in the payloads). */
    private int[] links;
    final SlotMap slots;

    /**
     * @param payloads stride 2 (meta word and payload per slot, links in the payloads) if true,
     *     stride 1 (links here) if false
     * @param floor the generation never-opened slots start at; -1 for the tag's own floor
     */
    SlotMapFixture(Entries entries, HandleLayout layout, int floor, int maxCapacity, ReuseOrder order,
                     boolean payloads) {
        if (entries == Entries.RANGE) {
            assumeTrue(AddressSpace.AVAILABLE, "reserved ranges need Linux and native access (this suite has it)");
        }
        this.layout = layout;
        this.payloads = payloads;
        this.lease = TagRegistry.register("slot-map-test", layout);
        this.arena = entries == Entries.RANGE ? new BlockArena(this, lease) : null;
        this.links = payloads ? null : new int[16];
        SlotMap.Links arrayLinks = payloads ? null : new SlotMap.Links() {
            @Override
            public int link(int slot) {
                return slot < links.length ? links[slot] : 0;
            }

            @Override
            public void setLink(int slot, int next) {
                if (slot >= links.length) {
                    links = Arrays.copyOf(links, Math.max(slot + 1, links.length * 2));
                }
                links[slot] = next;
            }
        };
        this.slots = new SlotMap("slot-map-test", layout, lease.tag, floor < 0 ? lease.floor : floor, maxCapacity,
                order, arrayLinks, SlotMap.Retirements.NONE);
        if (arena != null) {
            slots.reserveRange(arena);
        }
        assertEquals(entries == Entries.RANGE, inRange(slots), "where the entries are");
    }

    /** {@return slot {@code slot}'s free-list link, where the index keeps it} */
    int link(int slot) {
        return links == null ? slots.payload(slot) : slot < links.length ? links[slot] : 0;
    }

    /** {@return whether the index keeps its entries in a reserved range ({@link SlotEntries#range})} */
    static boolean inRange(SlotMap slots) {
        return slots.range != null;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();  // releases the tag too
        } else {
            TagRegistry.release(lease);
        }
    }
}
