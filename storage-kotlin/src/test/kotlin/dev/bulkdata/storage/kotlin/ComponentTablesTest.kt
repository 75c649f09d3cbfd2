package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.InvalidHandleException
import dev.bulkdata.storage.schema.RecordLayout
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.util.ConcurrentModificationException

private typealias BulletId = Handle<Bullets>

/** The Kotlin component tables and joins: the core's, typed by entity and component declaration. */
class ComponentTablesTest : FunSpec({
    test("components by entity: add, every column type, contains, remove") {
        Bullets.open().use { bullets ->
            Particles.openComponents(bullets).use { extra ->
                val a = bullets.add()
                val b = bullets.add()
                extra.add(a)
                extra[a, Particles.KIND] = 1
                extra[a, Particles.FLAGS] = 2
                extra[a, Particles.CODE] = 'c'
                extra[a, Particles.AGE] = 3
                extra[a, Particles.ID] = 4L
                extra[a, Particles.X] = 5f
                extra[a, Particles.MASS] = 6.0
                extra[a, Particles.ALIVE] = true
                extra[a, Particles.KIND] shouldBe 1.toByte()
                extra[a, Particles.FLAGS] shouldBe 2.toShort()
                extra[a, Particles.CODE] shouldBe 'c'
                extra[a, Particles.AGE] shouldBe 3
                extra[a, Particles.ID] shouldBe 4L
                extra[a, Particles.X] shouldBe 5f
                extra[a, Particles.MASS] shouldBe 6.0
                extra[a, Particles.ALIVE] shouldBe true
                (a in extra) shouldBe true
                (b in extra) shouldBe false
                extra.size shouldBe 1
                shouldThrow<IllegalArgumentException> { extra[b, Particles.X] }.message shouldContain "has no component"
                shouldThrow<IllegalArgumentException> { extra.add(a) }.message shouldContain "already has a component"
                extra.remove(a)
                (a in extra) shouldBe false
                extra.size shouldBe 0
                extra.def shouldBe Particles
                extra.core.schema() shouldBe Particles.schema
            }
        }
    }

    test("rows from forEach read and write the component without an entity lookup") {
        Bullets.open().use { bullets ->
            Position.openComponents(bullets).use { positions ->
                val ids = List(3000) { bullets.add() }
                ids.forEachIndexed { i, id -> if (i % 2 == 0) { positions.add(id); positions[id, Position.X] = i.toFloat() } }
                val visited = ArrayList<BulletId>()
                positions.forEach { entity, row ->
                    visited += entity
                    positions[row, Position.X] shouldBe positions[entity, Position.X]
                    positions[row, Position.Y] = positions[row, Position.X] * 2
                }
                visited shouldContainExactly ids.filterIndexed { i, _ -> i % 2 == 0 }
                ids.forEachIndexed { i, id -> if (i % 2 == 0) positions[id, Position.Y] shouldBe 2f * i }
                shouldThrow<ConcurrentModificationException> { positions.forEach { _, _ -> positions.add(ids[1]) } }
                (ids[1] in positions) shouldBe false
            }
        }
    }

    test("a removed entity's component goes stale: not in, STALE, skipped, swept by removeDead") {
        Particles.open().use { particles ->
            Tag.openComponents(particles).use { tags ->
                val keep = particles.add()
                val gone = particles.add()
                tags.add(keep)
                tags.add(gone)
                tags[gone, Tag.CODE] = 7
                particles.remove(gone)
                (gone in tags) shouldBe false
                shouldThrow<InvalidHandleException> { tags[gone, Tag.CODE] }.reason() shouldBe
                    InvalidHandleException.Reason.STALE
                val visited = ArrayList<Handle<Particles>>()
                tags.forEach { entity, _ -> visited += entity }
                visited shouldContainExactly listOf(keep)
                tags.size shouldBe 2
                tags.removeDead() shouldBe 1
                tags.size shouldBe 1
                Sounds.open().use { sounds ->
                    shouldThrow<InvalidHandleException> { tags.remove(Handle(sounds.add().raw)) }.reason() shouldBe
                        InvalidHandleException.Reason.FOREIGN
                }
            }
        }
    }

    test("defragment moves rows toward entity order, then returns 0") {
        Bullets.open().use { bullets ->
            Position.openComponents(bullets).use { positions ->
                val ids = List(200) { bullets.add() }
                ids.reversed().forEach { positions.add(it) }           // rows in reverse entity order
                positions.defragment(50) shouldBe 50
                positions.defragment(1_000_000) shouldBe 200L * 199 / 2 - 50
                positions.defragment(1_000_000) shouldBe 0
                val order = ArrayList<BulletId>()
                positions.forEach { entity, _ -> order += entity }
                order shouldContainExactly ids
                shouldThrow<IllegalArgumentException> { positions.defragment(-1) }
            }
        }
    }

    test("join2 and join3 visit exactly the entities with every component, with typed rows") {
        Bullets.open().use { bullets ->
            Position.openComponents(bullets).use { positions ->
                Velocity.openComponents(bullets).use { velocities ->
                    Tag.openComponents(bullets).use { tags ->
                        val ids = List(1000) { bullets.add() }
                        ids.forEachIndexed { i, id ->
                            positions.add(id)
                            if (i % 2 == 0) { velocities.add(id); velocities[id, Velocity.DX] = 1f + i }
                            if (i % 3 == 0) { tags.add(id); tags[id, Tag.CODE] = i }
                        }
                        val moving = join(positions, velocities)
                        val moved = ArrayList<BulletId>()
                        moving.forEach { entity, p, v ->
                            moved += entity
                            positions[p, Position.X] += velocities[v, Velocity.DX]
                        } shouldBe 500
                        moved shouldContainExactlyInAnyOrder ids.filterIndexed { i, _ -> i % 2 == 0 }
                        ids.forEachIndexed { i, id ->
                            positions[id, Position.X] shouldBe if (i % 2 == 0) 1f + i else 0f
                        }
                        var codes = 0L
                        join(positions, velocities, tags).forEach { entity, p, v, t ->
                            tags[t, Tag.CODE] shouldBe tags[entity, Tag.CODE]
                            positions[p, Position.Y] = velocities[v, Velocity.DX]
                            codes += tags[t, Tag.CODE]
                        } shouldBe 167
                        codes shouldBe (0 until 1000 step 6).sumOf { it.toLong() }

                        bullets.remove(ids[0])                              // stale components are not joined
                        moving.forEach { _, _, _ -> } shouldBe 499
                        shouldThrow<ConcurrentModificationException> {
                            moving.forEach { _, _, _ -> velocities.remove(ids[2]) }
                        }
                        (ids[2] in velocities) shouldBe true
                        moving.toString() shouldContain "bullets"
                    }
                }
            }
        }
    }

    test("component tables of two entity tables cannot be joined; closed tables are refused") {
        Bullets.open().use { a ->
            Bullets.open().use { b ->
                Position.openComponents(a).use { pa ->
                    Velocity.openComponents(b).use { vb ->
                        shouldThrow<IllegalArgumentException> { join(pa, vb) }.message shouldContain "keyed by entity table"
                    }
                }
            }
        }
        val entities = Bullets.open()
        val positions = Position.openComponents(entities)
        positions.close()
        positions.close()
        positions.isClosed shouldBe true
        shouldThrow<IllegalStateException> { positions.add(entities.add()) }
        entities.close()
        shouldThrow<IllegalStateException> { Position.openComponents(entities) }
    }

    test("a component declaration gives its layout; its schema is the declaration's") {
        Bullets.open().use { bullets ->
            Velocity.openComponents(bullets).use { velocities ->
                velocities.core.schema() shouldBe Velocity.schema
                velocities.core.schema().layout() shouldBe RecordLayout.AOS
                velocities.core.entities() shouldBe bullets.core
            }
        }
    }
})
