package dev.bulkdata.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Address space for the floors of {@link LookupBenchmark}, with no library: an anonymous
 * mapping aligned to 2 MiB and advised to use transparent huge pages, as a table's reserved
 * range is (needs {@code --enable-native-access}; Linux only).
 */
@SuppressWarnings("restricted")
final class Reserved {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MADVISE = LINKER.downcallHandle(LINKER.defaultLookup().find("madvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final long HUGE = 2L << 20;

    private Reserved() {
    }

    /** {@code bytes} (rounded up to 2 MiB) of zeroed memory on huge pages, unmapped when {@code arena} closes. */
    static MemorySegment range(long bytes, Arena arena) {
        long size = (bytes + HUGE - 1) & -HUGE;
        try {
            long raw = (long) MMAP.invokeExact(0L, size + HUGE, 0x3, 0x4022, -1, 0L);
            if (raw == -1L) {
                throw new IllegalStateException("mmap failed");
            }
            long base = (raw + HUGE - 1) & -HUGE;
            int advised = (int) MADVISE.invokeExact(base, size, 14);
            return MemorySegment.ofAddress(base).reinterpret(size, arena, s -> unmap(raw, size + HUGE));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static void unmap(long address, long size) {
        try {
            int ignored = (int) MUNMAP.invokeExact(address, size);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
