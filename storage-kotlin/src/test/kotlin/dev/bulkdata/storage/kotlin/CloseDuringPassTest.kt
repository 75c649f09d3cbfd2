package dev.bulkdata.storage.kotlin

import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlin.random.Random

/** Chunks per table: enough that the caller's thread is still handing chunks out when one closes it. */
private const val CHUNKS = 64

/** Upper bound of the race's rounds; the test also stops after [BUDGET_NANOS]. */
private const val ROUNDS = 400
private const val BUDGET_NANOS = 20_000_000_000L

/**
 * Closing a table from inside `processChunks` (forbidden: the caller's thread still hands out
 * chunks, other coroutines use theirs) gets the library's own [IllegalStateException] naming the
 * table, never an internal exception: the core read the chunk array after `close()` on a worker
 * had emptied it, an [ArrayIndexOutOfBoundsException] from inside the library.
 */
class CloseDuringPassTest : FunSpec({
    test("a close from inside processChunks on Dispatchers.Default fails with IllegalStateException naming the table") {
        val random = Random(0xC105E)
        val start = System.nanoTime()
        var rounds = 0
        var failed = 0
        while (rounds < ROUNDS && System.nanoTime() - start < BUDGET_NANOS) {
            val table = Particles.open()
            repeat(CHUNKS * Particles.schema.slotsPerBlock() - random.nextInt(100)) { table.add() }
            val closer = random.nextInt(4)                  // an early chunk: the hand-out is still running
            val outcome = runCatching {
                runBlocking {
                    table.processChunks(Dispatchers.Default, parallelism = 2) { chunk ->
                        if (chunk.index() == closer) {
                            table.close()
                        } else {
                            var s = chunk.nextLive(0)
                            while (s >= 0) {
                                chunk[s, Particles.X] = chunk[s, Particles.X] + 1f
                                s = chunk.nextLive(s + 1)
                            }
                        }
                    }
                }
            }
            withClue("round $rounds, chunk $closer closed the table") {
                table.core.isClosed shouldBe true
                outcome.exceptionOrNull()?.let { e ->
                    failed++
                    withClue(e.stackTraceToString()) {
                        (e is IllegalStateException) shouldBe true
                        e.message!! shouldContain "table 'particles'"
                        internalIn(e) shouldBe null
                    }
                }
            }
            rounds++
        }
        println("[CloseDuringPassTest] $rounds rounds, $failed failed with the table's IllegalStateException")
        failed shouldBeGreaterThan 0
    }
})

/** The first exception in [e]'s causes and suppressed ones that is not an [IllegalStateException] or a cancellation. */
private fun internalIn(e: Throwable, seen: MutableSet<Throwable> = HashSet()): Throwable? {
    if (!seen.add(e)) return null
    if (e !is IllegalStateException && e !is CancellationException) return e
    e.cause?.let { c -> internalIn(c, seen)?.let { return it } }
    for (s in e.suppressed) internalIn(s, seen)?.let { return it }
    return null
}
