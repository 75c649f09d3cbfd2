package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.InvalidHandleException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll
import kotlin.random.Random

private const val OPS_PER_RUN = 4_000

/**
 * Seeded random operation sequences on a typed table against a `HashMap` model: add (with and
 * without initialiser), remove of live and stale handles, get/set, contains, forEach,
 * clear and reset, with the table compared to the model after every step. The seed is in the clue of
 * every failure.
 */
private fun <D : TableDef<D>> runModel(def: D, column: FloatColumn<D>, seed: Long) {
    val random = Random(seed)
    val model = HashMap<Long, Float>()
    val dead = ArrayList<Long>()
    def.open().use { table ->
        repeat(OPS_PER_RUN) { step ->
            withClue("seed=$seed step=$step table=${def.name}") {
                val live = model.keys.toList()
                when (random.nextInt(10)) {
                    0, 1, 2 -> {
                        val v = random.nextFloat()
                        val h = table.add { it[column] = v }
                        (h.raw in model) shouldBe false
                        model[h.raw] = v
                    }
                    3 -> model[table.add().raw] = 0f
                    4, 5 -> if (live.isNotEmpty()) {
                        val h = live[random.nextInt(live.size)]
                        table.remove(Handle(h))
                        model.remove(h)
                        dead += h
                    }
                    6 -> if (live.isNotEmpty()) {
                        val h = Handle<D>(live[random.nextInt(live.size)])
                        val v = random.nextFloat()
                        table[h, column] = v
                        model[h.raw] = v
                    }
                    7 -> if (dead.isNotEmpty()) {
                        val h = Handle<D>(dead[random.nextInt(dead.size)])
                        (h in table) shouldBe false
                        shouldThrow<InvalidHandleException> { table[h, column] }
                        shouldThrow<InvalidHandleException> { table.remove(h) }
                    }
                    8 -> {
                        val seen = HashMap<Long, Float>()
                        table.forEach { seen[it.handle.raw] = it[column] }
                        seen shouldBe model
                    }
                    else -> if (random.nextInt(50) == 0) {
                        if (random.nextBoolean()) table.clear() else table.reset()
                        dead += model.keys
                        model.clear()
                    }
                }
                table.size shouldBe model.size
            }
        }
        for ((h, v) in model) {
            (Handle<D>(h) in table) shouldBe true
            table[Handle(h), column] shouldBe v
        }
    }
}

class TypedTableModelTest : FunSpec({
    val config = PropTestConfig(seed = 20261123L)
    test("stable SOA table matches a HashMap model") {
        checkAll(5, config, Arb.long()) { seed -> runModel(Particles, Particles.X, seed) }
    }
    test("stable AOS table with LIFO reuse matches a HashMap model") {
        checkAll(5, config, Arb.long()) { seed -> runModel(Sounds, Sounds.VOLUME, seed) }
    }
    test("packed table matches a HashMap model") {
        checkAll(5, config, Arb.long()) { seed -> runModel(Bullets, Bullets.X, seed) }
    }
})
