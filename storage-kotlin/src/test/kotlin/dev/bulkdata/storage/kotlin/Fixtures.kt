package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.RecordLayout
import dev.bulkdata.storage.schema.ReuseOrder

/** The test table: one column of every primitive type. Also used by the Java interop test. */
object Particles : TableDef<Particles>("particles", { layout = RecordLayout.SOA }) {
    @JvmField val X = float("x")
    @JvmField val VX = float("vx")
    @JvmField val AGE = int("age")
    @JvmField val ID = long("id")
    @JvmField val MASS = double("mass")
    @JvmField val KIND = byte("kind")
    @JvmField val FLAGS = short("flags")
    @JvmField val CODE = char("code")
    @JvmField val ALIVE = boolean("alive")

    /** The Java entry point: `Particles.openTable()`. */
    @JvmStatic fun openTable(): TypedTable<Particles> = open()
}

typealias ParticleId = Handle<Particles>

/** A second table, AOS with LIFO reuse, so handles and columns of two tables can be mixed up. */
object Sounds : TableDef<Sounds>("sounds", {
    layout = RecordLayout.AOS
    reuseOrder = ReuseOrder.LIFO
}) {
    @JvmField val VOLUME = float("volume")
}

typealias SoundId = Handle<Sounds>

/** A packed table: records stay contiguous. */
object Bullets : TableDef<Bullets>("bullets", { kind = TableKind.PACKED }) {
    @JvmField val X = float("x")
    @JvmField val DAMAGE = int("damage")

    /** The Java entry point: `Bullets.openTable()`. */
    @JvmStatic fun openTable(): TypedTable<Bullets> = open()
}

/** Components of [Particles] entities: a position, a velocity and a tag, for component tables and joins. */
object Position : TableDef<Position>("position") {
    @JvmField val X = float("x")
    @JvmField val Y = float("y")
}

object Velocity : TableDef<Velocity>("velocity", { layout = RecordLayout.AOS }) {
    @JvmField val DX = float("dx")
    @JvmField val DY = float("dy")
}

object Tag : TableDef<Tag>("tag") {
    @JvmField val CODE = int("code")
}
