package dev.bulkdata.benchmarks

import com.github.quillraven.fleks.Component
import com.github.quillraven.fleks.ComponentType
import com.github.quillraven.fleks.Entity
import com.github.quillraven.fleks.IteratingSystem
import com.github.quillraven.fleks.World
import com.github.quillraven.fleks.World.Companion.family
import com.github.quillraven.fleks.configureWorld

/**
 * What every library of `EcsPeersBenchmark` computes, so that all of them compute the same
 * results: entity `i`'s starting Position and Velocity, which entities of the sparse world have
 * a Velocity, the time step, and the random positions of the random read. Kotlin, because the
 * Kotlin sources compile before the Java ones and Fleks's side ([FleksEcs]) uses it too.
 */
object EcsSpec {
    /** The time step of the update `p += v * dt`. */
    const val DT = 1f / 60

    /** Where random reads start: every library reads the same positions of its id array. */
    const val SEED = 0x5DEECE66DL

    @JvmStatic fun px(i: Int): Float = (i % 1000).toFloat()
    @JvmStatic fun py(i: Int): Float = (i % 7).toFloat()
    @JvmStatic fun pz(i: Int): Float = (i % 13).toFloat()
    @JvmStatic fun vx(i: Int): Float = (1 + i % 3).toFloat()
    @JvmStatic fun vy(i: Int): Float = 2f
    @JvmStatic fun vz(i: Int): Float = (3 - i % 2).toFloat()

    /** Whether entity `i` of the sparse world has a Velocity: a spread-out 10 %. */
    @JvmStatic fun hasVelocity(i: Int): Boolean = (i.toLong() * 7919 % 100) < 10

    /** The entities of the sparse world that have a Velocity. */
    @JvmStatic fun moving(n: Int): Int = (0 until n).count { hasVelocity(it) }

    /** The next state of the random positions (a 64-bit LCG). */
    @JvmStatic fun next(state: Long): Long = state * 6364136223846793005L + 1442695040888963407L

    /** A position in `0 until n` from a state: its high 32 bits scaled to n. */
    @JvmStatic fun position(state: Long, n: Int): Int = (((state ushr 32) * n) ushr 32).toInt()
}

/** Fleks's Position component (Fleks components name their type in a companion object). */
class FleksPosition(@JvmField var x: Float, @JvmField var y: Float, @JvmField var z: Float) : Component<FleksPosition> {
    override fun type() = FleksPosition

    companion object : ComponentType<FleksPosition>()
}

/** Fleks's Velocity component. */
class FleksVelocity(@JvmField var x: Float, @JvmField var y: Float, @JvmField var z: Float) : Component<FleksVelocity> {
    override fun type() = FleksVelocity

    companion object : ComponentType<FleksVelocity>()
}

/** The update as Fleks's README writes a system: an `IteratingSystem` over a family. */
class FleksMover : IteratingSystem(family { all(FleksPosition, FleksVelocity) }) {
    override fun onTickEntity(entity: Entity) {
        val p = entity[FleksPosition]
        val v = entity[FleksVelocity]
        p.x += v.x * deltaTime
        p.y += v.y * deltaTime
        p.z += v.z * deltaTime
    }
}

/**
 * Fleks 2.12's side of `EcsPeersBenchmark`, used as its README shows: a world made by
 * `configureWorld` with a system, entities made by `world.entity { it += ... }`, components read
 * through `entity[Type]` in the world's context, `world -= entity`, `world.removeAll()`. Entity
 * `i` of the workloads is `ids[i]`. Fleks has no batch create: its create is one by one.
 */
class FleksEcs(val n: Int) : AutoCloseable {
    val world: World = configureWorld(entityCapacity = n) {
        systems {
            add(FleksMover())
        }
    }

    /** Entity `i` of the workloads. */
    val ids: Array<Entity> = Array(n) { Entity.NONE }

    /** `ids` in the shuffled order of the pre-shuffled read. */
    var shuffled: Array<Entity> = emptyArray()

    /** Creates entities `0 until count`, each with a Position and (unless sparse) a Velocity. */
    fun create(count: Int, sparse: Boolean) {
        for (i in 0 until count) {
            ids[i] = add(i, !sparse || EcsSpec.hasVelocity(i))
        }
    }

    private fun add(i: Int, moving: Boolean): Entity = world.entity {
        it += FleksPosition(EcsSpec.px(i), EcsSpec.py(i), EcsSpec.pz(i))
        if (moving) {
            it += FleksVelocity(EcsSpec.vx(i), EcsSpec.vy(i), EcsSpec.vz(i))
        }
    }

    /** Keeps `ids` in the given order (a permutation of `0 until n`) for [readShuffled]. */
    fun shuffle(order: IntArray) {
        shuffled = Array(order.size) { ids[order[it]] }
    }

    /** Removes every entity. */
    fun clear() = world.removeAll()

    /** One update of every entity that has both components: `world.update(dt)`. */
    fun update() = world.update(EcsSpec.DT)

    /** Sum of `x` of `n` entities at random positions of `ids`. */
    fun readRandom(): Float {
        var state = EcsSpec.SEED
        var sum = 0f
        val ids = ids
        with(world) {
            for (k in 0 until n) {
                state = EcsSpec.next(state)
                sum += ids[EcsSpec.position(state, n)][FleksPosition].x
            }
        }
        return sum
    }

    /** Sum of `x` of every entity, in the shuffled order. */
    fun readShuffled(): Float {
        var sum = 0f
        val ids = shuffled
        with(world) {
            for (e in ids) {
                sum += e[FleksPosition].x
            }
        }
        return sum
    }

    /** Removes the entities at positions `half` of `ids`, then creates as many in their place. */
    fun churn(half: IntArray): Int {
        for (i in half) {
            world -= ids[i]
        }
        for (i in half) {
            ids[i] = add(i, true)
        }
        return world.numEntities
    }

    /** Sum of `x + y + z` of entities `0 until count`, in that order. */
    fun checksum(count: Int): Double {
        var sum = 0.0
        with(world) {
            for (i in 0 until count) {
                val p = ids[i][FleksPosition]
                sum += p.x.toDouble() + p.y.toDouble() + p.z.toDouble()
            }
        }
        return sum
    }

    fun size(): Int = world.numEntities

    override fun close() = world.dispose()
}
