package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import java.lang.management.ManagementFactory

/**
 * The allocation tests fail, instead of passing, where the JVM cannot count allocated bytes
 * (accounting off: the counter answers -1, so every round once "allocated" 0 bytes).
 */
class AllocationCounterTest : FunSpec({
    val threads = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

    test("with accounting off, the counter and the allocation tests' rounds fail and name the machine") {
        AllocationCounter.requireCounting()
        threads.isThreadAllocatedMemoryEnabled = false
        try {
            threads.currentThreadAllocatedBytes shouldBe -1L
            shouldThrow<AssertionError> { AllocationCounter.allocatedBytes() }.message!!.let {
                it shouldContain "answered -1"
                it shouldContain "os.arch"
            }
            shouldThrow<AssertionError> { AllocationCounter.requireCounting() }.message!! shouldContain "switched off"
            var calls = 0
            shouldThrow<AssertionError> {
                roundsUntilAllocationAtMost("boxing", 0, 5) { calls++; listOf(calls).size.toLong() }
            }
            calls shouldBe 0
        } finally {
            threads.isThreadAllocatedMemoryEnabled = true
        }
        AllocationCounter.requireCounting()
    }

    test("a round that allocates fails with the machine in the message") {
        val e = shouldThrow<AssertionError> {
            roundsUntilAllocationAtMost("an array per round", 0, 5) { AllocationCounter.sink = LongArray(16); 0L }
        }
        e.message!! shouldStartWith "an array per round still allocates"
        e.message!! shouldContain "os.arch ${System.getProperty("os.arch")}"
    }
})
