package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import java.lang.foreign.ValueLayout

/** A typed chunk is the core chunk with the table's type: every answer is the core's. */
class TypedChunkTest : FunSpec({
    test("a typed chunk answers as its core chunk, with typed handles") {
        Particles.open().use { table ->
            val ids = List(1500) { i -> table.add { it[Particles.AGE] = i } }
            ids.filterIndexed { i, _ -> i % 3 == 1 }.forEach { table.remove(it) }
            val seen = ArrayList<ParticleId>()
            var chunks = 0
            table.forEachChunk { chunk ->
                @OptIn(RawMemoryApi::class)
                val core = chunk.core
                chunk.index() shouldBe chunks++
                chunk.slotCount() shouldBe core.slotCount()
                chunk.slotCount() shouldBe Particles.schema.slotsPerBlock()
                chunk.liveCount() shouldBe core.liveCount()
                chunk.liveWordCount() shouldBe core.liveWordCount()
                for (w in 0 until chunk.liveWordCount()) chunk.liveBits(w) shouldBe core.liveBits(w)
                for (s in 0 until chunk.slotCount()) chunk.isLive(s) shouldBe core.isLive(s)
                for (s in 0..chunk.slotCount()) chunk.nextHole(s) shouldBe core.nextHole(s)
                var s = chunk.nextLive(0)
                while (s >= 0) {
                    s shouldBe core.nextLive(s)
                    val id: ParticleId = chunk.handle(s)
                    id.raw shouldBe core.handle(s)
                    chunk[s, Particles.AGE] shouldBe table[id, Particles.AGE]
                    seen += id
                    s = chunk.nextLive(s + 1)
                }
            }
            seen shouldContainExactly ids.filterIndexed { i, _ -> i % 3 != 1 }
            chunks shouldBe table.stats().blocks
        }
    }

    test("every column type is read and written through a typed chunk") {
        Particles.open().use { table ->
            val id = table.add()
            table.forEachChunk { chunk ->
                val s = chunk.nextLive(0)
                chunk[s, Particles.KIND] = 1
                chunk[s, Particles.FLAGS] = 2
                chunk[s, Particles.CODE] = 'c'
                chunk[s, Particles.AGE] = 3
                chunk[s, Particles.ID] = 4L
                chunk[s, Particles.X] = 5f
                chunk[s, Particles.MASS] = 6.0
                chunk[s, Particles.ALIVE] = true
                chunk[s, Particles.KIND] shouldBe 1.toByte()
                chunk[s, Particles.FLAGS] shouldBe 2.toShort()
                chunk[s, Particles.CODE] shouldBe 'c'
                chunk[s, Particles.AGE] shouldBe 3
                chunk[s, Particles.ID] shouldBe 4L
                chunk[s, Particles.X] shouldBe 5f
                chunk[s, Particles.MASS] shouldBe 6.0
                chunk[s, Particles.ALIVE] shouldBe true
            }
            table[id, Particles.KIND] shouldBe 1.toByte()
            table[id, Particles.FLAGS] shouldBe 2.toShort()
            table[id, Particles.CODE] shouldBe 'c'
            table[id, Particles.AGE] shouldBe 3
            table[id, Particles.ID] shouldBe 4L
            table[id, Particles.X] shouldBe 5f
            table[id, Particles.MASS] shouldBe 6.0
            table[id, Particles.ALIVE] shouldBe true
        }
    }

    test("a hole or a slot outside the chunk is refused as the core refuses it") {
        Particles.open().use { table ->
            val a = table.add()
            table.add()
            table.remove(a)
            table.forEachChunk { chunk ->
                val hole = 1
                chunk.isLive(hole) shouldBe false
                shouldThrow<IllegalArgumentException> { chunk[hole, Particles.X] }
                shouldThrow<IllegalArgumentException> { chunk[hole, Particles.X] = 1f }
                shouldThrow<IllegalArgumentException> { chunk.handle(hole) }
                shouldThrow<IndexOutOfBoundsException> { chunk[chunk.slotCount(), Particles.X] }
                shouldThrow<IndexOutOfBoundsException> { chunk.liveBits(chunk.liveWordCount()) }
            }
        }
    }

    test("raw columns and records, with the opt-in, are the chunk's memory") {
        Particles.open().use { table ->
            repeat(100) { i -> table.add { it[Particles.X] = i.toFloat() } }
            var sum = 0.0
            table.forEachChunk { chunk ->
                @OptIn(RawMemoryApi::class)
                val column = chunk.column(Particles.X)
                @OptIn(RawMemoryApi::class)
                val records = chunk.records()
                records.byteSize() shouldBe Particles.schema.blockBytes().toLong()
                var s = chunk.nextLive(0)
                while (s >= 0) {
                    sum += column.getAtIndex(ValueLayout.JAVA_FLOAT, s.toLong())
                    s = chunk.nextLive(s + 1)
                }
            }
            sum shouldBe 4950.0
        }
        Sounds.open().use { aos ->
            aos.add()
            aos.forEachChunk { chunk ->
                shouldThrow<IllegalStateException> {
                    @OptIn(RawMemoryApi::class)
                    chunk.column(Sounds.VOLUME) // AOS: records() only
                }
            }
        }
    }

    test("useChunks and chunkFlow hand out typed chunks of the table") {
        Particles.open().use { table ->
            repeat(2000) { i -> table.add { it[Particles.AGE] = i } }
            val viaSequence = table.useChunks { chunks -> chunks.map { it.liveCount() }.toList() }
            val viaFlow = table.chunkFlow().map { it.liveCount() }.toList()
            viaSequence shouldBe viaFlow
            viaSequence.sum() shouldBe 2000
            table.chunkFlow().map { chunk -> chunk[chunk.nextLive(0), Particles.AGE] }.toList() shouldBe
                List(viaSequence.size) { it * Particles.schema.slotsPerBlock() - if (it == 0) 0 else 1 }
        }
    }
})
