package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.InvalidHandleException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldMatch
import java.util.ConcurrentModificationException

class TypedTableTest : FunSpec({
    test("add with initialiser, operator get/set, contains, remove, stale detection") {
        Particles.open().use { table ->
            val id: ParticleId = table.add {
                it[Particles.X] = 1f
                it[Particles.VX] = 2f
                it[Particles.AGE] = 3
                it[Particles.ID] = 4L
                it[Particles.MASS] = 5.0
                it[Particles.KIND] = 6
                it[Particles.FLAGS] = 7
                it[Particles.CODE] = 'c'
                it[Particles.ALIVE] = true
            }
            table[id, Particles.X] += table[id, Particles.VX]
            table[id, Particles.X] shouldBe 3f
            table[id, Particles.AGE] shouldBe 3
            table[id, Particles.ID] shouldBe 4L
            table[id, Particles.MASS] shouldBe 5.0
            table[id, Particles.KIND] shouldBe 6.toByte()
            table[id, Particles.FLAGS] shouldBe 7.toShort()
            table[id, Particles.CODE] shouldBe 'c'
            table[id, Particles.ALIVE] shouldBe true
            (id in table) shouldBe true
            table.size shouldBe 1
            table.remove(id)
            (id in table) shouldBe false
            shouldThrow<InvalidHandleException> { table[id, Particles.X] }.reason() shouldBe
                InvalidHandleException.Reason.STALE
            table.isEmpty() shouldBe true
        }
    }

    test("an initialiser that throws leaves the table as it was") {
        Particles.open().use { table ->
            val kept = table.add { it[Particles.AGE] = 1 }
            shouldThrow<IllegalStateException> {
                table.add { it[Particles.AGE] = 2; error("boom") }
            }
            table.size shouldBe 1
            var ages = 0
            table.forEach { ages += it[Particles.AGE] }
            ages shouldBe 1
            (kept in table) shouldBe true
        }
    }

    test("the null handle and toString use the readable handle format") {
        Particles.NULL.isNull shouldBe true
        Particles.NULL.toString() shouldBe "null"
        Particles.open().use { table ->
            val id = table.add()
            id.isNull shouldBe false
            id.toString() shouldMatch Regex("particles#\\d+@\\d+")
            table.format(id) shouldBe id.toString()
            (Particles.NULL in table) shouldBe false
        }
    }

    test("forEach's scope reads the visited record from its chunk and looks other handles up") {
        Particles.open().use { table ->
            val ids = List(1500) { i -> table.add { it[Particles.AGE] = i; it[Particles.X] = i.toFloat() } }
            val removed = ids[7]
            table.remove(removed)
            val first = ids[0]
            var kept: RecordScope<Particles>? = null
            var keptRecord: Visited<Particles>? = null
            var earlier: Visited<Particles>? = null
            var previous: Visited<Particles>? = null
            var visits = 0
            table.forEach { v ->
                kept = this
                keptRecord = v
                visits++
                val h = v.handle
                h shouldBe ids[v[Particles.AGE]]
                // the visited record and its handle name the same record; another handle is looked up
                h[Particles.AGE] shouldBe v[Particles.AGE]
                this[h, Particles.X] shouldBe v[Particles.AGE].toFloat()
                v[Particles.X] = v[Particles.X] + first[Particles.X]
                if (h != first) first[Particles.AGE] shouldBe 0
                this[first, Particles.X] shouldBe 0f
                shouldThrow<InvalidHandleException> { removed[Particles.AGE] }.reason() shouldBe
                    InvalidHandleException.Reason.STALE
                shouldThrow<InvalidHandleException> { this[Particles.NULL, Particles.AGE] }
                // a record visited earlier in the pass (another chunk too) still reads that record
                earlier?.let { e -> ids[e[Particles.AGE]] shouldBe e.handle }
                if (v[Particles.AGE] == 3) earlier = v
                // the record visited just before, in this chunk or at the end of the one before
                previous?.let { p -> p.handle shouldBe ids[p[Particles.AGE]]; (p[Particles.AGE] < v[Particles.AGE]) shouldBe true }
                previous = v
                if (v[Particles.AGE] == 1499) earlier!![Particles.ID] = 42L // and writes it, from the last chunk
            }
            visits shouldBe 1499
            (table.core.schema().slotsPerBlock() < 1499) shouldBe true       // record 3 and 1499: two chunks
            table[ids[3], Particles.ID] shouldBe 42L
            ids.forEachIndexed { i, id -> if (i != 7) table[id, Particles.X] shouldBe i.toFloat() }
            // kept past its pass, the scope refers to a chunk whose iteration ended
            shouldThrow<IllegalStateException> { with(kept!!) { keptRecord!![Particles.AGE] } }
            // other handles still work through the table
            with(kept!!) { ids[1][Particles.AGE] } shouldBe 1
            // a record of an earlier pass is refused in a later one: it never reads another record
            val stale = keptRecord!!
            table.forEach { if (it[Particles.AGE] == 1) shouldThrow<IllegalStateException> { stale[Particles.AGE] } }
        }
    }

    test("forEach visits every live record once and may write fields") {
        Particles.open().use { table ->
            val ids = List(3000) { i -> table.add { it[Particles.AGE] = i } }
            ids.filterIndexed { i, _ -> i % 3 == 0 }.forEach { table.remove(it) }
            table.forEach { it[Particles.AGE] = it[Particles.AGE] * 2 }
            var visited = 0
            table.forEach { visited++ }
            visited shouldBe 2000
            ids.forEachIndexed { i, id ->
                if (i % 3 != 0) table[id, Particles.AGE] shouldBe i * 2
            }
            table.useChunks { chunks -> chunks.sumOf { it.liveCount() } } shouldBe 2000
        }
    }

    test("forEach visits every live record once, in chunk order and slot order within a chunk, both kinds") {
        fun <D : TableDef<D>> check(def: D, holes: (Int) -> Boolean) {
            def.open().use { table ->
                // Three and a half chunks: full words, words with holes, whole empty words, a part chunk.
                val n = def.schema.slotsPerBlock() * 7 / 2
                val ids = List(n) { table.add() }
                ids.filterIndexed { i, _ -> holes(i) }.forEach { table.remove(it) }
                val visited = ArrayList<Long>()
                table.forEach { visited += it.handle.raw }
                val walked = ArrayList<Long>()
                table.forEachChunk { chunk ->
                    var s = chunk.nextLive(0)
                    while (s >= 0) {
                        walked += chunk.handle(s).raw
                        s = chunk.nextLive(s + 1)
                    }
                }
                visited shouldBe walked
                visited.size shouldBe table.size
                visited.toSet() shouldBe ids.filterIndexed { i, _ -> !holes(i) }.map { it.raw }.toSet()
            }
        }
        val slots = Particles.schema.slotsPerBlock()
        check(Particles) { i -> i % 3 == 0 || (i in slots + 64 until slots + 192) || i % slots == slots - 1 }
        check(Bullets) { i -> i % 5 == 1 || i in 100 until 300 }
        check(Particles) { false }
    }

    test("add or remove during forEach fails fast and changes nothing") {
        Particles.open().use { table ->
            val id = table.add()
            shouldThrow<ConcurrentModificationException> { table.forEach { table.add() } }
            shouldThrow<ConcurrentModificationException> { table.forEach { table.remove(id) } }
            table.size shouldBe 1
            (id in table) shouldBe true
        }
    }

    test("a handle of another table is rejected as foreign") {
        Particles.open().use { a ->
            Particles.open().use { b ->
                val id = a.add()
                (id in b) shouldBe false
                shouldThrow<InvalidHandleException> { b[id, Particles.X] }.reason() shouldBe
                    InvalidHandleException.Reason.FOREIGN
            }
        }
    }

    test("options reach the core table") {
        Sounds.open().use { sounds ->
            Sounds.schema.layout().name shouldBe "AOS"
            (sounds.core as dev.bulkdata.storage.BulkTable).reuseOrder().name shouldBe "LIFO"
            sounds.toString() shouldContain "sounds"
        }
    }
})
