package dev.bulkdata.storage.schema;

/**
 * How a 64-bit handle splits into table tag, generation and slot.
 *
 * <pre>
 *  63        52 51                 32 31                              0
 * +------------+---------------------+---------------------------------+
 * |  table tag |     generation      |              slot               |
 * |  (12 bits) |     (20 bits)       |        (32 bits, unsigned)      |
 * +------------+---------------------+---------------------------------+
 *                     DEFAULT: slotBits = 32, generationBits = 20
 * </pre>
 *
 * <p>The tag always takes the top {@value #TAG_BITS} bits. A table may choose another split of the low 52 bits with
 * {@link #of(int, int)}: fewer slot bits bound the table's size, fewer generation bits make slots retire sooner.
 * {@link #of(int, int, int)} gives some of the bits left to the table's <em>epoch</em>, which moves on only when the
 * table is emptied; a handle is valid only in its epoch, so an emptied table starts its generations over instead of
 * retiring slots. Unused bits are zero in every valid handle. The all-zero handle {@code 0L} is the null handle: no
 * table hands out tag 0 or slot 0. Instances are immutable and thread-safe. Guide: docs/tables-and-handles.md,
 * "Generation budget".
 */
public final class HandleLayout {
    /** Width of the table tag, always the top bits of a handle. */
    public static final int TAG_BITS = 12;
    /** Bit position of the table tag. */
    public static final int TAG_SHIFT = Long.SIZE - TAG_BITS;
    /** Largest tag a table can have (tags run from 1; 0 is never handed out). */
    public static final int MAX_TAG = (1 << TAG_BITS) - 1;
    /**
     * The first of the fixed tags, {@value} to {@value #MAX_TAG}: a table gets one only when its builder asks for it
     * ({@code BulkTable.Builder.tag(int)}) or a snapshot saved with it is loaded; automatic tags are 1 to {@value} - 1.
     */
    public static final int MIN_FIXED_TAG = 0xF00;
    /** Largest number of slot bits: the slot is an unsigned 32-bit field. */
    public static final int MAX_SLOT_BITS = 32;
    /** Largest number of generation bits: a slot's meta word keeps 30, beside its live and retired bits. */
    public static final int MAX_GENERATION_BITS = 30;
    /** Largest slot of any layout: slots are Java {@code int}s, so a table holds at most {@code 2^31 - 2} records. */
    public static final int MAX_SLOT = Integer.MAX_VALUE - 1;

    /** Largest number of epoch bits: a table's file keeps its epoch in 11 bits; see {@link #of(int, int, int)}. */
    public static final int MAX_EPOCH_BITS = 11;

    /** The default layout: 32 slot bits, 20 generation bits, 12 tag bits, no epoch bits. */
    public static final HandleLayout DEFAULT = new HandleLayout(32, 20, 0);

    private final int slotBits;
    private final int generationBits;
    private final long slotMask;
    private final long generationMask;
    private final long payloadMask;
    private final int epochBits;
    private final long epochMask;

    private HandleLayout(int slotBits, int generationBits, int epochBits) {
        this.slotBits = slotBits;
        this.generationBits = generationBits;
        this.slotMask = (1L << slotBits) - 1;
        this.generationMask = (1L << generationBits) - 1;
        this.payloadMask = slotMask | (generationMask << slotBits);
        this.epochBits = epochBits;
        this.epochMask = ((1L << epochBits) - 1) << (slotBits + generationBits);
    }

    /**
     * {@return the layout with the given split of the 52 bits below the tag, without epoch bits}
     *
     * @param slotBits bits for the slot, 1 to 32
     * @param generationBits bits for the generation, 1 to 30
     * @throws IllegalArgumentException if a width is out of range or both exceed 52 bits
     */
    public static HandleLayout of(int slotBits, int generationBits) {
        return of(slotBits, generationBits, 0);
    }

    /**
     * {@return the layout with the given split of the 52 bits below the tag, with epoch bits}: a table emptied over and
     * over (refilled every frame) then keeps its slots for {@code 2^(epochBits + generationBits)} emptyings instead of
     * {@code 2^generationBits}.
     *
     * @param slotBits bits for the slot, 1 to 32
     * @param generationBits bits for the generation, 1 to 30
     * @param epochBits bits for the epoch, 0 to {@value #MAX_EPOCH_BITS}; {@code generationBits + epochBits <= 32}
     * @throws IllegalArgumentException if a width is out of range or the three exceed 52 bits
     */
    public static HandleLayout of(int slotBits, int generationBits, int epochBits) {
        if (epochBits < 0 || epochBits > MAX_EPOCH_BITS || generationBits + epochBits > Integer.SIZE) {
            throw new IllegalArgumentException("epochBits=" + epochBits + " must be in [0, " + MAX_EPOCH_BITS
                    + "], with generationBits + epochBits <= 32 (generationBits=" + generationBits + ")");
        }
        if (slotBits < 1 || slotBits > MAX_SLOT_BITS) {
            throw new IllegalArgumentException("slotBits=" + slotBits + " must be in [1, " + MAX_SLOT_BITS + "]");
        }
        if (generationBits < 1 || generationBits > MAX_GENERATION_BITS) {
            throw new IllegalArgumentException(
                    "generationBits=" + generationBits + " must be in [1, " + MAX_GENERATION_BITS + "]");
        }
        if (slotBits + generationBits + epochBits > TAG_SHIFT) {
            throw new IllegalArgumentException("slotBits=" + slotBits + " + generationBits=" + generationBits
                    + (epochBits == 0 ? "" : " + epochBits=" + epochBits)
                    + " must not exceed " + TAG_SHIFT + " (the tag takes the top " + TAG_BITS + " bits)");
        }
        if (slotBits == DEFAULT.slotBits && generationBits == DEFAULT.generationBits && epochBits == 0) {
            return DEFAULT;
        }
        return new HandleLayout(slotBits, generationBits, epochBits);
    }

    /**
     * {@return the layout a table builder uses when given a {@code maxCapacity} and no layout}: the fewest slot bits
     * that hold slot {@code maxCapacity}, the rest given to generations (up to 30), then epochs:
     * {@code slotBits = 32 - Integer.numberOfLeadingZeros(maxCapacity)}, {@code generationBits = min(30, 52 -
     * slotBits)}, {@code epochBits = min(11, 52 - slotBits - generationBits, 32 - generationBits)}.
     * {@code Integer.MAX_VALUE}, a builder's "no cap", gives {@link #DEFAULT}.
     *
     * @param maxCapacity the table's largest number of slots, at least 1
     * @throws IllegalArgumentException if {@code maxCapacity < 1}
     */
    public static HandleLayout forCapacity(int maxCapacity) {
        if (maxCapacity < 1) {
            throw new IllegalArgumentException("maxCapacity=" + maxCapacity + " must be at least 1");
        }
        if (maxCapacity == Integer.MAX_VALUE) {
            return DEFAULT;
        }
        int slotBits = Integer.SIZE - Integer.numberOfLeadingZeros(maxCapacity);
        int generationBits = Math.min(MAX_GENERATION_BITS, TAG_SHIFT - slotBits);
        int epochBits = Math.min(MAX_EPOCH_BITS, Math.min(TAG_SHIFT - slotBits - generationBits,
                Integer.SIZE - generationBits));
        return of(slotBits, generationBits, epochBits);
    }

    /** {@return the number of slot bits: the largest slot is {@code 2^slotBits - 1}, at most {@link #MAX_SLOT}} */
    public int slotBits() {
        return slotBits;
    }

    /** {@return the number of bits of the generation} */
    public int generationBits() {
        return generationBits;
    }

    /** {@return the largest slot a table with this layout can hand out} */
    public int maxSlot() {
        return (int) Math.min(slotMask, MAX_SLOT);
    }

    /** {@return the number of bits of the table's epoch; 0 in {@link #DEFAULT}} */
    public int epochBits() {
        return epochBits;
    }

    /** {@return the largest epoch: {@code 2^epochBits - 1}} */
    public int maxEpoch() {
        return (1 << epochBits) - 1;
    }

    /**
     * {@return its epoch}
     *
     * @param handle a handle of this layout
     */
    public int epoch(long handle) {
        return (int) ((handle & epochMask) >>> (slotBits + generationBits));
    }

    /** {@return the largest generation; a slot removed at it is retired, not reused: no handle aliases a later one} */
    public int maxGeneration() {
        return (int) generationMask;
    }

    /**
     * {@return the packed handle, of epoch 0} No table is consulted: the result may be valid for no table.
     *
     * @param tag the table tag, 0 to {@value #MAX_TAG}
     * @param generation the generation, 0 to {@link #maxGeneration()}
     * @param slot the slot, 0 to {@code 2^slotBits - 1} (as unsigned)
     * @throws IllegalArgumentException if a part does not fit its bits
     */
    public long pack(int tag, int generation, long slot) {
        return pack(tag, 0, generation, slot);
    }

    /**
     * {@return the packed handle, with an epoch} No table is consulted: the result may be valid for no table.
     *
     * @param tag the table tag, 0 to {@value #MAX_TAG}
     * @param epoch the epoch, 0 to {@link #maxEpoch()}
     * @param generation the generation, 0 to {@link #maxGeneration()}
     * @param slot the slot, 0 to {@code 2^slotBits - 1} (as unsigned)
     * @throws IllegalArgumentException if a part does not fit its bits
     */
    public long pack(int tag, int epoch, int generation, long slot) {
        if (epoch < 0 || epoch > maxEpoch()) {
            throw new IllegalArgumentException("epoch=" + epoch + " must be in [0, " + maxEpoch() + "]");
        }
        if (tag < 0 || tag > MAX_TAG) {
            throw new IllegalArgumentException("tag=" + tag + " must be in [0, " + MAX_TAG + "]");
        }
        if (generation < 0 || generation > generationMask) {
            throw new IllegalArgumentException("generation=" + generation + " must be in [0, " + generationMask + "]");
        }
        if (slot < 0 || slot > slotMask) {
            throw new IllegalArgumentException("slot=" + slot + " must be in [0, " + slotMask + "]");
        }
        return ((long) tag << TAG_SHIFT) | ((long) epoch << (slotBits + generationBits)) | ((long) generation << slotBits)
                | slot;
    }

    /**
     * {@return its slot (unsigned, so a {@code long})}
     *
     * @param handle a handle of this layout
     */
    public long slot(long handle) {
        return handle & slotMask;
    }

    /**
     * {@return its generation}
     *
     * @param handle a handle of this layout
     */
    public int generation(long handle) {
        return (int) ((handle >>> slotBits) & generationMask);
    }

    /**
     * {@return its table tag (the top {@value #TAG_BITS} bits)}
     *
     * @param handle any handle
     */
    public int tag(long handle) {
        return (int) (handle >>> TAG_SHIFT);
    }

    /**
     * {@return {@code true} if bits between the epoch and the tag are set, so no table with this layout made it}
     *
     * @param handle any handle
     */
    public boolean hasStrayBits(long handle) {
        return ((handle & ~(payloadMask | epochMask)) << TAG_BITS) != 0;
    }

    /**
     * {@return the handle as {@code name#slot@generation}, e.g. {@code particles#42@3}, followed by {@code e} and the
     * epoch if it is not 0 ({@code particles#42@3e5}); {@code "null"} for {@code 0L}}
     *
     * @param tableName the name to print before {@code #}
     * @param handle the handle
     */
    public String format(String tableName, long handle) {
        if (handle == 0L) {
            return "null";
        }
        int epoch = epoch(handle);
        return tableName + '#' + Long.toUnsignedString(slot(handle)) + '@' + generation(handle)
                + (epoch == 0 ? "" : "e" + epoch);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandleLayout other
                && other.slotBits == slotBits
                && other.generationBits == generationBits
                && other.epochBits == epochBits;
    }

    @Override
    public int hashCode() {
        return (slotBits * 31 + generationBits) * 31 + epochBits;
    }

    @Override
    public String toString() {
        return "HandleLayout[tag=" + TAG_BITS + (epochBits == 0 ? "" : ", epoch=" + epochBits) + ", generation="
                + generationBits + ", slot=" + slotBits + "]";
    }

    // ---- The engine's encoders: private, bound by internal.core.HandleBits (privateLookupIn, same module), so that
    // every bit operation on a handle lives here and the exported type gains no member.

    private static long payloadOf(HandleLayout l, long handle) {
        return handle & l.payloadMask;
    }

    private static long tableBitsOf(HandleLayout l, long handle) {
        return handle & ~l.payloadMask;
    }

    private static long tagBitsOf(int tag) {
        return (long) tag << TAG_SHIFT;
    }

    private static int tagOfTableBits(long tableBits) {
        return (int) (tableBits >>> TAG_SHIFT);
    }

    private static long epochBits(HandleLayout l, int epoch) {
        return (long) epoch << (l.slotBits + l.generationBits);
    }

    private static int stampOf(HandleLayout l, long handle) {
        return (int) ((handle & (l.payloadMask | l.epochMask)) >>> l.slotBits);
    }

    private static int generationShifted(HandleLayout l, long handle, int shift) {
        return (int) (handle >>> (l.slotBits - shift)) & (l.maxGeneration() << shift);
    }

    private static long compose(HandleLayout l, long tableBits, int generation, int slot) {
        return tableBits | ((long) generation << l.slotBits) | slot;
    }

    private static long composeStamp(HandleLayout l, long tagBits, int stamp, int slot) {
        return tagBits | (Integer.toUnsignedLong(stamp) << l.slotBits) | slot;
    }

    private static long retag(HandleLayout l, long handle, int tag, int generation) {
        long rest = handle & ~(((long) MAX_TAG << TAG_SHIFT) | ((long) l.maxGeneration() << l.slotBits));
        return rest | tagBitsOf(tag) | ((long) generation << l.slotBits);
    }

    private static int ownerStamp(HandleLayout l, int epoch, int generation) {
        return epoch << l.generationBits | generation;
    }

    private static int stampEpoch(HandleLayout l, int stamp) {
        return stamp >>> l.generationBits;
    }

    private static int stampGeneration(HandleLayout l, int stamp) {
        return stamp & l.maxGeneration();
    }

    private static long payloadBound(HandleLayout l, int epoch, int generation, long slotBound) {
        return (((long) epoch << l.generationBits | generation) << l.slotBits) | slotBound;
    }

    private static long stampsAbove(HandleLayout l, long payloadBound) {
        return payloadBound < 0 ? 0 : (payloadBound >>> l.slotBits) + 1;
    }
}
