package dev.bulkdata.samples

import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.kotlin.Handle
import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedTable

/**
 * The particle table of the article "Data Structures Part 1: Bulk Data", declared once with the Kotlin DSL and used by the Kotlin
 * [ParticleSystem] and by the plain-Java [JavaParticles]: the standard 32-byte record, SOA
 * (one column per field in every 16 KiB block, 512 particles per block).
 *
 * `t` is the remaining lifetime in frames, a whole number kept in a float so the update loop
 * reads eight floats; it counts down by exactly 1 each frame.
 *
 * Java sees the columns as static fields (`Particles.PX`, a `FloatColumn<Particles>`) and opens
 * the table with [openTable].
 */
object Particles : TableDef<Particles>("particles", { layout = RecordLayout.SOA }) {
    /** Remaining lifetime, in frames. */
    @JvmField val T = float("t")
    @JvmField val PX = float("px")
    @JvmField val PY = float("py")
    @JvmField val PZ = float("pz")
    @JvmField val VX = float("vx")
    @JvmField val VY = float("vy")
    @JvmField val VZ = float("vz")
    /** Unused; pads the record to 32 bytes. */
    @JvmField val PAD = float("pad")

    /** Opens a table of particles; for Java, as `Particles.openTable()` (Kotlin calls [open]). */
    @JvmStatic fun openTable(): TypedTable<Particles> = open()
}

/** A handle of the [Particles] table: `Handle<Sounds>` would not compile where this is expected. */
typealias ParticleId = Handle<Particles>
