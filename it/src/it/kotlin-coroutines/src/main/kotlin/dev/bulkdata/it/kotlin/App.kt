package dev.bulkdata.it.kotlin

import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.kotlin.Handle
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.chunkFlow
import dev.bulkdata.storage.kotlin.processChunks
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking

object Particles : TableDef<Particles>("kt-particles", {
    layout = RecordLayout.SOA
}) {
    @JvmField val X = float("x")
    @JvmField val VX = float("vx")
}
typealias ParticleId = Handle<Particles>

fun main() = runBlocking {
    Particles.open().use { table ->
        val ids = List(100_000) { i -> table.add { it[Particles.VX] = (i % 4).toFloat() } }
        val removed: ParticleId = ids[7]
        table.remove(removed)
        check(removed !in table) { "a removed record's handle is stale" }

        table.processChunks(Dispatchers.Default, parallelism = 2) { chunk ->
            var s = chunk.nextLive(0)
            while (s >= 0) {
                chunk[s, Particles.X] += chunk[s, Particles.VX] * 0.5f
                s = chunk.nextLive(s + 1)
            }
        }

        var sum = 0.0
        var chunks = 0
        table.chunkFlow().collect { chunk ->
            chunks++
            var s = chunk.nextLive(0)
            while (s >= 0) {
                sum += chunk[s, Particles.X]
                s = chunk.nextLive(s + 1)
            }
        }
        // vx cycles 0, 1, 2, 3: x = vx / 2, 25,000 of each, less the removed record (vx 3).
        val expected = 25_000 * (0.0 + 0.5 + 1.0 + 1.5) - 1.5
        check(sum == expected) { "sum $sum, expected $expected" }
        check(chunks == table.stats().blocks) { "one chunk per block: $chunks" }
        println("kotlin consumer: ${table.stats()}, ${ids[0]} at x=${table[ids[0], Particles.X]}")
    }
    println("kotlin consumer: OK")
}
