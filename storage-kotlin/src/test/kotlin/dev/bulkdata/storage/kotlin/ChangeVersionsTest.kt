package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ChangeFilter
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import java.lang.foreign.ValueLayout
import java.util.concurrent.ConcurrentHashMap

/** Change versions from Kotlin: typed writes stamp, and every filtered pass visits exactly the chunks written since a version. */
class ChangeVersionsTest : FunSpec({
    /** A table of 5 chunks (512 records each), the handle of one record per chunk, and a version after filling it. */
    fun filled(block: (TypedTable<Particles>, List<ParticleId>, Int) -> Unit) {
        Particles.open().use { table ->
            val firsts = ArrayList<ParticleId>()
            repeat(5 * Particles.schema.slotsPerBlock() - 1) { i ->
                val h = table.add()
                if ((i + 1) % Particles.schema.slotsPerBlock() == 0 || i == 0) firsts.add(h)
            }
            block(table, firsts, table.markVersion())
        }
    }

    test("typed set by handle and by slot, and writable views, stamp; reads and read-only views do not") {
        filled { table, firsts, v0 ->
            val x = changeFilter(Particles.X)
            table.forEachChunk(x, v0) { error("nothing written yet, chunk ${it.index()} visited") }
            table[firsts[1], Particles.X] = 1f                            // chunk 1 by handle
            table.forEachChunk { chunk -> if (chunk.index() == 3) chunk[chunk.nextLive(0), Particles.X] = 2f }
            @OptIn(RawMemoryApi::class)
            table.forEachChunk { chunk ->
                if (chunk.index() == 4) chunk.writableColumn(Particles.X)  // stamps without a write
                val read = chunk.column(Particles.VX)                      // read-only: stamps nothing
                shouldThrow<IllegalArgumentException> { read.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1f) }
                table[firsts[chunk.index()], Particles.VX]                 // a read
            }
            val visited = ArrayList<Int>()
            table.forEachChunk(x, v0) { visited.add(it.index()) }
            visited shouldContainExactly listOf(1, 3, 4)
            table.forEachChunk(changeFilter(Particles.VX), v0) { error("VX was only read") }
            table.forEachChunk(ChangeFilter.structure(), v0) { error("no record added or removed") }
            table.forEachChunk { it.changedSince(Particles.X, v0) shouldBe (it.index() in visited) }
        }
    }

    test("forEach, processChunks and chunkFlow visit the chunks changed since the version, and only those") {
        filled { table, firsts, v0 ->
            table[firsts[0], Particles.AGE] = 7
            table.remove(firsts[2])                                        // structure of chunk 2
            val age = changeFilter(Particles.AGE).orStructure()
            var records = 0
            val chunks = HashSet<Int>()
            table.forEach(age, v0) {
                records++
                chunks.add(table.core.handleLayout().slot(it.handle.raw).toInt() / Particles.schema.slotsPerBlock())
            }
            chunks shouldBe setOf(0, 2)
            records shouldBe (Particles.schema.slotsPerBlock() - 1) + (Particles.schema.slotsPerBlock() - 1)
            val processed = ConcurrentHashMap.newKeySet<Int>()
            runBlocking {
                table.processChunks(age, v0, Dispatchers.Default, parallelism = 2) { processed.add(it.index()) }
            }
            processed shouldBe setOf(0, 2)
            runBlocking { table.chunkFlow(age, v0).map { it.index() }.toList() } shouldContainExactly listOf(0, 2)
            val v1 = table.markVersion()
            table.forEach(age, v1) { error("nothing changed since v1") }
            runBlocking { table.chunkFlow(age, v1).toList().size } shouldBe 0
        }
    }

    test("a filter of another table's schema is refused") {
        filled { table, _, v0 ->
            Bullets.open().use { bullets ->
                bullets.add()
                shouldThrow<IllegalArgumentException> { bullets.forEachChunk(changeFilter(Particles.X), v0) { } }
                runBlocking {
                    shouldThrow<IllegalArgumentException> { bullets.processChunks(changeFilter(Particles.X), v0) { } }
                }
            }
            table.add() // no iteration left open
        }
    }
})
