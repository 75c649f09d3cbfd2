package dev.bulkdata.storage;

import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.core.SlotMeta;
import dev.bulkdata.storage.internal.format.MetaWords;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The file format reads meta words with its own constants: they must be the slot map's. */
class MetaWordsTest {
    @Test
    void theFormatsMetaWordEncoding_isTheSlotMaps() {
        assertEquals(SlotMeta.LIVE, MetaWords.LIVE);
        assertEquals(SlotMeta.RETIRED, MetaWords.RETIRED);
        assertEquals(SlotMeta.GENERATION_SHIFT, MetaWords.GENERATION_SHIFT);
        assertEquals(SlotMeta.GENERATION_MASK, MetaWords.GENERATION_MASK);
        assertEquals(SlotMap.PAGE_SHIFT, MetaWords.PAGE_SHIFT);
    }
}
