package dev.bulkdata.benchmarks

import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.kotlin.Handle
import dev.bulkdata.storage.kotlin.RawMemoryApi
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedTable
import dev.bulkdata.storage.kotlin.processChunks
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import java.lang.foreign.ValueLayout

/** The standard record declared with the Kotlin DSL (SOA). */
object KParticles : TableDef<KParticles>("kparticles", { layout = RecordLayout.SOA }) {
    @JvmField val T = float("t")
    @JvmField val PX = float("px")
    @JvmField val PY = float("py")
    @JvmField val PZ = float("pz")
    @JvmField val VX = float("vx")
    @JvmField val VY = float("vy")
    @JvmField val VZ = float("vz")
    @JvmField val PAD = float("pad")
}

/** The typed handle of [KParticles]. */
typealias KParticleId = Handle<KParticles>

/**
 * The workloads written as a Kotlin user writes them with typed handles, called from the Java
 * JMH classes (JMH's annotation processor sees only Java). Handles cross into Java as the raw
 * `long` of a `LongArray`, the documented way to keep many handles without boxing.
 */
object KotlinWorkloads {
    private val F = ValueLayout.JAVA_FLOAT
    private const val DT = 1f / 60

    /** A table of [n] records with t, and velocity set; the raw handles go to [handlesOut]. */
    @JvmStatic
    fun open(n: Int, handlesOut: LongArray): TypedTable<KParticles> {
        val table = KParticles.open()
        for (i in 0 until n) {
            handlesOut[i] = table.add {
                it[KParticles.T] = (i % 1000).toFloat()
                it[KParticles.VX] = 1f
                it[KParticles.VY] = 2f
                it[KParticles.VZ] = 3f
            }.raw
        }
        return table
    }

    /** Workload 1: [n] adds into a new table, setting t. */
    @JvmStatic
    fun create(n: Int): Long {
        KParticles.open().use { table ->
            var last: KParticleId = KParticles.NULL
            for (i in 0 until n) {
                last = table.add { it[KParticles.T] = (i % 1000).toFloat() }
            }
            return last.raw
        }
    }

    /** Workload 2: sum t over all live records, record by record with typed handles. */
    @JvmStatic
    fun iterate(table: TypedTable<KParticles>): Float {
        var sum = 0f
        table.forEach { sum += it[KParticles.T] }
        return sum
    }

    /** Workload 3: sum t through handles in the given order. */
    @JvmStatic
    fun lookup(table: TypedTable<KParticles>, handles: LongArray): Float {
        var sum = 0f
        for (raw in handles) {
            sum += table[KParticleId(raw), KParticles.T]
        }
        return sum
    }

    /** Workload 6, record by record: `p += v * dt` on three axes with typed per-record access. */
    @JvmStatic
    fun update(table: TypedTable<KParticles>): Float {
        table.forEach {
            it[KParticles.PX] += it[KParticles.VX] * DT
            it[KParticles.PY] += it[KParticles.VY] * DT
            it[KParticles.PZ] += it[KParticles.VZ] * DT
        }
        return DT
    }

    /** Workload 5: remove the records at [positions], add as many back in their places. */
    @JvmStatic
    fun churn(table: TypedTable<KParticles>, handles: LongArray, positions: IntArray): Int {
        for (i in positions) {
            table.remove(KParticleId(handles[i]))
        }
        for (i in positions) {
            handles[i] = table.add { it[KParticles.T] = (i % 1000).toFloat() }.raw
        }
        return table.size
    }

    /** Workload 8: `p += v * dt`, chunk by chunk in coroutines, at most [parallelism] at once. */
    @JvmStatic
    @OptIn(RawMemoryApi::class) // whole float columns, live slots found with the live bits
    fun updateCoroutines(table: TypedTable<KParticles>, parallelism: Int): Int = runBlocking {
        table.processChunks(Dispatchers.Default, parallelism) { chunk ->
            val px = chunk.writableColumn(KParticles.PX)
            val py = chunk.writableColumn(KParticles.PY)
            val pz = chunk.writableColumn(KParticles.PZ)
            val vx = chunk.column(KParticles.VX)
            val vy = chunk.column(KParticles.VY)
            val vz = chunk.column(KParticles.VZ)
            for (w in 0 until chunk.liveWordCount()) {
                var live = chunk.liveBits(w)
                while (live != 0L) {
                    val s = (w shl 6) + java.lang.Long.numberOfTrailingZeros(live).toLong()
                    live = live and (live - 1)
                    px.setAtIndex(F, s, px.getAtIndex(F, s) + vx.getAtIndex(F, s) * DT)
                    py.setAtIndex(F, s, py.getAtIndex(F, s) + vy.getAtIndex(F, s) * DT)
                    pz.setAtIndex(F, s, pz.getAtIndex(F, s) + vz.getAtIndex(F, s) * DT)
                }
            }
        }
        table.size
    }
}
