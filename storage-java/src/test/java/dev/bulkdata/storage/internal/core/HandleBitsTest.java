package dev.bulkdata.storage.internal.core;

import dev.bulkdata.storage.Seeds;
import dev.bulkdata.storage.schema.HandleLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HandleBits}, the engine's door to {@link HandleLayout}'s private encoders, against the layout's public
 * {@code pack} and decoders as the model: random layouts (epochs included) and random handles.
 */
class HandleBitsTest {

    @Test
    void encoders_agreeWithThePublicPackAndDecoders_forRandomLayoutsAndHandles() {
        long seed = Seeds.seed("HandleBitsTest.encoders", 0x4B17L);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 20_000; i++) {
            int slotBits = random.nextInt(1, HandleLayout.MAX_SLOT_BITS + 1);
            int generationBits = random.nextInt(1, Math.min(HandleLayout.MAX_GENERATION_BITS, 52 - slotBits) + 1);
            int epochBits = random.nextInt(0, Math.min(HandleLayout.MAX_EPOCH_BITS,
                    Math.min(32 - generationBits, 52 - slotBits - generationBits)) + 1);
            HandleLayout l = HandleLayout.of(slotBits, generationBits, epochBits);
            int tag = random.nextInt(HandleLayout.MAX_TAG + 1);
            int epoch = random.nextInt(l.maxEpoch() + 1);
            int generation = random.nextInt(l.maxGeneration() + 1);
            int slot = (int) random.nextLong((long) l.maxSlot() + 1);
            long h = l.pack(tag, epoch, generation, slot);
            String where = l + ", tag " + tag + ", epoch " + epoch + ", generation " + generation + ", slot " + slot
                    + ", " + Seeds.replay(seed);

            long tableBits = HandleBits.tableBits(l, h);
            long payload = HandleBits.payload(l, h);
            assertEquals(h, tableBits | payload, "table bits and payload split the handle, " + where);
            assertEquals(0, tableBits & payload, where);
            assertEquals(l.pack(0, 0, generation, slot), payload, where);
            assertEquals(HandleBits.tagBits(tag) | HandleBits.epochBitsOf(l, epoch), tableBits, where);
            assertEquals(tag, HandleBits.tagOfBits(tableBits), where);
            assertEquals(slot, HandleBits.intSlot(l, h), where);
            assertEquals(h, HandleBits.handle(l, tableBits, generation, slot), where);

            int stamp = HandleBits.stamp(l, h);
            assertEquals(stamp, HandleBits.ownerStamp(l, epoch, generation), where);
            assertEquals(epoch, HandleBits.stampEpoch(l, stamp), where);
            assertEquals(generation, HandleBits.stampGeneration(l, stamp), where);
            assertEquals(h, HandleBits.handleOfStamp(l, HandleBits.tagBits(tag), stamp, slot), where);

            int shift = random.nextInt(0, Math.min(slotBits, 32 - generationBits) + 1); // the engine's: SlotMeta's 1
            assertEquals(generation << shift, HandleBits.generationAt(l, h, shift), where);

            int newTag = random.nextInt(HandleLayout.MAX_TAG + 1);
            int newGeneration = random.nextInt(l.maxGeneration() + 1);
            assertEquals(l.pack(newTag, epoch, newGeneration, slot), HandleBits.retagged(l, h, newTag, newGeneration),
                    "a retag keeps slot and epoch, " + where);

            // A bound on handles: every handle of this slot's bit width at or below (epoch, generation) lies within
            // it, and the first stamp above it is above this handle's.
            long slotBound = slot == 0 ? 0 : (Long.highestOneBit(slot) << 1) - 1;
            long bound = HandleBits.payloadBound(l, epoch, generation, slotBound);
            assertTrue(HandleBits.payload(l, h) <= bound, "the handle lies within its bound, " + where);
            long above = HandleBits.stampsAbove(l, bound);
            assertTrue(above > Integer.toUnsignedLong(stamp), "the first stamp above the bound is above " + where);
            assertEquals(Integer.toUnsignedLong(stamp) + 1, above, where);
        }
        assertEquals(0, HandleBits.stampsAbove(HandleLayout.DEFAULT, -1), "no bound: every stamp is above it");
    }
}
