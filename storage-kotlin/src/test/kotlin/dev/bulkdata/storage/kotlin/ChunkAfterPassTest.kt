package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.toList
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * A chunk kept after its pass (processChunks, a chunkFlow collection, forEachChunk, useChunks)
 * throws [IllegalStateException] on every access instead of reading or writing records whose
 * slots may since have been reused. Relies on the core's chunk-after-iteration check.
 */
@OptIn(RawMemoryApi::class)
private fun TypedTable<Particles>.shouldRefuseKept(chunk: TypedChunk<Particles>, what: String) {
    withClue("a chunk kept after $what") {
        shouldThrow<IllegalStateException> { chunk.nextLive(0) }
        shouldThrow<IllegalStateException> { chunk.liveCount() }
        shouldThrow<IllegalStateException> { chunk.isLive(0) }
        shouldThrow<IllegalStateException> { chunk.liveBits(0) }
        shouldThrow<IllegalStateException> { chunk.handle(0) }
        shouldThrow<IllegalStateException> { chunk[0, Particles.AGE] }
        shouldThrow<IllegalStateException> { chunk[0, Particles.AGE] = 7 }
        shouldThrow<IllegalStateException> { chunk.column(Particles.AGE) }
        shouldThrow<IllegalStateException> { chunk.records() }
    }
    // the table itself is untouched and usable
    val before = size
    remove(add())
    size shouldBe before
}

class ChunkAfterPassTest : FunSpec({
    test("a chunk kept after processChunks throws IllegalStateException") {
        Particles.open().use { table ->
            repeat(1000) { i -> table.add { it[Particles.AGE] = i } }
            val kept = ConcurrentLinkedQueue<TypedChunk<Particles>>()
            table.processChunks(Dispatchers.Default, parallelism = 2) { kept += it }
            kept.size shouldBe table.core.stats().blocks()
            table.shouldRefuseKept(kept.first(), "processChunks")
        }
    }

    test("a chunk kept after a chunkFlow collection throws IllegalStateException") {
        Particles.open().use { table ->
            repeat(1000) { i -> table.add { it[Particles.AGE] = i } }
            var kept: TypedChunk<Particles>? = null
            table.chunkFlow().collect { kept = it }
            table.shouldRefuseKept(kept!!, "a chunkFlow collection")
            table.shouldRefuseKept(table.chunkFlow().toList().first(), "chunkFlow().toList()")
            table.shouldRefuseKept(table.chunkFlow().first(), "chunkFlow().first()")
        }
    }

    test("a chunk kept after forEachChunk or useChunks throws IllegalStateException") {
        Particles.open().use { table ->
            repeat(1000) { i -> table.add { it[Particles.AGE] = i } }
            var kept: TypedChunk<Particles>? = null
            table.forEachChunk { kept = it }
            table.shouldRefuseKept(kept!!, "forEachChunk")
            table.shouldRefuseKept(table.useChunks { it.first() }, "useChunks")
        }
    }
})
