package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.HandleLayout;

/**
 * The meta word of a slot: one {@code int} per slot of every table kind, kept by the {@link SlotMap}: bit 31
 * {@code R} (retired), a 30-bit generation, bit 0 {@code L} (live); drawn in ARCHITECTURE.md, "Memory layout".
 *
 * <ul>
 * <li><b>live</b> ({@code L} set): the slot holds a record; a handle is valid iff the word equals
 *     {@code generation << 1 | 1} ({@link #live(int)}), so the check is one compare;
 * <li><b>free</b> ({@code L} and {@code R} clear): the slot is in the free list, its generation already advanced past
 *     every handle made for it;
 * <li><b>retired</b> ({@code R} set): the generation ran out; never handed out again.
 * </ul>
 *
 * <p>Snapshots and mapped files store the words as they are ({@code docs/format.md}, section 7).
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class SlotMeta {
    /** Bit 0: the slot holds a record. */
    public static final int LIVE = 1;
    /** Bit 31: the slot's generation ran out; it is never reused. */
    public static final int RETIRED = 1 << 31;
    /** Where the generation starts. */
    public static final int GENERATION_SHIFT = 1;
    /** Generation bits of a meta word once the live and retired bits are shifted out. */
    public static final int GENERATION_MASK = (1 << HandleLayout.MAX_GENERATION_BITS) - 1;

    private SlotMeta() {
    }

    /** {@return the generation of a meta word} */
    public static int generation(int meta) {
        return (meta >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    /** {@return the word of a free slot at {@code generation}} */
    public static int free(int generation) {
        return generation << GENERATION_SHIFT;
    }

    /** {@return the word of a live slot at {@code generation}: what a valid handle must match} */
    public static int live(int generation) {
        return generation << GENERATION_SHIFT | LIVE;
    }

    /** {@return the word of a retired slot at {@code generation}} */
    public static int retired(int generation) {
        return RETIRED | generation << GENERATION_SHIFT;
    }

    public static boolean isLive(int meta) {
        return (meta & LIVE) != 0;
    }

    public static boolean isRetired(int meta) {
        return (meta & RETIRED) != 0;
    }

    /** {@return "live", "free" or "retired", for messages} */
    public static String state(int meta) {
        return isRetired(meta) ? "retired" : isLive(meta) ? "live" : "free";
    }
}
