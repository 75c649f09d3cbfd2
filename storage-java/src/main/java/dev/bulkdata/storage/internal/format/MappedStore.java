package dev.bulkdata.storage.internal.format;

import dev.bulkdata.storage.schema.OpenedCheckpoint;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.schema.StorageFileException.Reason;
import dev.bulkdata.storage.internal.memory.MappedFile;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static dev.bulkdata.storage.internal.format.FileFormat.*;

/**
 * A mapped table's file and the state of its checkpoints; makes the checkpoints ({@code docs/format.md}, sections 11
 * and 12). {@link MappedOpen} opens the file and makes the store; the table keeps it ({@link StoredTable#attach}) and
 * calls {@link #checkpoint} and {@link #verify} holding its iteration guard.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class MappedStore {
    final StoredTable table;
    public final MappedFile file;
    /** The last completed checkpoint's sequence number. */
    long sequence;
    final long[] areaOffset = new long[2];
    final long[] areaCapacity = new long[2];
    /** Whether the file keeps a CRC32C per block ({@link FileFormat#FLAG_BLOCK_CRCS}). */
    public final boolean checksums;
    /** Each block's CRC32C as of the last checkpoint, for the first {@link #known} blocks. */
    int[] crcs = new int[0];
    /** Blocks below this have a checksum (0 after an open that could not check them). */
    int known;
    /** Bit per block changed without a change-version stamp (free-list links): its checksum is due. */
    private long[] pending = new long[0];
    /** The change version the last checkpoint marked. */
    int since;
    private Written written = new Written(0, 0);
    OpenedCheckpoint opened;
    private final Engine engine;

    MappedStore(StoredTable table, MappedFile file, boolean checksums, Engine engine) {
        this.table = table;
        this.file = file;
        this.checksums = checksums;
        this.engine = engine;
    }

    /** {@return which checkpoint the table was opened at} */
    public OpenedCheckpoint opened() {
        return opened;
    }

    /** Block {@code block} changed where change versions do not see it (a free-list link): its checksum is due. */
    public void touched(int block) {
        if (!checksums) {
            return;
        }
        int w = block >>> 6;
        if (w >= pending.length) {
            pending = Arrays.copyOf(pending, Math.max(w + 1, 2 * pending.length));
        }
        pending[w] |= 1L << block;
    }

    /** {@return whether block {@code block} may have changed since the last checkpoint's checksums} */
    private boolean due(int block) {
        return block >= known
                || (block >>> 6) < pending.length && (pending[block >>> 6] & 1L << block) != 0
                || table.changedSince(block, since);
    }

    /** Makes a checkpoint (docs/format.md, section 12), a closing one (its commit record says so) if {@code closing}. */
    public void checkpoint(boolean closing) throws IOException {
        int blocks = table.blockCount();
        int summed = checksums ? sumChangedBlocks(blocks) : 0; // before the force, which then covers what they sum
        file.force();
        TableState state = table.state();
        boolean bulk = state.kind() == KIND_BULK;
        int[] list = bulk ? table.listedSlots() : new int[0];
        int regions = file.regionCount();
        int sums = checksums ? blocks : 0;
        int extra = 4 * sums + 4 * list.length + 4 + 12 * regions + 32;
        ByteBuffer meta = SnapshotWriter.metadata(table, state, extra);
        int s = (int) ((sequence + 1) & 1);
        long length = meta.capacity();
        boolean freshArea = length > areaCapacity[s];
        if (freshArea) {
            areaCapacity[s] = MappedFile.align(length + length / 2);
            areaOffset[s] = file.appendArea(areaCapacity[s]);
        }
        meta.asIntBuffer().put(crcs, 0, sums);
        meta.position(meta.position() + 4 * sums);
        for (int slot : list) {
            meta.putInt(slot);
        }
        meta.putInt(regions);
        for (int i = 0; i < regions; i++) {
            meta.putLong(file.regionOffset(i)).putInt(file.regionBlocks(i));
        }
        meta.putLong(areaOffset[0]).putLong(areaCapacity[0]).putLong(areaOffset[1]).putLong(areaCapacity[1]);
        meta.flip();
        FileChannel channel = file.channel;
        long metadataBytes = freshArea ? writeAt(channel, meta, areaOffset[s]) : writeChanged(channel, meta, areaOffset[s]);
        channel.force(true);

        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.nativeOrder());
        startHeader(header, state.kind(), FLAG_MAPPED | (checksums ? FLAG_BLOCK_CRCS : 0), length, blocks,
                crc32c(meta.array(), 0, (int) length))
                .putLong(AT_METADATA_OFFSET, areaOffset[s]).putLong(AT_SEQUENCE, sequence + 1);
        sealHeader(header);
        int headerCrc = header.getInt(AT_HEADER_CRC);
        writeAt(channel, header, (long) s * SLOT_B);
        channel.force(true);
        sequence++;
        // Evidence of completion, after the header is on the device; durable at the next force (or write-back).
        writeCommit(channel, s, sequence, headerCrc, closing ? COMMIT_CLOSED : COMMIT_OPEN);
        written = new Written(metadataBytes, summed);
    }

    /**
     * What a checkpoint wrote besides the header, for tests of its cost: {@code metadataBytes} of metadata (the pages
     * that changed, or all of it into a new area) and the {@code blocksChecksummed} blocks whose checksum it computed.
     */
    public record Written(long metadataBytes, int blocksChecksummed) {
    }

    /** {@return what the last checkpoint of this store wrote; zeros before the first} */
    public Written written() {
        return written;
    }

    /** {@return the blocks summed} Computes the CRC32C of every block {@link #due}, and marks a version. */
    private int sumChangedBlocks(int blocks) {
        int now = table.markVersion();
        if (crcs.length < blocks) {
            crcs = Arrays.copyOf(crcs, Math.max(blocks, crcs.length + crcs.length / 2));
        }
        MemorySegment[] segments = table.segments();
        CRC32C crc = new CRC32C();
        int summed = 0;
        for (int b = 0; b < blocks; b++) {
            if (due(b)) {
                crc.reset();
                crc.update(segments[b].asByteBuffer());
                crcs[b] = (int) crc.getValue();
                summed++;
            }
        }
        known = blocks;
        since = now;
        Arrays.fill(pending, 0);
        return summed;
    }

    /** Computes the CRC32C of the blocks whose bytes the table changed without a stamp, and clears them. */
    void sumPending() {
        MemorySegment[] segments = table.segments();
        CRC32C crc = new CRC32C();
        for (int w = 0; w < pending.length; w++) {
            for (long bits = pending[w]; bits != 0; bits &= bits - 1) {
                int b = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (b < known) {
                    crc.reset();
                    crc.update(segments[b].asByteBuffer());
                    crcs[b] = (int) crc.getValue();
                }
            }
        }
        Arrays.fill(pending, 0);
    }

    /** {@return the blocks checked}: each block unchanged since the last checkpoint, against its stored CRC32C. */
    public int verify() throws StorageFileException {
        MemorySegment[] segments = table.segments();
        CRC32C crc = new CRC32C();
        int checked = 0;
        for (int b = 0, blocks = Math.min(table.blockCount(), known); b < blocks; b++) {
            if (!due(b)) {
                crc.reset();
                crc.update(segments[b].asByteBuffer());
                if ((int) crc.getValue() != crcs[b]) {
                    throw engine.failure(file.name, Reason.CHECKSUM,
                            blockDamage(b, table.schema().slotsPerBlock(), file), null);
                }
                checked++;
            }
        }
        return checked;
    }

    static String blockDamage(int b, int slotsPerBlock, MappedFile file) {
        return "block " + b + " (slots or rows " + (long) b * slotsPerBlock + " to "
                + ((long) (b + 1) * slotsPerBlock - 1) + ", file offset " + file.blockOffset(b)
                + ") does not match the CRC32C its last checkpoint stored: the file was damaged after it";
    }

    /** Writes slot {@code s}'s commit record (not forced: docs/format.md, section 12). */
    static void writeCommit(FileChannel channel, int s, long sequence, int headerCrc, int state) throws IOException {
        ByteBuffer c = ByteBuffer.allocate(COMMIT_BYTES).order(ByteOrder.nativeOrder());
        c.putInt(0, COMMIT_MAGIC).putInt(4, state).putLong(8, sequence).putInt(16, headerCrc);
        c.putInt(COMMIT_BYTES - 4, crc32c(c.array(), 0, COMMIT_BYTES - 4));
        writeAt(channel, c, COMMIT_AT[s]);
    }

    private static long writeAt(FileChannel channel, ByteBuffer b, long at) throws IOException {
        long bytes = b.remaining();
        while (b.hasRemaining()) {
            channel.write(b, at + b.position());
        }
        return bytes;
    }

    /**
     * Writes {@code meta} (heap, position 0) into the area at {@code at}, only the pages that differ from what the
     * area holds (the checkpoint two back), so a checkpoint forces only those; returns the bytes written.
     */
    private static long writeChanged(FileChannel channel, ByteBuffer meta, long at) throws IOException {
        int length = meta.limit();
        long present = Math.max(0, Math.min(length, channel.size() - at));
        MemorySegment now = MemorySegment.ofArray(meta.array());
        long written = 0;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment old = present == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, at, present, scratch);
            int run = -1; // first page of the run of differing pages being gathered, or -1
            for (int page = 0; page < length || run >= 0; page += PAGE) {
                int end = Math.min(page + PAGE, length);
                boolean differs = page < length && (end > present
                        || MemorySegment.mismatch(now, page, end, old, page, end) >= 0);
                if (differs && run < 0) {
                    run = page;
                } else if (!differs && run >= 0) {
                    int runEnd = Math.min(page, length);
                    written += writeAt(channel, ByteBuffer.wrap(meta.array(), run, runEnd - run).slice(), at + run);
                    run = -1;
                }
            }
        }
        return written;
    }
}
