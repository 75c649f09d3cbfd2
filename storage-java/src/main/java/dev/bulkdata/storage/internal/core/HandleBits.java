package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.schema.HandleLayout;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The engine's operations on handles, beside the decoders {@link HandleLayout} publishes ({@code slot},
 * {@code generation}, {@code tag}, {@code epoch}, {@code pack}): composing a handle from a table's bits, a stamp, a
 * retag. Each is a private method of {@code HandleLayout}, the one home of a handle's bits, bound here once as a
 * {@code static final} method handle ({@code privateLookupIn}, same module), which C2 inlines as a direct call; the
 * exported type gains no member.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class HandleBits {
    private static final MethodHandle PAYLOAD = bind("payloadOf", long.class, HandleLayout.class, long.class);
    private static final MethodHandle TABLE_BITS = bind("tableBitsOf", long.class, HandleLayout.class, long.class);
    private static final MethodHandle TAG_BITS_OF = bind("tagBitsOf", long.class, int.class);
    private static final MethodHandle TAG_OF_BITS = bind("tagOfTableBits", int.class, long.class);
    private static final MethodHandle EPOCH_BITS_OF = bind("epochBits", long.class, HandleLayout.class, int.class);
    private static final MethodHandle STAMP = bind("stampOf", int.class, HandleLayout.class, long.class);
    private static final MethodHandle GENERATION_AT = bind("generationShifted", int.class, HandleLayout.class, long.class, int.class);
    private static final MethodHandle HANDLE = bind("compose", long.class, HandleLayout.class, long.class, int.class, int.class);
    private static final MethodHandle HANDLE_OF_STAMP = bind("composeStamp", long.class, HandleLayout.class, long.class, int.class, int.class);
    private static final MethodHandle OWNER_STAMP = bind("ownerStamp", int.class, HandleLayout.class, int.class, int.class);
    private static final MethodHandle STAMP_EPOCH = bind("stampEpoch", int.class, HandleLayout.class, int.class);
    private static final MethodHandle STAMP_GENERATION = bind("stampGeneration", int.class, HandleLayout.class, int.class);
    private static final MethodHandle PAYLOAD_BOUND = bind("payloadBound", long.class, HandleLayout.class, int.class, int.class, long.class);
    private static final MethodHandle STAMPS_ABOVE = bind("stampsAbove", long.class, HandleLayout.class, long.class);
    private static final MethodHandle RETAGGED = bind("retag", long.class, HandleLayout.class, long.class, int.class, int.class);

    private HandleBits() {
    }

    private static MethodHandle bind(String name, Class<?> returns, Class<?>... parameters) {
        try {
            return MethodHandles.privateLookupIn(HandleLayout.class, MethodHandles.lookup())
                    .findStatic(HandleLayout.class, name, MethodType.methodType(returns, parameters));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@return the slot of a handle as an {@code int}, for a slot that fits one: a checked handle's, or a bound} */
    public static int intSlot(HandleLayout l, long handle) {
        return (int) l.slot(handle);
    }

    /** {@return the slot and generation bits of a handle, in place: the larger, the later its generation} */
    public static long payload(HandleLayout l, long handle) {
        try {
            return (long) PAYLOAD.invokeExact(l, handle);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the bits of a handle above its generation: tag, epoch and any stray bits} */
    public static long tableBits(HandleLayout l, long handle) {
        try {
            return (long) TABLE_BITS.invokeExact(l, handle);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the bits of a handle that a tag puts there} */
    public static long tagBits(int tag) {
        try {
            return (long) TAG_BITS_OF.invokeExact(tag);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the tag of {@link #tableBits} or {@link #tagBits}} */
    public static int tagOfBits(long tableBits) {
        try {
            return (int) TAG_OF_BITS.invokeExact(tableBits);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the bits of {@code epoch} in place, where a handle holds them} */
    public static long epochBitsOf(HandleLayout l, int epoch) {
        try {
            return (long) EPOCH_BITS_OF.invokeExact(l, epoch);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return epoch and generation as one word, {@code epoch << generationBits | generation}: a component row's owner} */
    public static int stamp(HandleLayout l, long handle) {
        try {
            return (int) STAMP.invokeExact(l, handle);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * {@return a handle's generation shifted left by {@code shift} (at most the slot bits and {@code 32 - generationBits}),
     * other bits clear, as {@link SlotMeta} keeps it}
     */
    public static int generationAt(HandleLayout l, long handle, int shift) {
        try {
            return (int) GENERATION_AT.invokeExact(l, handle, shift);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the handle of {@code slot} at {@code generation}, above them {@code tableBits}} */
    public static long handle(HandleLayout l, long tableBits, int generation, int slot) {
        try {
            return (long) HANDLE.invokeExact(l, tableBits, generation, slot);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the handle of {@code slot} with the epoch and generation of {@code stamp}, above them {@code tagBits}} */
    public static long handleOfStamp(HandleLayout l, long tagBits, int stamp, int slot) {
        try {
            return (long) HANDLE_OF_STAMP.invokeExact(l, tagBits, stamp, slot);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return {@code handle} under {@code tag} at {@code generation}, its slot and epoch kept} */
    public static long retagged(HandleLayout l, long handle, int tag, int generation) {
        try {
            return (long) RETAGGED.invokeExact(l, handle, tag, generation);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the stamp ({@link #stamp}) of {@code epoch} and {@code generation}} */
    public static int ownerStamp(HandleLayout l, int epoch, int generation) {
        try {
            return (int) OWNER_STAMP.invokeExact(l, epoch, generation);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the epoch of a stamp} */
    public static int stampEpoch(HandleLayout l, int stamp) {
        try {
            return (int) STAMP_EPOCH.invokeExact(l, stamp);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the generation of a stamp} */
    public static int stampGeneration(HandleLayout l, int stamp) {
        try {
            return (int) STAMP_GENERATION.invokeExact(l, stamp);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the epoch, generation and slot bits of a bound on handles, in place} */
    public static long payloadBound(HandleLayout l, int epoch, int generation, long slotBound) {
        try {
            return (long) PAYLOAD_BOUND.invokeExact(l, epoch, generation, slotBound);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@return the first stamp above every handle within {@code payloadBound} (negative: none, 0)} */
    public static long stampsAbove(HandleLayout l, long payloadBound) {
        try {
            return (long) STAMPS_ABOVE.invokeExact(l, payloadBound);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
