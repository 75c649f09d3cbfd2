package dev.bulkdata.storage.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Address space reserved for a table's blocks at once ({@code MAP_NORESERVE}: backed, zero, when first touched;
 * unmapped when its arena closes). Only on Linux x86-64/AArch64 with native access and
 * {@code dev.bulkdata.storage.reserve} not {@code false}; else {@link #reserve} returns null and blocks are allocated
 * one by one, silently. ARCHITECTURE.md, "Memory layout"; guide: docs/tables-and-handles.md, "Native access".
 */
@SuppressWarnings("restricted") // the calls run only where the module has native access (AVAILABLE)
public final class AddressSpace {
    /** Whether reservations can be made in this JVM. */
    public static final boolean AVAILABLE = available();
    /** Huge pages are asked for a range this large or larger: 2 MiB, the x86-64 and AArch64 (4 KiB granule) PMD size. */
    public static final long HUGE_PAGE = 2L << 20;

    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000;
    private static final int MADV_HUGEPAGE = 14;

    private AddressSpace() {
    }

    private static boolean available() {
        if ("false".equalsIgnoreCase(System.getProperty("dev.bulkdata.storage.reserve"))) {
            return false;
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return false;
        }
        return AddressSpace.class.getModule().isNativeAccessEnabled();
    }

    /** The native functions, looked up on first use (only when {@link #AVAILABLE}). */
    private static final class Native {
        static final MethodHandle MMAP;
        static final MethodHandle MUNMAP;
        static final MethodHandle MADVISE;

        static {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            MMAP = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
            MUNMAP = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
            MADVISE = linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        }
    }

    /**
     * Reserves {@code bytes} of address space, aligned to {@link #HUGE_PAGE}, zero where first read, unmapped when
     * {@code arena} closes.
     *
     * @param bytes the size, a multiple of 4 KiB
     * @param arena the arena whose closing unmaps the range; accesses after it throw {@link IllegalStateException}
     * @return the reserved range, or null if reservations are not available here or the system refused this one (no
     *     address space left, a strict overcommit policy)
     */
    public static MemorySegment reserve(long bytes, Arena arena) {
        if (!AVAILABLE || bytes <= 0) {
            return null;
        }
        long size = bytes + HUGE_PAGE;
        long raw;
        try {
            raw = (long) Native.MMAP.invokeExact(0L, size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0L);
        } catch (Throwable e) {
            return null;
        }
        if (raw == -1L || raw == 0L) {
            return null;
        }
        long base = (raw + HUGE_PAGE - 1) & -HUGE_PAGE;
        return MemorySegment.ofAddress(base).reinterpret(bytes, arena, ignored -> unmap(raw, size));
    }

    private static void unmap(long address, long size) {
        try {
            int ignored = (int) Native.MUNMAP.invokeExact(address, size);
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
    }

    /**
     * Asks the kernel to back {@code range} with transparent huge pages where it can (pages touched before stay as
     * they are). Best effort: a refusal is ignored.
     *
     * @param range a reserved range or a part of one, 2 MiB-aligned
     */
    public static void adviseHugePages(MemorySegment range) {
        try {
            int ignored = (int) Native.MADVISE.invokeExact(range.address(), range.byteSize() & -HUGE_PAGE, MADV_HUGEPAGE);
        } catch (Throwable e) {
            // best effort
        }
    }
}
