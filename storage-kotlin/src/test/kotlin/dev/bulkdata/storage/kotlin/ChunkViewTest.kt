package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking

/** Column views and forEachLive: the fast typed chunk loop docs/kotlin.md shows. */
class ChunkViewTest : FunSpec({
    test("forEachLive visits every live slot once in slot order, in full chunks and chunks with holes") {
        Particles.open().use { table ->
            val slots = Particles.schema.slotsPerBlock()
            val n = 4 * slots + 100
            val ids = List(n) { i -> table.add { it[Particles.AGE] = i } }
            // chunk 1 keeps every record (one loop from 0; slot 0 of chunk 0 is never used), the
            // chunks from 2 on lose every third
            ids.filterIndexed { i, _ -> i >= 2 * slots && i % 3 == 1 }.forEach { table.remove(it) }
            val seen = ArrayList<Int>()
            var full = 0
            table.forEachChunk { chunk ->
                if (chunk.liveCount() == chunk.slotCount()) full++
                val expected = ArrayList<Int>()
                var s = chunk.nextLive(0)
                while (s >= 0) {
                    expected += s
                    s = chunk.nextLive(s + 1)
                }
                val visited = ArrayList<Int>()
                chunk.forEachLive { slot -> visited += slot }
                visited shouldContainExactly expected
                chunk.forEachLive { slot -> seen += chunk[slot, Particles.AGE] }
            }
            full shouldBe 1
            seen shouldContainExactly (0 until n).filter { it < 2 * slots || it % 3 != 1 }
        }
    }

    test("views read and writable views write the live records of every numeric column type") {
        Particles.open().use { table ->
            val ids = List(1200) { i -> table.add { it[Particles.AGE] = i } }
            ids.filterIndexed { i, _ -> i % 4 == 0 }.forEach { table.remove(it) }
            table.forEachChunk { chunk ->
                val kind = chunk.writableView(Particles.KIND)
                val flags = chunk.writableView(Particles.FLAGS)
                val code = chunk.writableView(Particles.CODE)
                val age = chunk.writableView(Particles.AGE)
                val id = chunk.writableView(Particles.ID)
                val x = chunk.writableView(Particles.X)
                val mass = chunk.writableView(Particles.MASS)
                chunk.forEachLive { s ->
                    val a = age[s]
                    kind[s] = (a % 100).toByte()
                    flags[s] = (a % 1000).toShort()
                    code[s] = 'a' + a % 26
                    age[s] = a + 1
                    id[s] = a * 10L
                    x[s] = a / 2f
                    mass[s] = a / 4.0
                }
            }
            ids.forEachIndexed { i, h ->
                if (i % 4 != 0) {
                    table[h, Particles.KIND] shouldBe (i % 100).toByte()
                    table[h, Particles.FLAGS] shouldBe (i % 1000).toShort()
                    table[h, Particles.CODE] shouldBe 'a' + i % 26
                    table[h, Particles.AGE] shouldBe i + 1
                    table[h, Particles.ID] shouldBe i * 10L
                    table[h, Particles.X] shouldBe i / 2f
                    table[h, Particles.MASS] shouldBe i / 4.0
                }
            }
            var sum = 0L
            table.forEachChunk { chunk ->
                val age = chunk.view(Particles.AGE)
                val id = chunk.view(Particles.ID)
                age.size shouldBe chunk.slotCount()
                chunk.forEachLive { s -> sum += id[s] / 10 - age[s] + 1 }
            }
            sum shouldBe 0L
        }
    }

    test("a writable view stamps its own column's change version in its chunk, a view none") {
        Particles.open().use { table ->
            repeat(1200) { table.add() }
            val seen = table.markVersion()
            table.forEachChunk { chunk ->
                chunk.view(Particles.VX)
                if (chunk.index() == 1) chunk.writableView(Particles.X)
            }
            val changed = ArrayList<String>()
            table.forEachChunk { chunk ->
                if (chunk.changedSince(Particles.X, seen)) changed += "x${chunk.index()}"
                if (chunk.changedSince(Particles.VX, seen)) changed += "vx${chunk.index()}"
            }
            changed shouldContainExactly listOf("x1")
        }
    }

    test("a slot outside the chunk throws, an AOS table has no views, and no view is taken past its pass") {
        Particles.open().use { table ->
            table.add()
            var kept: TypedChunk<Particles>? = null
            table.forEachChunk { chunk ->
                kept = chunk
                val x = chunk.writableView(Particles.X)
                shouldThrow<IndexOutOfBoundsException> { x[chunk.slotCount()] }
                shouldThrow<IndexOutOfBoundsException> { x[-1] = 1f }
                shouldThrow<IndexOutOfBoundsException> { chunk.view(Particles.X)[chunk.slotCount()] }
            }
            shouldThrow<IllegalStateException> { kept!!.view(Particles.X) }
            shouldThrow<IllegalStateException> { kept!!.forEachLive { } }
        }
        Velocity.open().use { table ->
            table.add()
            table.forEachChunk { chunk ->
                val e = shouldThrow<IllegalStateException> { chunk.view(Velocity.DX) }
                e.message shouldContain "AOS"
            }
        }
    }

    test("the documented coroutine body updates every live record once") {
        Particles.open().use { table ->
            val ids = List(20_000) { i -> table.add { it[Particles.VX] = (i % 7).toFloat() } }
            ids.filterIndexed { i, _ -> i % 5 == 2 }.forEach { table.remove(it) }
            val dt = 0.5f
            runBlocking {
                table.processChunks(Dispatchers.Default, parallelism = 2) { chunk ->
                    val x = chunk.writableView(Particles.X)
                    val vx = chunk.view(Particles.VX)
                    chunk.forEachLive { s -> x[s] += vx[s] * dt }
                }
            }
            ids.forEachIndexed { i, h -> if (i % 5 != 2) table[h, Particles.X] shouldBe (i % 7) * dt }
        }
    }
})
