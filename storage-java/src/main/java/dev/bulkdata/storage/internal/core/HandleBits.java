package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.HandleLayout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The engine's operations on handles of a {@link HandleLayout}, beside the decoders it publishes ({@code slot},
 * {@code generation}, {@code tag}, {@code epoch}, {@code pack}): composing a handle from a table's bits, a stamp,
 * a retag. Every operation is the layout's split; the two masks the layout precomputes are read through final-field
 * handles ({@code privateLookupIn}, same module), so the hot paths load what they loaded when this code was the
 * layout's, and the exported type gains no member.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class HandleBits {
    private static final VarHandle PAYLOAD_MASK;
    private static final VarHandle EPOCH_MASK;

    static {
        try {
            MethodHandles.Lookup layout = MethodHandles.privateLookupIn(HandleLayout.class, MethodHandles.lookup());
            PAYLOAD_MASK = layout.findVarHandle(HandleLayout.class, "payloadMask", long.class);
            EPOCH_MASK = layout.findVarHandle(HandleLayout.class, "epochMask", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private HandleBits() {
    }

    /** {@return the mask of the slot and generation bits} */
    public static long payloadMask(HandleLayout l) {
        return (long) PAYLOAD_MASK.get(l);
    }

    /** {@return the slot and generation bits of a handle, in place: the larger, the later its generation} */
    public static long payload(HandleLayout l, long handle) {
        return handle & payloadMask(l);
    }

    /** {@return the slot of a handle as an {@code int}, for a slot that fits one: a checked handle's, or a bound} */
    public static int intSlot(HandleLayout l, long handle) {
        return (int) l.slot(handle);
    }

    /** {@return the bits of a handle above its generation: tag, epoch and any stray bits} */
    public static long tableBits(HandleLayout l, long handle) {
        return handle & ~payloadMask(l);
    }

    /** {@return the bits of a handle that a tag puts there} */
    public static long tagBits(int tag) {
        return (long) tag << HandleLayout.TAG_SHIFT;
    }

    /** {@return the tag of {@link #tableBits} or {@link #tagBits}} */
    public static int tagOfBits(long tableBits) {
        return (int) (tableBits >>> HandleLayout.TAG_SHIFT);
    }

    /** The bits of {@code epoch} in place, where a handle holds them. */
    public static long epochBitsOf(HandleLayout l, int epoch) {
        return (long) epoch << (l.slotBits() + l.generationBits());
    }

    /** {@return epoch and generation as one word, {@code epoch << generationBits | generation}: a component row's owner} */
    public static int stamp(HandleLayout l, long handle) {
        return (int) ((handle & (payloadMask(l) | (long) EPOCH_MASK.get(l))) >>> l.slotBits());
    }

    /** {@return a handle's generation shifted left by {@code shift}, other bits clear, as {@link SlotMeta} keeps it} */
    public static int generationAt(HandleLayout l, long handle, int shift) {
        return (int) (handle >>> (l.slotBits() - shift)) & (l.maxGeneration() << shift);
    }

    /** {@return the handle of {@code slot} at {@code generation}, above them {@code tableBits}} */
    public static long handle(HandleLayout l, long tableBits, int generation, int slot) {
        return tableBits | ((long) generation << l.slotBits()) | slot;
    }

    /** {@return the handle of {@code slot} with the epoch and generation of {@code stamp}, above them {@code tagBits}} */
    public static long handleOfStamp(HandleLayout l, long tagBits, int stamp, int slot) {
        return tagBits | (Integer.toUnsignedLong(stamp) << l.slotBits()) | slot;
    }

    /** {@return {@code handle} under {@code tag} at {@code generation}, its slot and epoch kept} */
    public static long retagged(HandleLayout l, long handle, int tag, int generation) {
        long rest = handle & ~(((long) HandleLayout.MAX_TAG << HandleLayout.TAG_SHIFT)
                | ((long) l.maxGeneration() << l.slotBits()));
        return rest | tagBits(tag) | ((long) generation << l.slotBits());
    }
}
