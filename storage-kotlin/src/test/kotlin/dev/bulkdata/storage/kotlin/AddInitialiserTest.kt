package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ChunkIteration
import dev.bulkdata.storage.Table
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.shouldBe
import io.kotest.matchers.types.shouldBeInstanceOf
import io.kotest.matchers.types.shouldBeSameInstanceAs
import java.util.ConcurrentModificationException

/** The initialiser's own failure, told apart from anything the table might throw. */
private class InitFailed : RuntimeException("initialiser failed")

/** Opens [def], lets [prepare] shape it, then checks that a failing `add { }` leaves it as it was. */
private fun <D : TableDef<D>> failingAddLeavesTableAsItWas(def: D, column: IntColumn<D>, prepare: (Table) -> Unit) {
    def.open().use { table ->
        prepare(table.core)
        val before = table.stats()
        val handlesBefore = HashSet<Long>()
        table.forEach { handlesBefore += it.handle.raw }
        val thrown = InitFailed()
        var tried: Handle<D>? = null
        shouldThrow<InitFailed> {
            table.add {
                tried = it
                it[column] = 42
                throw thrown
            }
        } shouldBeSameInstanceAs thrown
        thrown.suppressed.toList().shouldBeEmpty()
        table.stats() shouldBe before
        (tried!! in table) shouldBe false
        val handlesAfter = HashSet<Long>()
        table.forEach { handlesAfter += it.handle.raw }
        handlesAfter shouldBe handlesBefore
        // the next add takes the slot the undone one had, under a newer generation
        val next = table.add()
        table.core.handleLayout().slot(next.raw) shouldBe table.core.handleLayout().slot(tried!!.raw)
        (next.raw == tried!!.raw) shouldBe false
        table[next, column] shouldBe 0
    }
}

class AddInitialiserTest : FunSpec({
    val kinds = listOf<Pair<String, (((Table) -> Unit) -> Unit)>>(
        "BULK" to { prepare -> failingAddLeavesTableAsItWas(Particles, Particles.AGE, prepare) },
        "PACKED" to { prepare -> failingAddLeavesTableAsItWas(Bullets, Bullets.DAMAGE, prepare) },
    )

    test("an initialiser that throws leaves a new table exactly as it was (stats, no block kept)") {
        for ((kind, check) in kinds) withClue(kind) { check { } }
    }

    test("an initialiser that throws leaves a table with holes exactly as it was") {
        for ((kind, check) in kinds) withClue(kind) {
            check { table ->
                val ids = LongArray(1000) { table.add() }
                ids.filterIndexed { i, _ -> i % 3 == 0 }.forEach { table.remove(it) }
            }
        }
    }

    test("an initialiser that throws on a full block leaves the table exactly as it was") {
        for ((kind, check) in kinds) withClue(kind) {
            check { table ->
                table.add()
                val perBlock = table.stats().capacity()
                repeat(perBlock - 1) { table.add() }
                table.stats().capacity() shouldBe table.size() // the failing add needs a new block
            }
        }
    }

    test("the initialiser's exception propagates even when it removed the record itself") {
        Particles.open().use { table ->
            val kept = table.add()
            val thrown = InitFailed()
            shouldThrow<InitFailed> {
                table.add { table.remove(it); throw thrown }
            } shouldBeSameInstanceAs thrown
            thrown.suppressed.toList().shouldBeEmpty()
            table.size shouldBe 1
            (kept in table) shouldBe true
        }
    }

    test("the initialiser's exception propagates when it added another record, which stays") {
        Particles.open().use { table ->
            val thrown = InitFailed()
            var inner: ParticleId? = null
            var outer: ParticleId? = null
            shouldThrow<InitFailed> {
                table.add { outer = it; inner = table.add { h -> h[Particles.AGE] = 7 }; throw thrown }
            } shouldBeSameInstanceAs thrown
            thrown.suppressed.toList().shouldBeEmpty()
            table.size shouldBe 1
            (outer!! in table) shouldBe false
            table[inner!!, Particles.AGE] shouldBe 7
        }
        Bullets.open().use { table ->
            val thrown = InitFailed()
            var inner: Handle<Bullets>? = null
            var outer: Handle<Bullets>? = null
            shouldThrow<InitFailed> {
                table.add { outer = it; inner = table.add { h -> h[Bullets.DAMAGE] = 7 }; throw thrown }
            } shouldBeSameInstanceAs thrown
            table.size shouldBe 1
            (outer!! in table) shouldBe false
            table[inner!!, Bullets.DAMAGE] shouldBe 7
        }
    }

    test("a failure while undoing is added to the initialiser's exception as suppressed") {
        // the initialiser leaves an iteration open: undoing is refused and the record stays
        Particles.open().use { table ->
            val thrown = InitFailed()
            var iteration: ChunkIteration? = null
            var added: ParticleId? = null
            shouldThrow<InitFailed> {
                table.add { added = it; iteration = table.core.iterate(); throw thrown }
            } shouldBeSameInstanceAs thrown
            thrown.suppressed.toList() shouldHaveSize 1
            thrown.suppressed[0].shouldBeInstanceOf<ConcurrentModificationException>()
            iteration!!.close()
            (added!! in table) shouldBe true
        }
        // the initialiser closes the table
        val table = Particles.open()
        val thrown = InitFailed()
        shouldThrow<InitFailed> {
            table.add { table.close(); throw thrown }
        } shouldBeSameInstanceAs thrown
        thrown.suppressed.toList() shouldHaveSize 1
        thrown.suppressed[0].shouldBeInstanceOf<IllegalStateException>()
    }

    test("errors thrown by the initialiser propagate the same way") {
        Particles.open().use { table ->
            val before = table.stats()
            val thrown = AssertionError("not an exception")
            shouldThrow<AssertionError> { table.add { throw thrown } } shouldBeSameInstanceAs thrown
            table.stats() shouldBe before
        }
    }
})

class AddAllInitialiserTest : FunSpec({
    test("addAll with an initialiser writes every new record through its chunk, in handlesOut's order") {
        Particles.open().use { table ->
            val removed = LongArray(100).also { table.core.addAll(it) }
            for (k in removed.indices step 3) table.remove(Handle(removed[k]))
            val count = 3 * table.core.schema().slotsPerBlock() + 7
            val ids = LongArray(count + 2)
            table.addAll(ids, 1, count + 1) { slot, i -> this[slot, Particles.X] = i * 2f }
            table.size shouldBe 100 - 34 + count
            for (i in 1..count) table[Handle<Particles>(ids[i]), Particles.X] shouldBe i * 2f
            ids[0] shouldBe 0L
        }
    }

    test("addAll's initialiser that throws keeps the records before it and takes back the rest") {
        Particles.open().use { table ->
            val ids = LongArray(10)
            shouldThrow<InitFailed> {
                table.addAll(ids) { slot, i ->
                    if (i == 4) throw InitFailed()
                    this[slot, Particles.X] = 1f
                }
            }
            table.size shouldBe 4
            for (i in 0 until 10) (Handle<Particles>(ids[i]) in table) shouldBe (i < 4)
        }
    }
})
