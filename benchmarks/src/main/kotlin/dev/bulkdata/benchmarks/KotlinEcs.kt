package dev.bulkdata.benchmarks

import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedChunk
import dev.bulkdata.storage.kotlin.TypedTable
import dev.bulkdata.storage.kotlin.processChunks
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.runBlocking
import kotlin.coroutines.ContinuationInterceptor

/** The entities of `EcsPeersBenchmark` declared with the Kotlin DSL: six floats, SOA. */
object KEntities : TableDef<KEntities>("kentities", { layout = RecordLayout.SOA }) {
    @JvmField val PX = float("px")
    @JvmField val PY = float("py")
    @JvmField val PZ = float("pz")
    @JvmField val VX = float("vx")
    @JvmField val VY = float("vy")
    @JvmField val VZ = float("vz")
}

/**
 * bulkdata's Kotlin side of `EcsPeersBenchmark`'s update `p += v * dt`: a [KEntities] table of
 * [n] entities (entity `i` has [EcsSpec]'s values) updated through each path docs/kotlin.md
 * shows, as a Kotlin user writes them.
 */
class KotlinEcs(val n: Int) : AutoCloseable {
    val table: TypedTable<KEntities> = KEntities.open()

    init {
        for (i in 0 until n) {
            table.add {
                it[KEntities.PX] = EcsSpec.px(i)
                it[KEntities.PY] = EcsSpec.py(i)
                it[KEntities.PZ] = EcsSpec.pz(i)
                it[KEntities.VX] = EcsSpec.vx(i)
                it[KEntities.VY] = EcsSpec.vy(i)
                it[KEntities.VZ] = EcsSpec.vz(i)
            }
        }
    }

    /** `table.forEach { it[PX] += it[VX] * DT ... }`. */
    fun updateForEach() {
        table.forEach {
            it[KEntities.PX] += it[KEntities.VX] * EcsSpec.DT
            it[KEntities.PY] += it[KEntities.VY] * EcsSpec.DT
            it[KEntities.PZ] += it[KEntities.VZ] * EcsSpec.DT
        }
    }

    /** The typed chunk body of docs/kotlin.md (views, `forEachLive`) in `forEachChunk`, no coroutines. */
    fun updateChunks() {
        table.forEachChunk { chunk -> move(chunk) }
    }

    /** The same body written inline in the `forEachChunk` lambda (not in a function of its own). */
    fun updateChunksInline() {
        table.forEachChunk { chunk ->
            val px = chunk.writableView(KEntities.PX)
            val py = chunk.writableView(KEntities.PY)
            val pz = chunk.writableView(KEntities.PZ)
            val vx = chunk.view(KEntities.VX)
            val vy = chunk.view(KEntities.VY)
            val vz = chunk.view(KEntities.VZ)
            chunk.forEachLive { s ->
                px[s] += vx[s] * EcsSpec.DT
                py[s] += vy[s] * EcsSpec.DT
                pz[s] += vz[s] * EcsSpec.DT
            }
        }
    }

    /** The slot accessors `chunk[s, column]` over the live runs (`nextLive`, `nextHole`) in `forEachChunk`. */
    fun updateChunkSlots() {
        table.forEachChunk { chunk ->
            var start = chunk.nextLive(0)
            while (start >= 0) {
                val end = chunk.nextHole(start)
                for (s in start until end) {
                    chunk[s, KEntities.PX] += chunk[s, KEntities.VX] * EcsSpec.DT
                    chunk[s, KEntities.PY] += chunk[s, KEntities.VY] * EcsSpec.DT
                    chunk[s, KEntities.PZ] += chunk[s, KEntities.VZ] * EcsSpec.DT
                }
                start = chunk.nextLive(end)
            }
        }
    }

    /** The typed chunk body of docs/kotlin.md in `processChunks` on [dispatcher], at most [parallelism] chunks at once. */
    fun updateCoroutines(dispatcher: CoroutineDispatcher, parallelism: Int): Int = runBlocking {
        table.processChunks(dispatcher, parallelism) { chunk -> move(chunk) }
        table.size
    }

    /**
     * The same on one thread, the caller's: `processChunks` with one worker on `runBlocking`'s own
     * event loop (a single-thread dispatcher that runs on the thread that called it).
     */
    fun updateCoroutinesOneThread(): Int = runBlocking {
        table.processChunks(coroutineContext[ContinuationInterceptor] as CoroutineDispatcher, 1) { chunk -> move(chunk) }
        table.size
    }

    /** Sum of `x + y + z` of the entities, in order (entity `i` is the `i`-th record: no removals). */
    fun checksum(count: Int): Double {
        var sum = 0.0
        var i = 0
        table.forEach {
            if (i++ < count) {
                sum += it[KEntities.PX].toDouble() + it[KEntities.PY].toDouble() + it[KEntities.PZ].toDouble()
            }
        }
        return sum
    }

    override fun close() = table.close()

    private companion object {
        /**
         * docs/kotlin.md's body: a view of each column taken once per chunk, the live slots by
         * `forEachLive`; a function of its own, as docs/kotlin.md writes it, so the JIT compiles
         * it apart from the chunk loop that calls it.
         */
        private fun move(chunk: TypedChunk<KEntities>) {
            val px = chunk.writableView(KEntities.PX)
            val py = chunk.writableView(KEntities.PY)
            val pz = chunk.writableView(KEntities.PZ)
            val vx = chunk.view(KEntities.VX)
            val vy = chunk.view(KEntities.VY)
            val vz = chunk.view(KEntities.VZ)
            chunk.forEachLive { s ->
                px[s] += vx[s] * EcsSpec.DT
                py[s] += vy[s] * EcsSpec.DT
                pz[s] += vz[s] * EcsSpec.DT
            }
        }
    }
}
