package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The allocation tests fail, instead of passing, where the JVM cannot count allocated bytes:
 * with the per-thread accounting switched off the counter answers -1, which once made every
 * round "allocate" 0 bytes.
 */
class AllocationCounterTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void withAccountingOff_theCounterAndEveryAllocationTestFail_namingTheMachine() {
        AllocationCounter.requireCounting();
        THREADS.setThreadAllocatedMemoryEnabled(false);
        try {
            assertEquals(-1, THREADS.getCurrentThreadAllocatedBytes(), "the JVM's answer with accounting off");
            AssertionError read = assertThrows(AssertionError.class, AllocationCounter::allocatedBytes);
            assertTrue(read.getMessage().contains("answered -1") && read.getMessage().contains("os.arch"),
                    read.getMessage());
            AssertionError check = assertThrows(AssertionError.class, AllocationCounter::requireCounting);
            assertTrue(check.getMessage().contains("switched off"), check.getMessage());
            // A round that allocates per call would read as 0 bytes with a -1 counter: it must fail.
            int[] calls = {0};
            assertThrows(AssertionError.class, () -> AllocationTest.roundsUntilAllocationFree("boxing",
                    () -> {
                        calls[0]++;
                        return Long.valueOf(System.nanoTime()).hashCode();
                    }));
            assertEquals(0, calls[0], "no round runs when nothing can be counted");
        } finally {
            THREADS.setThreadAllocatedMemoryEnabled(true);
        }
        AllocationCounter.requireCounting();
    }

    @Test
    void aRoundThatAllocatesFails_withTheMachineInTheMessage() {
        AssertionError e = assertThrows(AssertionError.class, () -> AllocationTest.roundsUntilAllocationFree(
                "an array per round", () -> {
                    AllocationCounter.sink = new long[16];
                    return 0;
                }));
        String m = e.getMessage();
        assertTrue(m.startsWith("an array per round still allocates"), m);
        assertTrue(m.contains("os.arch " + System.getProperty("os.arch")) && m.contains("UseAVX="), m);
    }

    @Test
    void theMachineNamesTheVectorExtensionsWhereTheCpuListsThem() throws Exception {
        String machine = AllocationCounter.machine();
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            String info = Files.readString(cpuinfo);
            for (String flag : new String[] {"avx2", "avx512f"}) {
                boolean has = info.matches("(?s).*\\bflags\\s*:[^\\n]*\\b" + flag + "\\b.*");
                assertEquals(has, machine.matches(".*vector flags [^,]*\\b" + flag + "\\b.*"),
                        flag + " in " + machine);
            }
        }
        assertTrue(machine.contains("UseAVX=") || !System.getProperty("os.arch").matches("amd64|x86_64"), machine);
    }
}
