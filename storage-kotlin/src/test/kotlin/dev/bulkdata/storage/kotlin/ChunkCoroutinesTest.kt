@file:OptIn(RawMemoryApi::class)

package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.ints.shouldBeGreaterThanOrEqual
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import java.lang.foreign.Arena
import java.util.ConcurrentModificationException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

private const val RECORDS = 20_000

private fun TypedTable<Particles>.fill(): List<ParticleId> = List(RECORDS) { i -> add { it[Particles.AGE] = i } }

class ChunkCoroutinesTest : FunSpec({
    test("concurrent writes to distinct records from the chunk coroutines lose nothing") {
        Particles.open().use { table ->
            val ids = table.fill()
            ids.filterIndexed { i, _ -> i % 5 == 0 }.forEach { table.remove(it) }
            repeat(10) {
                table.processChunks(Dispatchers.Default, parallelism = 4) { chunk ->
                    var s = chunk.nextLive(0)
                    while (s >= 0) {
                        chunk[s, Particles.ID] = chunk[s, Particles.ID] + chunk[s, Particles.AGE]
                        s = chunk.nextLive(s + 1)
                        if (s % 256 == 0) yield()
                    }
                }
            }
            ids.forEachIndexed { i, id ->
                if (i % 5 != 0) table[id, Particles.ID] shouldBe 10L * i
            }
            (table.core.stats().blocks() > 1) shouldBe true
        }
    }

    test("a packed table is processed the same way") {
        Bullets.open().use { table ->
            val ids = List(RECORDS) { i -> table.add { it[Bullets.DAMAGE] = i } }
            ids.filterIndexed { i, _ -> i % 3 == 0 }.forEach { table.remove(it) }
            table.processChunks(Dispatchers.Default, parallelism = 3) { chunk ->
                var s = chunk.nextLive(0)
                while (s >= 0) {
                    chunk[s, Bullets.DAMAGE] = chunk[s, Bullets.DAMAGE] * 2
                    s = chunk.nextLive(s + 1)
                }
            }
            ids.forEachIndexed { i, id -> if (i % 3 != 0) table[id, Bullets.DAMAGE] shouldBe 2 * i }
        }
    }

    test("parallelism 2 runs two chunks at once, on two threads") {
        Particles.open().use { table ->
            table.fill()
            val twoInProgress = CountDownLatch(2)
            val waitedForTheOther = AtomicInteger()
            val chunks = AtomicInteger()
            val threads = ConcurrentHashMap.newKeySet<Thread>()
            table.processChunks(Dispatchers.Default, parallelism = 2) {
                threads += Thread.currentThread()
                twoInProgress.countDown()
                // Blocks this thread until a second chunk has started, which must then run on
                // another thread; one thread alone would wait out the timeout and fail the test.
                if (twoInProgress.await(30, TimeUnit.SECONDS)) waitedForTheOther.incrementAndGet()
                chunks.incrementAndGet()
            }
            chunks.get() shouldBe table.core.stats().blocks()
            waitedForTheOther.get() shouldBe chunks.get()
            threads.size shouldBeGreaterThanOrEqual 2
        }
    }

    test("never more chunks in progress than parallelism, suspended ones included") {
        // More threads than parallelism, and chunks that suspend: neither the pool nor
        // limitedParallelism (which bounds running chunks, not suspended ones) is the bound.
        Executors.newFixedThreadPool(6).asCoroutineDispatcher().use { pool ->
            Particles.open().use { table ->
                table.fill()
                for (parallelism in listOf(1, 2, 3)) {
                    val inProgress = AtomicInteger()
                    val peak = AtomicInteger()
                    val reached = CompletableDeferred<Unit>()
                    table.processChunks(pool, parallelism) {
                        val now = inProgress.incrementAndGet()
                        peak.accumulateAndGet(now, ::maxOf)
                        if (now == parallelism) reached.complete(Unit)
                        // suspended until the bound was reached once: without a bound, every other
                        // chunk would start meanwhile
                        withTimeout(30_000) { reached.await() }
                        delay(1)
                        inProgress.decrementAndGet()
                    }
                    withClue("parallelism $parallelism") { peak.get() shouldBe parallelism }
                }
            }
        }
    }

    test("Dispatchers.Unconfined is supported, with the same bound and the same guarantee") {
        Particles.open().use { table ->
            val ids = table.fill()
            val inProgress = AtomicInteger()
            val peak = AtomicInteger()
            val refused = AtomicInteger()
            table.processChunks(Dispatchers.Unconfined, parallelism = 2) { chunk ->
                peak.accumulateAndGet(inProgress.incrementAndGet(), ::maxOf)
                try { table.add() } catch (e: ConcurrentModificationException) { refused.incrementAndGet() }
                delay(1) // resumes on another thread
                var s = chunk.nextLive(0)
                while (s >= 0) {
                    chunk[s, Particles.ID] = chunk[s, Particles.AGE].toLong() + 1
                    s = chunk.nextLive(s + 1)
                }
                inProgress.decrementAndGet()
            }
            peak.get() shouldBe 2
            refused.get() shouldBe table.core.stats().blocks()
            table.size shouldBe RECORDS
            ids.forEachIndexed { i, id -> table[id, Particles.ID] shouldBe i + 1L }
        }
    }

    test("an exception in one chunk cancels the others and propagates; the iteration is closed") {
        Particles.open().use { table ->
            table.fill()
            val cancelled = AtomicInteger()
            val e = shouldThrow<IllegalStateException> {
                table.processChunks(Dispatchers.Default, parallelism = 4) { chunk ->
                    if (chunk.index() == 1) error("chunk 1 failed")
                    try {
                        awaitCancellation()
                    } catch (c: CancellationException) {
                        cancelled.incrementAndGet()
                        throw c
                    }
                }
            }
            e.message shouldBe "chunk 1 failed"
            (cancelled.get() >= 1) shouldBe true
            table.add() // structural changes work again: the iteration was closed
        }
    }

    test("cancelling the caller stops processing promptly") {
        Particles.open().use { table ->
            table.fill()
            val started = CompletableDeferred<Unit>()
            val finished = AtomicInteger()
            runBlocking {
                val job = launch(Dispatchers.Default) {
                    table.processChunks(Dispatchers.Default, parallelism = 1) {
                        started.complete(Unit)
                        delay(60_000)
                        finished.incrementAndGet()
                    }
                }
                started.await()
                job.cancelAndJoin()
            }
            finished.get() shouldBe 0
            table.add()
        }
    }

    test("add or remove while chunks are processed fails fast and changes nothing") {
        Particles.open().use { table ->
            val ids = table.fill()
            val errors = ConcurrentHashMap.newKeySet<String>()
            table.processChunks(Dispatchers.Default, parallelism = 2) { chunk ->
                if (chunk.index() == 0) {
                    try { table.add() } catch (e: ConcurrentModificationException) { errors += "add" }
                    try { table.remove(ids[0]) } catch (e: ConcurrentModificationException) { errors += "remove" }
                }
            }
            errors shouldBe setOf("add", "remove")
            table.size shouldBe RECORDS
            (ids[0] in table) shouldBe true
        }
    }

    test("memory confined to one thread is rejected up front with a clear error") {
        // Every table's blocks come from a shared arena, so this path cannot be reached through a
        // table; the check itself is tested on confined memory.
        Arena.ofConfined().use { arena ->
            val e = shouldThrow<IllegalStateException> { requireShareable("confined", arena.allocate(16)) }
            e.message shouldContain "table 'confined' has memory confined to one thread"
            e.message shouldContain "forEachChunk"
        }
        Arena.ofShared().use { arena -> requireShareable("shared", arena.allocate(16)) }
    }

    test("tables' memory is shared: chunks written on other threads are read back here") {
        Particles.open().use { table ->
            val ids = table.fill()
            table.processChunks(Dispatchers.IO, parallelism = 8) { chunk ->
                chunk.records().isAccessibleBy(Thread.currentThread()) shouldBe true
                var s = chunk.nextLive(0)
                while (s >= 0) { chunk[s, Particles.X] = 1f; s = chunk.nextLive(s + 1) }
            }
            ids.all { table[it, Particles.X] == 1f } shouldBe true
        }
    }

    test("parallelism below 1 and a closed table are rejected") {
        val table = Particles.open()
        shouldThrow<IllegalArgumentException> { table.processChunks(parallelism = 0) {} }.message shouldContain
            "parallelism=0"
        table.close()
        shouldThrow<IllegalStateException> { table.processChunks {} }
    }
})
