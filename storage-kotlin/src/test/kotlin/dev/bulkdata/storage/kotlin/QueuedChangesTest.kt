package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import kotlinx.coroutines.Dispatchers
import java.util.ConcurrentModificationException

/** Kotlin's queued changes: `removeLater`/`addLater` from `forEach`, `forEachChunk` and `processChunks`. */
class QueuedChangesTest : FunSpec({
    test("the particle idiom: forEach expires and spawns, applied when the pass ends, the table does not grow") {
        Particles.open().use { table ->
            repeat(4000) { i -> table.add { it[Particles.AGE] = i % 7 } }
            val capacity = table.core.capacity()
            repeat(20) {
                table.forEach {
                    it[Particles.AGE] = it[Particles.AGE] - 1
                    if (it[Particles.AGE] < 0) {
                        it.removeLater()
                        table.addLater { h -> this[h, Particles.AGE] = 6 }
                    }
                }
                table.size shouldBe 4000
                table.core.capacity() shouldBe capacity
            }
            var negative = 0
            table.forEach { if (it[Particles.AGE] < 0) negative++ }
            negative shouldBe 0
        }
    }

    test("remove still throws inside a pass, and says what to use instead") {
        Particles.open().use { table ->
            val id = table.add()
            table.forEach {
                val e = shouldThrow<ConcurrentModificationException> { table.remove(id) }
                (e.message!!.contains("removeLater")) shouldBe true
            }
            (id in table) shouldBe true
        }
    }

    test("processChunks: adds queued through the chunks come out in chunk order whatever the threads") {
        fun run(parallelism: Int): List<Int> {
            Bullets.open().use { table ->
                repeat(20_000) { i -> table.add { it[Bullets.DAMAGE] = i } }
                val order = java.util.Collections.synchronizedList(mutableListOf<Int>())
                kotlinx.coroutines.runBlocking {
                    table.processChunks(Dispatchers.Default, parallelism) { chunk ->
                        var s = chunk.nextLive(0)
                        while (s >= 0) {
                            val damage = chunk[s, Bullets.DAMAGE]
                            if (damage % 10 == 0) {
                                chunk.removeLater(s)
                                chunk.addLater { h ->
                                    table[h, Bullets.DAMAGE] = -damage
                                    order += damage
                                }
                            }
                            s = chunk.nextLive(s + 1)
                        }
                    }
                }
                table.size shouldBe 20_000
                var removed = 0
                table.forEach { if (it[Bullets.DAMAGE] > 0 && it[Bullets.DAMAGE] % 10 == 0) removed++ }
                removed shouldBe 0
                return order.toList()
            }
        }
        val one = run(1)
        one shouldBe one.sorted() // a packed table's chunks hold its rows in order: chunk order is row order
        run(4) shouldBe one
    }
})

/** Kotlin's component tables queue too. */
class ComponentQueuedChangesKotlinTest : FunSpec({
    test("a velocity taken from inside a join over positions and velocities is removed when it ends") {
        Particles.open().use { entities ->
            val positions = Position.openComponents(entities)
            val velocities = Velocity.openComponents(entities)
            val ids = List(100) { entities.add() }
            ids.forEachIndexed { i, e ->
                positions.add(e)
                velocities.add(e)
                velocities[e, Velocity.DX] = i.toFloat()
            }
            velocities.forEach { e, _ -> if (velocities[e, Velocity.DX] < 10f) velocities.removeLater(e) }
            velocities.size shouldBe 90
            positions.forEach { e, _ -> if (e !in velocities) velocities.addLater(e) { h -> velocities[h, Velocity.DX] = -1f } }
            velocities.size shouldBe 100
            ids.take(10).forEach { velocities[it, Velocity.DX] shouldBe -1f }
            velocities.close()
            positions.close()
        }
    }
})
