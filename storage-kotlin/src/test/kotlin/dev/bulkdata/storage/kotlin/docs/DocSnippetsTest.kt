package dev.bulkdata.storage.kotlin.docs

import dev.bulkdata.storage.schema.InvalidHandleException
import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.schema.ReuseOrder
import dev.bulkdata.storage.kotlin.Handle
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedChunk
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

// doc:begin README.md
object Particles : TableDef<Particles>("particles", {
    layout = RecordLayout.SOA            // or AOS
    reuseOrder = ReuseOrder.SWEEP        // hole reuse order (the default); PACKED tables take none
}) {
    @JvmField val X = float("x")         // typed columns: FloatColumn<Particles>
    @JvmField val VX = float("vx")
    @JvmField val AGE = int("age")
    @JvmStatic fun openTable(): TypedTable<Particles> = open()  // Java: Particles.openTable()
}
typealias ParticleId = Handle<Particles> // a Handle<Sounds> does not compile where this is expected
// doc:end

// doc:begin docs/kotlin.md
object Position : TableDef<Position>("position") { @JvmField val X = float("x") }
object Velocity : TableDef<Velocity>("velocity") { @JvmField val DX = float("dx") }
// doc:end

// doc:begin docs/kotlin.md
object Ships : TableDef<Ships>("ships", { tag = 4001 }) {  // a fixed tag: savable
    @JvmField val X = float("x")
}
// doc:end

/**
 * The Kotlin code blocks of the README and of docs/kotlin.md, compiled and run here, each followed by
 * checks of what its comments say; and the check that each document shows the snippets of this module
 * (here and in JavaInteropTest) exactly. A snippet is the lines between `// doc:begin <document>` and
 * `// doc:end`; storage-java's DocSnippetsTest checks that every Java and Kotlin block of the documents
 * is a snippet of some module's tests.
 */
class DocSnippetsTest : FunSpec({
    test("a typed table: add, get and set, forEach, remove, a stale handle") {
        var stale = false
        // doc:begin README.md
        Particles.open().use { table ->
            val id: ParticleId = table.add { it[Particles.VX] = 2f }   // inlined, no allocation
            table[id, Particles.X] += table[id, Particles.VX] * 0.5f  // operator get/set
            table.forEach { it[Particles.AGE] += 1 }                  // live records, read from their chunk
            println("$id at x=${table[id, Particles.X]}")             // particles#1@0 at x=1.0
            table.remove(id)
            stale = id !in table                                      // true, for good
            // table[id, Particles.X] throws InvalidHandleException (stale)
        }
        // doc:end
        stale shouldBe true
        Particles.open().use { table ->
            val id: ParticleId = table.add { it[Particles.VX] = 2f }
            table[id, Particles.X] += table[id, Particles.VX] * 0.5f
            "$id at x=${table[id, Particles.X]}" shouldBe "particles#1@0 at x=1.0"
            table.remove(id)
            shouldThrow<InvalidHandleException> { table[id, Particles.X] }.message shouldContain "stale handle"
        }
    }

    test("processChunks updates every live record through the chunk's views") {
        Particles.open().use { table ->
            repeat(5000) { table.add { h -> h[Particles.VX] = 1f } }
            val dt = 0.5f
            // doc:begin docs/kotlin.md
            fun move(chunk: TypedChunk<Particles>, dt: Float) {  // one chunk, a function of its own
                val x = chunk.writableView(Particles.X)          // once per chunk: stamps X here
                val vx = chunk.view(Particles.VX)                // read-only
                chunk.forEachLive { s -> x[s] += vx[s] * dt }    // no hole: one loop from 0
            }
            table.processChunks(Dispatchers.Default, parallelism = 4) { chunk -> move(chunk, dt) }
            // doc:end
            var sum = 0f
            table.forEach { sum += it[Particles.X] }
            sum shouldBe 2500f
        }
    }

    test("a filtered processChunks visits only the chunks changed since the version") {
        Particles.open().use { table ->
            val ids = List(10_000) { table.add() }                    // 10 chunks of 1024
            val seen = table.markVersion()
            table[ids[7500], Particles.X] = 1f                         // chunk 7
            val uploaded = HashSet<Int>()
            var nextSeen = 0
            // doc:begin docs/kotlin.md
            val moved = changeFilter(Particles.X, Particles.VX)        // make once, keep
            table.processChunks(moved, seen, Dispatchers.Default) { chunk ->
                uploaded.add(chunk.index())                            // chunks where X or VX changed
            }                                                          // since seen: chunk 7 only
            nextSeen = table.markVersion()                             // for the next frame
            // doc:end
            uploaded shouldBe setOf(7)
            table.forEachChunk(moved, nextSeen) { error("nothing changed since") }
        }
    }

    test("components by entity and a typed join move the ship") {
        var shipX = 0f
        // doc:begin docs/kotlin.md
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
        // doc:end
        shipX shouldBe 2f
    }

    test("save and load keep every typed handle") {
        val file = Files.createTempFile("ships", ".bulk")
        var x = 0f
        // doc:begin docs/kotlin.md
        val ship: Handle<Ships>
        Ships.open().use { ships ->
            ship = ships.add { it[Ships.X] = 7f }
            ships.save(file)
        }
        Ships.load(file).use { ships ->
            x = ships[ship, Ships.X]                       // 7.0: typed handles survive the reload
        }
        // doc:end
        x shouldBe 7f
        Files.delete(file)
    }

    test("every snippet of this module is a code block of its document") {
        var snippets = 0
        for (root in listOf("src/test/kotlin", "src/test/java")) {
            Files.walk(Path.of(root)).use { files ->
                for (file in files.filter { it.toString().endsWith(".kt") || it.toString().endsWith(".java") }.toList()) {
                    val language = if (file.toString().endsWith(".kt")) "kotlin" else "java"
                    val lines = Files.readAllLines(file)
                    var i = 0
                    while (i < lines.size) {
                        val begin = lines[i].trim()
                        if (begin.startsWith("// doc:begin")) {
                            val doc = begin.removePrefix("// doc:begin").trim()
                            val indent = lines[i].indexOf('/')
                            val text = StringBuilder()
                            var j = i + 1
                            while (j < lines.size && lines[j].trim() != "// doc:end") {
                                val line = lines[j]
                                text.append(if (line.length >= indent) line.substring(indent) else line.trim()).append('\n')
                                j++
                            }
                            check(j < lines.size) { "$file:${i + 1}: a snippet needs '// doc:end'" }
                            check(codeBlocks(Path.of("..").resolve(doc), language).contains(text.toString())) {
                                "$file:${i + 1}: $doc must show this $language block exactly:\n$text"
                            }
                            snippets++
                            i = j
                        }
                        i++
                    }
                }
            }
        }
        snippets shouldBe 9
    }
})

/** The code blocks of a markdown file fenced as [language], each dedented by its fence's indentation. */
private fun codeBlocks(markdown: Path, language: String): List<String> {
    val lines = Files.readAllLines(markdown)
    val blocks = mutableListOf<String>()
    var i = 0
    while (i < lines.size) {
        if (lines[i].trim().startsWith("```")) {
            val wanted = lines[i].trim() == "```$language"
            val indent = lines[i].indexOf('`')
            val text = StringBuilder()
            var j = i + 1
            while (j < lines.size && lines[j].trim() != "```") {
                val line = lines[j]
                text.append(if (line.length >= indent) line.substring(indent) else line.trim()).append('\n')
                j++
            }
            if (wanted) blocks.add(text.toString())
            i = j
        }
        i++
    }
    return blocks
}
