package dev.bulkdata.storage.kotlin.readme

import dev.bulkdata.storage.InvalidHandleException
import dev.bulkdata.storage.Layout
import dev.bulkdata.storage.ReuseOrder
import dev.bulkdata.storage.kotlin.Handle
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedTable
import dev.bulkdata.storage.kotlin.changeFilter
import dev.bulkdata.storage.kotlin.join
import dev.bulkdata.storage.kotlin.processChunks
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlinx.coroutines.Dispatchers
import java.nio.file.Files
import java.nio.file.Path

// README:begin
object Particles : TableDef<Particles>("particles", {
    layout = Layout.SOA                  // or AOS
    reuseOrder = ReuseOrder.SWEEP        // hole reuse order (the default); kind = TableKind.PACKED for dense rows
}) {
    @JvmField val X = float("x")         // typed columns: FloatColumn<Particles>
    @JvmField val VX = float("vx")
    @JvmField val AGE = int("age")
    @JvmStatic fun openTable(): TypedTable<Particles> = open()  // Java: Particles.openTable()
}
typealias ParticleId = Handle<Particles> // a Handle<Sounds> does not compile where this is expected
// README:end

// README:begin
object Position : TableDef<Position>("position") { @JvmField val X = float("x") }
object Velocity : TableDef<Velocity>("velocity") { @JvmField val DX = float("dx") }
// README:end

// README:begin
object Ships : TableDef<Ships>("ships", { tag = 4001 }) {  // a fixed tag: savable
    @JvmField val X = float("x")
}
// README:end

class ReadmeExampleTest : FunSpec({
    test("the README's Kotlin example runs and does what its comments say") {
        var stale = false
        // README:begin
        Particles.open().use { table ->
            val id: ParticleId = table.add { it[Particles.VX] = 2f }   // inlined, no allocation
            table[id, Particles.X] += table[id, Particles.VX] * 0.5f  // operator get/set
            table.forEach { it[Particles.AGE] += 1 }                  // live records, read from their chunk
            println("$id at x=${table[id, Particles.X]}")             // particles#1@0 at x=1.0
            table.remove(id)
            stale = id !in table                                      // true, for good
            // table[id, Particles.X] throws InvalidHandleException (stale)
        }
        // README:end
        stale shouldBe true
        Particles.open().use { table ->
            val id: ParticleId = table.add { it[Particles.VX] = 2f }
            table[id, Particles.X] += table[id, Particles.VX] * 0.5f
            "$id at x=${table[id, Particles.X]}" shouldBe "particles#1@0 at x=1.0"
            table.remove(id)
            shouldThrow<InvalidHandleException> { table[id, Particles.X] }.message shouldContain "stale handle"
        }
    }

    test("the README's coroutine example processes every chunk") {
        Particles.open().use { table ->
            repeat(5000) { table.add { h -> h[Particles.VX] = 1f } }
            val dt = 0.5f
            // README:begin
            table.processChunks(Dispatchers.Default, parallelism = 4) { chunk ->
                var s = chunk.nextLive(0)                 // one coroutine per 16 KiB block
                while (s >= 0) {
                    chunk[s, Particles.X] += chunk[s, Particles.VX] * dt
                    s = chunk.nextLive(s + 1)
                }
            }
            // README:end
            var sum = 0f
            table.forEach { sum += it[Particles.X] }
            sum shouldBe 2500f
        }
    }

    test("the README's filtered pass visits only the chunks changed since the version") {
        Particles.open().use { table ->
            val ids = List(10_000) { table.add() }                    // 10 chunks of 1024
            val seen = table.markVersion()
            table[ids[7500], Particles.X] = 1f                         // chunk 7
            val uploaded = HashSet<Int>()
            var nextSeen = 0
            // README:begin
            val moved = changeFilter(Particles.X, Particles.VX)        // make once, keep
            table.processChunks(moved, seen, Dispatchers.Default) { chunk ->
                uploaded.add(chunk.index())                            // chunks where X or VX changed
            }                                                          // since seen: chunk 7 only
            nextSeen = table.markVersion()                             // for the next frame
            // README:end
            uploaded shouldBe setOf(7)
            table.forEachChunk(moved, nextSeen) { error("nothing changed since") }
        }
    }

    test("the README's component and join example moves the ship") {
        var shipX = 0f
        // README:begin
        Particles.open().use { ships ->
            Position.openComponents(ships).use { positions ->          // a Position for some ships
                Velocity.openComponents(ships).use { velocities ->
                    val ship = ships.add()
                    positions.add(ship)
                    velocities.add(ship)
                    velocities[ship, Velocity.DX] = 2f                   // by entity: Handle<Particles>
                    val moving = join(positions, velocities)           // make once, run every frame
                    moving.forEach { _, p, v -> positions[p, Position.X] += velocities[v, Velocity.DX] }
                    // positions[v, Position.X] does not compile: v is a Row<Velocity>
                    shipX = positions[ship, Position.X]                // 2.0
                }
            }
        }
        // README:end
        shipX shouldBe 2f
    }

    test("the README's save and load example keeps every typed handle") {
        val file = Files.createTempFile("ships", ".bulk")
        var x = 0f
        // README:begin
        val ship: Handle<Ships>
        Ships.open().use { ships ->
            ship = ships.add { it[Ships.X] = 7f }
            ships.save(file)
        }
        Ships.load(file).use { ships ->
            x = ships[ship, Ships.X]                       // 7.0: typed handles survive the reload
        }
        // README:end
        x shouldBe 7f
        Files.delete(file)
    }

    test("README.md shows every Kotlin and Java example exactly as compiled") {
        val readme = Files.readString(Path.of("../README.md"))
        val begin = "// README" + ":begin"
        val end = "// README" + ":end"
        var snippets = 0
        for (file in listOf(
            "src/test/kotlin/dev/bulkdata/storage/kotlin/readme/ReadmeExampleTest.kt",
            "src/test/java/dev/bulkdata/storage/kotlin/JavaInteropTest.java",
        )) {
            val source = Files.readString(Path.of(file))
            var at = source.indexOf(begin)
            while (at >= 0) {
                val indent = at - (source.lastIndexOf('\n', at) + 1)
                val body = source.substring(source.indexOf('\n', at) + 1, source.lastIndexOf('\n', source.indexOf(end, at)))
                val dedented = body.lines().joinToString("\n") { if (it.length >= indent) it.substring(indent) else it.trim() }
                check(readme.contains(dedented)) { "README.md must contain this example of $file exactly:\n$dedented" }
                snippets++
                at = source.indexOf(begin, at + 1)
            }
        }
        snippets shouldBe 9
    }
})
