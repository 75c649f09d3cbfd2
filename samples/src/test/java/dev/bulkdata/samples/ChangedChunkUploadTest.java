package dev.bulkdata.samples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChangedChunkUploadTest {
    private static ChangedChunkUpload.Outcome run(long seed, ByteArrayOutputStream bytes) {
        return ChangedChunkUpload.run(ChangedChunkUpload.Params.SMALL, seed,
                SampleOutput.plain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    }

    @Test
    void stagingMirrorsTheTable_afterUploadingOnlyTheChangedChunks() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ChangedChunkUpload.Outcome o = run(11L, bytes);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, o.wrongPositions(), text);
        assertEquals(20, o.frames());
        // 40 chunks of 512; the 200 movers are in 1-2 chunks, 5 edits in at most 5 more, 50 churned every 10th frame.
        assertTrue(o.uploadedBytes() * 4 < o.fullCopyBytes(), text);
        assertTrue(o.chunksUploaded() >= 20, "the movers' chunk is uploaded every frame: " + text);
        assertTrue(text.contains("B per frame on average"), text);
    }

    @Test
    void checksum_isReproducible_andDependsOnTheSeed() {
        ChangedChunkUpload.Outcome a = run(11L, new ByteArrayOutputStream());
        assertEquals(a, run(11L, new ByteArrayOutputStream()));
        assertNotEquals(a.checksum(), run(12L, new ByteArrayOutputStream()).checksum());
    }
}
