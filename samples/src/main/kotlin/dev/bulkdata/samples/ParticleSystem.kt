package dev.bulkdata.samples

import dev.bulkdata.storage.kotlin.RawMemoryApi
import dev.bulkdata.storage.kotlin.TypedChunk
import dev.bulkdata.storage.kotlin.TypedTable
import dev.bulkdata.storage.kotlin.processChunks
import dev.bulkdata.storage.vector.Kernels
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import java.util.SplittableRandom

/**
 * The particle system of "Data Structures Part 1: Bulk Data" on the Kotlin DSL: a [Particles] table (SOA) holding a steady
 * population, where every frame the particles whose lifetime ran out expire and as many new
 * ones spawn in the holes they leave. The update runs chunk by chunk in coroutines
 * with [processChunks], each chunk stepped by the SIMD column kernels of storage-vector
 * ([Kernels], on the core chunk, hence `@OptIn(RawMemoryApi::class)` in [step]), which skip
 * holes 64 slots at a time with the chunk's live bits and select the expired with a slot mask.
 *
 * Correctness is checked as it runs: every particle's death frame is known when it spawns, so
 * the number expiring each frame must match a histogram kept on the side (a particle skipped,
 * visited twice or read from a hole would break it). The update of one particle depends on its
 * own fields only, and spawns and removals happen on one thread in a fixed order, so the
 * checksum is the same for any number of threads.
 */
public object ParticleSystem {
    /** The sizes of a run. */
    public data class Params(
        val particles: Int,
        val frames: Int,
        val minLifeFrames: Int,
        val maxLifeFrames: Int,
        val seed: Long,
    ) {
        public companion object {
            /** The main command's size: 1,000,000 particles for 300 frames. */
            @JvmField public val FULL: Params = Params(1_000_000, 300, 30, 180, 1004L)

            /** A smoke-test size. */
            @JvmField public val SMALL: Params = Params(20_000, 60, 5, 40, 1004L)
        }
    }

    /**
     * What a run observed.
     *
     * @property spawned particles spawned, including the initial population
     * @property expired particles that expired
     * @property live particles alive after the last frame
     * @property lateOrEarly frames whose number of expiries differed from the histogram (must be 0)
     * @property blocks blocks the table holds at the end
     * @property maxFrameMillis the slowest frame
     * @property meanFrameMillis the mean frame time
     * @property checksum sum over expired and surviving particles of their final positions' bits
     */
    public data class Outcome(
        val spawned: Long,
        val expired: Long,
        val live: Int,
        val lateOrEarly: Int,
        val blocks: Int,
        val maxFrameMillis: Double,
        val meanFrameMillis: Double,
        val checksum: Long,
    )

    private const val DT = 1f / 60
    private const val GRAVITY = -9.81f

    /**
     * Runs the particle system.
     *
     * @param p sizes and seed
     * @param parallelism chunk coroutines at once
     * @param out where to print progress and the summary
     */
    @JvmStatic
    public fun run(p: Params, parallelism: Int, out: SampleOutput): Outcome =
        Particles.open().use { table -> Run(p, table).simulate(parallelism, out) }

    private class Run(val p: Params, val table: TypedTable<Particles>) {
        val random = SplittableRandom(p.seed)
        val dueAt = IntArray(p.frames + p.maxLifeFrames + 2)
        val slotsPerBlock = Particles.schema.slotsPerBlock()
        // Per chunk: the handles expiring this frame and the mask scratch (each chunk
        // coroutine uses its own).
        var expiredHandles = Array(0) { LongArray(0) }
        var masks = Array(0) { LongArray(0) }
        var expiredCount = IntArray(0)
        var spawned = 0L
        var expired = 0L
        var checksum = 0L
        var lateOrEarly = 0
        var frameMillis = 0.0

        fun simulate(parallelism: Int, out: SampleOutput): Outcome {
            val first: ParticleId = table.add()   // a typed handle: a Handle<Sounds> would not compile here
            table.remove(first)
            spawn(p.particles, 0)
            val progress = out.progress("frame", p.frames) {
                val s = table.stats()
                String.format("%5.1f ms  live %,d  holes %,d  blocks %,d", frameMillis, s.live, s.holes, s.blocks)
            }
            var maxMillis = 0.0
            var totalMillis = 0.0
            for (frame in 1..p.frames) {
                val start = System.nanoTime()
                val n = update(parallelism)
                if (n != dueAt[frame]) lateOrEarly++
                spawn(n, frame)
                frameMillis = (System.nanoTime() - start) / 1e6
                maxMillis = maxOf(maxMillis, frameMillis)
                totalMillis += frameMillis
                progress.step(frame)
            }
            progress.done()
            table.forEach { checksum += positionBits(it[Particles.PX], it[Particles.PY], it[Particles.PZ]) }
            val o = Outcome(spawned, expired, table.size, lateOrEarly, table.stats().blocks, maxMillis,
                totalMillis / p.frames, checksum)
            out.line("particles  %,d live in %,d blocks; %,d spawned and %,d expired over %,d frames",
                o.live, o.blocks, o.spawned, o.expired, p.frames)
            out.line("frames     %.1f ms mean, %.1f ms slowest, %d chunk coroutines at a time; %s",
                o.meanFrameMillis, o.maxFrameMillis, parallelism,
                if (Kernels.vectorized()) "kernels vectorised (Vector API)"
                else "kernels scalar (run with --add-modules jdk.incubator.vector to vectorise)")
            out.line("check      %d frames with early or late expiries; %s in table: %b; checksum %016x",
                o.lateOrEarly, first, first in table, o.checksum)
            return o
        }

        fun spawn(count: Int, frame: Int) {
            repeat(count) {
                val life = random.nextInt(p.minLifeFrames, p.maxLifeFrames + 1)
                dueAt[frame + life]++
                val speed = random.nextDouble(2.0, 8.0).toFloat()
                val angle = random.nextDouble(0.0, 2 * Math.PI)
                table.add {
                    it[Particles.T] = life.toFloat()
                    it[Particles.VX] = speed * Math.cos(angle).toFloat() * 0.3f
                    it[Particles.VY] = speed
                    it[Particles.VZ] = speed * Math.sin(angle).toFloat() * 0.3f
                }
            }
            spawned += count
        }

        /** Moves every particle one frame, chunk by chunk in coroutines; removes the expired. */
        fun update(parallelism: Int): Int {
            ensureBuffers(table.stats().blocks)
            runBlocking {
                table.processChunks(Dispatchers.Default, parallelism) { chunk ->
                    expiredCount[chunk.index()] = step(chunk, expiredHandles[chunk.index()], masks[chunk.index()])
                }
            }
            var n = 0
            for (c in expiredCount.indices) {
                val k = expiredCount[c]
                if (k > 0) {
                    checksum += expiredChecksum(table, expiredHandles[c], k)
                    table.core.removeAll(expiredHandles[c], 0, k)
                    n += k
                    expiredCount[c] = 0
                }
            }
            expired += n
            return n
        }

        fun ensureBuffers(blocks: Int) {
            if (blocks <= expiredHandles.size) return
            val size = maxOf(blocks, expiredHandles.size * 2)
            expiredHandles = Array(size) { if (it < expiredHandles.size) expiredHandles[it] else LongArray(slotsPerBlock) }
            masks = Array(size) { if (it < masks.size) masks[it] else LongArray((slotsPerBlock + 63) / 64) }
            expiredCount = expiredCount.copyOf(size)
        }
    }

    /**
     * Moves the live particles of one chunk one frame (gravity, then position) and counts their
     * lifetime down, with the SIMD column kernels of storage-vector ([Kernels]: vectorised when
     * the JVM runs with `--add-modules jdk.incubator.vector`, scalar loops with the same results
     * otherwise); writes the handles of those whose lifetime ran out to [expired], which must
     * hold [TypedChunk.slotCount] handles, using [mask] (at least [TypedChunk.liveWordCount]
     * words) as scratch. The expired are removed by the caller after the pass: a chunk's slots
     * name records only during its iteration, and no record can be removed during one. Reads and
     * writes only this chunk's records, so chunks may be stepped on different threads at once.
     * Allocates nothing. Java calls it as `step(Chunk, long[], long[])` with a core chunk of a
     * particle table.
     *
     * @return how many handles were written to [expired]
     */
    @JvmStatic
    @JvmName("step")
    @OptIn(RawMemoryApi::class) // the core chunk, for the kernels: they touch live slots only
    public fun step(chunk: TypedChunk<Particles>, expired: LongArray, mask: LongArray): Int {
        val c = chunk.core
        Kernels.add(c, Particles.T.field, -1f)                      // t -= 1
        Kernels.add(c, Particles.VY.field, GRAVITY * DT)            // vy += g * dt
        Kernels.axpy(c, Particles.PX.field, Particles.VX.field, DT) // p += v * dt
        Kernels.axpy(c, Particles.PY.field, Particles.VY.field, DT)
        Kernels.axpy(c, Particles.PZ.field, Particles.VZ.field, DT)
        // t <= 0: nothing lies between 0 and the smallest positive float
        if (Kernels.lessThan(c, Particles.T.field, java.lang.Float.MIN_VALUE, mask) == 0) return 0
        return Kernels.handles(c, mask, expired, 0)
    }

    /**
     * The checksum of the particles `handles[0 until count]` (raw handles of [table]): their
     * positions folded into a long each and summed, so the order of the particles does not
     * matter.
     */
    @JvmStatic
    public fun expiredChecksum(table: TypedTable<Particles>, handles: LongArray, count: Int): Long {
        var sum = 0L
        for (k in 0 until count) sum += positionBits(table, ParticleId(handles[k]))
        return sum
    }

    /** One particle's position folded into a long; Java calls it with a `long` handle. */
    @JvmStatic
    @JvmName("positionBits")
    public fun positionBits(table: TypedTable<Particles>, handle: ParticleId): Long =
        positionBits(table[handle, Particles.PX], table[handle, Particles.PY], table[handle, Particles.PZ])

    private fun positionBits(x: Float, y: Float, z: Float): Long =
        x.toRawBits() * -0x61c8864680b583ebL + y.toRawBits() * 31L + z.toRawBits()
}
