package dev.bulkdata.storage.vector;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KernelsAllocationTest} fails, instead of passing, where the JVM cannot count allocated
 * bytes (accounting off: the counter answers -1, which read as 0 bytes per pass), and its
 * failures name the machine, the Vector API's preferred species included.
 */
class AllocationCounterTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void withAccountingOff_theCounterFails_namingTheMachine() {
        AllocationCounter.requireCounting();
        THREADS.setThreadAllocatedMemoryEnabled(false);
        try {
            assertEquals(-1, THREADS.getCurrentThreadAllocatedBytes(), "the JVM's answer with accounting off");
            AssertionError read = assertThrows(AssertionError.class, KernelsAllocationTest::allocatedBytes);
            assertTrue(read.getMessage().contains("answered -1") && read.getMessage().contains("os.arch"),
                    read.getMessage());
            AssertionError check = assertThrows(AssertionError.class, AllocationCounter::requireCounting);
            assertTrue(check.getMessage().contains("switched off"), check.getMessage());
        } finally {
            THREADS.setThreadAllocatedMemoryEnabled(true);
        }
        AllocationCounter.requireCounting();
    }

    @Test
    void theMachineNamesThePreferredSpecies_whereTheKernelsAreVectorised() {
        String machine = AllocationCounter.machine();
        assertTrue(machine.contains("os.arch " + System.getProperty("os.arch")), machine);
        if (Kernels.vectorized()) {
            assertTrue(machine.contains("FloatVector.SPECIES_PREFERRED Species[float, "), machine);
        }
        if (System.getProperty("os.arch").matches("amd64|x86_64")) {
            assertTrue(machine.contains("UseAVX="), machine);
        }
    }
}
