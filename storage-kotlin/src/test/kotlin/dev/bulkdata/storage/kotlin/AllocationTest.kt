package dev.bulkdata.storage.kotlin

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThanOrEqual
import io.kotest.matchers.shouldBe
import java.lang.management.ManagementFactory

private const val OPS = 100_000
private const val MAX_ROUNDS = 60

/** A ChunkIteration: header, two references or compressed oops, an int and a boolean. */
private const val ONE_ITERATION_OBJECT_BYTES = 32L

private val THREADS = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

/**
 * Runs [round] until one call allocates nothing on this thread; fails if none does. Early
 * rounds run interpreted, where the JVM and the FFM runtime allocate; a path that allocates
 * per operation never reaches zero. Measures bytes, never time.
 */
private inline fun roundsUntilAllocationFree(what: String, round: () -> Long): Int {
    var sink = 0L
    for (i in 1..MAX_ROUNDS) {
        val before = THREADS.currentThreadAllocatedBytes
        sink += round()
        if (THREADS.currentThreadAllocatedBytes - before == 0L) return i
    }
    throw AssertionError("$what still allocates after $MAX_ROUNDS rounds of $OPS operations (sink $sink)")
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

    test("typed forEach allocates nothing per record: at most one iteration object per pass") {
        Particles.open().use { table ->
            repeat(OPS) { table.add { h -> h[Particles.VX] = 1f } }
            // The pass opens one ChunkIteration (the core's iterate()); escape analysis removes it
            // when the pass compiles as one unit, but whether it does depends on the JIT's type
            // profile (other table kinds in the same JVM make the calls polymorphic). What must
            // hold whatever the JIT does: 100,000 records cost no more than that one object.
            var best = Long.MAX_VALUE
            var visited = 0L
            for (round in 1..MAX_ROUNDS) {
                val before = THREADS.currentThreadAllocatedBytes
                visited += move(table)
                best = minOf(best, THREADS.currentThreadAllocatedBytes - before)
            }
            visited shouldBe MAX_ROUNDS.toLong() * OPS
            best shouldBeLessThanOrEqual ONE_ITERATION_OBJECT_BYTES
        }
    }
})
