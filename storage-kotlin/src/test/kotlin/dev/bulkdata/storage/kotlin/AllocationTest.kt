package dev.bulkdata.storage.kotlin

import io.kotest.core.spec.style.FunSpec
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import java.lang.management.ManagementFactory

private const val OPS = 100_000
private const val MAX_ROUNDS = 60

/** Records of the short passes that get the typed forEach pass compiled as a whole. */
private const val SMALL_PASS = 1_000

/** Passes allowed until one allocates nothing: the JIT compiles a method after thousands of calls. */
private const val MAX_PASSES = 20_000

private val THREADS = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

/**
 * Runs [round] until one call allocates nothing on this thread; fails if none does. Early
 * rounds run interpreted, where the JVM and the FFM runtime allocate; a path that allocates
 * per operation never reaches zero. Measures bytes, never time.
 */
private inline fun roundsUntilAllocationFree(what: String, maxRounds: Int = MAX_ROUNDS, round: () -> Long): Int {
    var sink = 0L
    for (i in 1..maxRounds) {
        val before = THREADS.currentThreadAllocatedBytes
        sink += round()
        if (THREADS.currentThreadAllocatedBytes - before == 0L) return i
    }
    throw AssertionError("$what still allocates after $maxRounds rounds (sink $sink)")
}

/**
 * One pass of a typical system, in its own method as callers (and the JMH benchmark) write it:
 * the JIT compiles it whole, and escape analysis removes the one iteration object per pass.
 */
private fun move(table: TypedTable<Particles>): Long {
    var n = 0L
    table.forEach {
        it[Particles.X] = it[Particles.X] + it[Particles.VX]
        n++
    }
    return n
}

/** The typed hot paths cost what the core's do: nothing, once compiled. */
class AllocationTest : FunSpec({
    test("typed get and set by handle allocate nothing") {
        Particles.open().use { table ->
            val raw = LongArray(OPS) { table.add().raw }
            roundsUntilAllocationFree("typed get/set") {
                var sum = 0f
                for (i in raw.indices) {
                    val id = ParticleId(raw[i])
                    table[id, Particles.X] = i.toFloat()
                    sum += table[id, Particles.X]
                }
                sum.toLong()
            }
        }
    }

    test("typed remove, add with initialiser and contains allocate nothing once the blocks exist") {
        Particles.open().use { table ->
            val raw = LongArray(OPS) { table.add().raw }
            roundsUntilAllocationFree("typed remove/add/contains") {
                var live = 0L
                for (i in raw.indices step 2) table.remove(ParticleId(raw[i]))
                for (i in raw.indices step 2) raw[i] = table.add { it[Particles.AGE] = i }.raw
                for (r in raw) if (ParticleId(r) in table) live++
                live
            }
            table.size shouldBe OPS
        }
    }

    test("typed forEach allocates nothing once compiled: not even the iteration object") {
        Particles.open().use { small ->
            repeat(SMALL_PASS) { small.add { h -> h[Particles.VX] = 1f } }
            // Short passes, many times: the pass (move) is compiled as a whole, not only its loop
            // (on-stack replacement), and escape analysis then removes the core's ChunkIteration.
            // Early rounds allocate it (interpreted, or entering the loop's OSR code).
            val rounds = roundsUntilAllocationFree("typed forEach", MAX_PASSES) { move(small) }
            println("[AllocationTest] typed forEach allocation-free after $rounds passes of $SMALL_PASS records")
            Particles.open().use { large ->
                val first = large.add { h -> h[Particles.VX] = 1f }
                repeat(OPS - 1) { large.add { h -> h[Particles.VX] = 1f } }
                var visited = 0L
                val largeRounds = roundsUntilAllocationFree("typed forEach over $OPS records") {
                    move(large).also { visited += it }
                }
                println("[AllocationTest] and after $largeRounds passes of $OPS records")
                visited shouldBe largeRounds.toLong() * OPS
                large[first, Particles.X] shouldBe largeRounds.toFloat()
            }
        }
    }
})
