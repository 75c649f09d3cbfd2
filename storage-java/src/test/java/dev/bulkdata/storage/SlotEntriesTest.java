package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotEntries;
import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.SlotMapFixture.Entries;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.IntBuffer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link SlotEntries} on their own, through the index that extends them ({@link SlotMapFixture}),
 * in heap pages and in a reserved range, at stride 1 (meta words) and stride 2 (meta word and
 * payload): what is written is read back across a page boundary, the clear pass
 * ({@link SlotEntries#advanceAllLive}) on its fast and its retiring path, and the copies a
 * snapshot saves ({@link SlotEntries#putSaved}, {@link SlotEntries#savedMeta}).
 */
class SlotEntriesTest {
    /** 3 generation bits: generation 7 is the last, so a clear can retire slots. */
    private static final HandleLayout LAYOUT = HandleLayout.of(16, 3);
    /** Slots 0 to 4,100: past the first page of 4,096. */
    private static final int SLOTS = 4_101;

    static Stream<Arguments> storages() {
        return Stream.of(Entries.values()).flatMap(e -> Stream.of(Arguments.of(e, false), Arguments.of(e, true)));
    }

    private static SlotMapFixture fixture(Entries entries, boolean payloads) {
        SlotMapFixture f = new SlotMapFixture(entries, LAYOUT, 0, 60_000, ReuseOrder.FIFO, payloads);
        f.slots.ensureEntries(SLOTS);
        return f;
    }

    /** A meta word for slot {@code s}: dead, live, or live at the last generation every 7th slot when {@code retiring}. */
    private static int metaOf(int s, boolean retiring) {
        if (s == 0) {
            return 0;
        }
        if (retiring && s % 7 == 0) {
            return SlotMeta.live(LAYOUT.maxGeneration());
        }
        return s % 3 == 0 ? SlotMeta.free(s % 5) : SlotMeta.live(s % 5);
    }

    /** Writes every slot's meta word ({@link #metaOf}) and, unless {@code payload} is null, its payload. */
    private static void write(SlotMap e, boolean retiring, java.util.function.IntUnaryOperator payload) {
        for (int s = 0; s < SLOTS; s++) {
            e.setMeta(s, metaOf(s, retiring));
            if (payload != null) {
                e.setPayload(s, payload.applyAsInt(s));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("storages")
    void whatIsWritten_isReadBack_acrossPages(Entries entries, boolean payloads) {
        try (SlotMapFixture f = fixture(entries, payloads)) {
            SlotMap e = f.slots;
            write(e, false, payloads ? s -> ~s : null);
            for (int s = 0; s < SLOTS; s++) {
                assertEquals(metaOf(s, false), e.meta(s), "meta of slot " + s);
                if (payloads) {
                    assertEquals(~s, e.payload(s), "payload of slot " + s);
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("storages")
    void advanceAllLive_advancesLiveWords_retiresAtTheLastGeneration(Entries entries, boolean payloads) {
        for (boolean retiring : new boolean[] {false, true}) {
            try (SlotMapFixture f = fixture(entries, payloads)) {
                SlotMap e = f.slots;
                int limit = SLOTS - 2;      // slots [limit, SLOTS) are not opened: the pass leaves them; the last page holds 3
                write(e, retiring, payloads ? s -> SlotMeta.live(s % 5) : null); // payloads that look like live words stay
                int expectedRetired = 0;
                for (int s = 1; s < limit; s++) {
                    expectedRetired += metaOf(s, retiring) == SlotMeta.live(LAYOUT.maxGeneration()) ? 1 : 0;
                }
                assertEquals(expectedRetired, e.advanceAllLive(limit, LAYOUT.maxGeneration()), "retired, retiring=" + retiring);
                for (int s = 0; s < SLOTS; s++) {
                    int before = metaOf(s, retiring);
                    int expected = s == 0 || s >= limit || !SlotMeta.isLive(before) ? before
                            : SlotMeta.generation(before) == LAYOUT.maxGeneration() ? SlotMeta.retired(LAYOUT.maxGeneration())
                            : SlotMeta.free(SlotMeta.generation(before) + 1);
                    assertEquals(expected, e.meta(s), "slot " + s + ", retiring=" + retiring);
                    if (payloads) {
                        assertEquals(SlotMeta.live(s % 5), e.payload(s), "payload of slot " + s);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("storages")
    void putSaved_copiesMetaWordsOrPayloads(Entries entries, boolean payloads) {
        try (SlotMapFixture f = fixture(entries, payloads)) {
            SlotMap e = f.slots;
            write(e, false, payloads ? s -> 3 * s : null);
            IntBuffer out = IntBuffer.allocate(2 * SLOTS + 1);
            out.put(-1);
            e.putSaved(out, SLOTS, false);
            if (payloads) {
                e.putSaved(out, SLOTS, true);
            }
            assertEquals(1 + (payloads ? 2 : 1) * SLOTS, out.position(), "the position after the copies");
            assertEquals(-1, out.get(0), "what was there before stays");
            for (int s = 0; s < SLOTS; s++) {
                assertEquals(metaOf(s, false), out.get(1 + s), "saved meta of slot " + s);
                assertEquals(metaOf(s, false), e.savedMeta(s));
                if (payloads) {
                    assertEquals(3 * s, out.get(1 + SLOTS + s), "saved payload of slot " + s);
                }
            }
        }
    }
}
