package dev.bulkdata.storage.internal.memory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.util.Arrays;

/**
 * A mapped table's file: channel, lock, the regions mapped from it and where the next region or metadata area goes
 * (format: {@code docs/format.md}, read and written by {@code internal.format.MappedStore}). Regions are mapped into
 * the table's arena, so its close unmaps them all; region {@code k} holds {@code min(64 << k, 4096)} blocks, so few
 * mappings serve any size. Block {@code i} is the {@code i}-th block of the regions in order. Blocks past the opened
 * checkpoint's count may hold later bytes and are zeroed when handed out; appended regions are zero-filled file
 * space. Threads: the owning table's single writer.
 */
public final class MappedFile {
    /** Bytes between the starts of two blocks in the file, and the alignment of every region and area. */
    public static final int STRIDE = 16 * 1024;
    static final int FIRST_REGION_BLOCKS = 64;
    /** Blocks of the largest region: 64 MiB. */
    public static final int MAX_REGION_BLOCKS = 4096;

    /** The file's name, for messages. */
    public final String name;
    /** The channel, for the format's reads and writes of headers and metadata. */
    public final FileChannel channel;
    private final FileLock lock;
    private final int blockBytes;
    private Arena arena;
    // per region, in block order
    private long[] regionOffsets = new long[0];
    private int[] regionBlocks = new int[0];
    private MemorySegment[] regions = new MemorySegment[0];
    private int regionCount;
    private long capacity;
    private int handedOut;
    /** Blocks below this index may hold bytes written after the checkpoint the file was opened from. */
    private int staleBelow;
    private long end;
    private boolean closed;

    /**
     * Takes over an open, locked file.
     *
     * @param name the file's name, for messages
     * @param channel the file, open for reading and writing
     * @param lock the exclusive lock of the whole file, held by {@code channel}
     * @param blockBytes the bytes of a block that the table uses (at most {@link #STRIDE})
     * @param end the first byte after the file's headers and every region and area in use
     */
    public MappedFile(String name, FileChannel channel, FileLock lock, int blockBytes, long end) {
        this.name = name;
        this.channel = channel;
        this.lock = lock;
        this.blockBytes = blockBytes;
        this.end = end;
    }

    void attach(Arena arena) {
        if (this.arena != null) {
            throw new IllegalStateException("file " + name + " is already attached to a table");
        }
        this.arena = arena;
    }

    /**
     * Maps an existing region of the file (at open), in block order.
     *
     * @param offset its file offset, a multiple of {@link #STRIDE}
     * @param blocks its blocks
     * @throws IOException if mapping fails
     */
    public void mapRegion(long offset, int blocks) throws IOException {
        if (regionCount == regions.length) {
            int grown = Math.max(8, regionCount * 2);
            regions = Arrays.copyOf(regions, grown);
            regionOffsets = Arrays.copyOf(regionOffsets, grown);
            regionBlocks = Arrays.copyOf(regionBlocks, grown);
        }
        regions[regionCount] = channel.map(FileChannel.MapMode.READ_WRITE, offset, (long) blocks * STRIDE, arena);
        regionOffsets[regionCount] = offset;
        regionBlocks[regionCount] = blocks;
        regionCount++;
        capacity += blocks;
        end = Math.max(end, offset + (long) blocks * STRIDE);
    }

    /** Marks the end of a restore: later blocks of the regions mapped so far are zeroed when handed out. */
    public void restored() {
        staleBelow = (int) Math.min(capacity, Integer.MAX_VALUE);
    }

    /**
     * {@return block {@code b} of the mapped regions, {@code blockBytes} long}
     *
     * @param b the block's number, below the regions' capacity
     */
    public MemorySegment block(int b) {
        long at = locate(b);
        return regions[(int) (at >>> 32)].asSlice((at & 0xFFFF_FFFFL) * STRIDE, blockBytes);
    }

    /** Hands out the next block, zeroed, appending and mapping a region when all are full (or IOException). */
    MemorySegment nextBlock() throws IOException {
        if (closed) {
            throw new IllegalStateException("file " + name + " is closed");
        }
        if (handedOut == capacity) {
            int blocks = Math.min(FIRST_REGION_BLOCKS << Math.min(regionCount, 6), MAX_REGION_BLOCKS);
            long offset = end;
            long newEnd = offset + (long) blocks * STRIDE;
            channel.write(ByteBuffer.allocate(1), newEnd - 1);
            mapRegion(offset, blocks);
        }
        MemorySegment block = block(handedOut);
        if (handedOut < staleBelow) {
            block.fill((byte) 0);
        }
        handedOut++;
        return block;
    }

    /**
     * {@return the file offset, a multiple of {@link #STRIDE}, of an area for metadata appended at the end of the file}
     *
     * @param bytes its size
     */
    public long appendArea(long bytes) {
        long offset = end;
        end = offset + align(bytes);
        return offset;
    }

    /**
     * {@return {@code bytes} rounded up to a multiple of {@link #STRIDE}}
     *
     * @param bytes a size
     */
    public static long align(long bytes) {
        return (bytes + STRIDE - 1) & -(long) STRIDE;
    }

    /** {@return the number of mapped regions} */
    public int regionCount() {
        return regionCount;
    }

    /**
     * {@return the file offset of region {@code r}}
     *
     * @param r the region, in block order
     */
    public long regionOffset(int r) {
        return regionOffsets[r];
    }

    /**
     * {@return the blocks of region {@code r}}
     *
     * @param r the region, in block order
     */
    public int regionBlocks(int r) {
        return regionBlocks[r];
    }

    /**
     * {@return the file offset of block {@code b}, for messages}
     *
     * @param b the block's number, below the regions' capacity
     */
    public long blockOffset(int b) {
        long at = locate(b);
        return regionOffsets[(int) (at >>> 32)] + (at & 0xFFFF_FFFFL) * STRIDE;
    }

    /** {@return block {@code b}'s region (high 32 bits) and its place in the region (low 32 bits)} */
    private long locate(int b) {
        int r = 0;
        int first = 0;
        while (first + regionBlocks[r] <= b) {
            first += regionBlocks[r];
            r++;
        }
        return (long) r << 32 | (b - first);
    }

    /** Forces every region's changed pages to the device ({@link MemorySegment#force()}). */
    public void force() {
        for (int r = 0; r < regionCount; r++) {
            regions[r].force();
        }
    }

    /** Releases the lock and closes the channel; the regions are unmapped by the arena's close. Idempotent. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } catch (IOException ignored) {
            // Closing the channel releases the lock too.
        } finally {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing left to do: the file was written by the last checkpoint or not at all.
            }
        }
    }
}
