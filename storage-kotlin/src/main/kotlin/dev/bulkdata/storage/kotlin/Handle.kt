package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Handles

/**
 * A handle of a table declared by [D]: a 64-bit core handle wrapped at compile time only, so one table's handle does
 * not compile where another's is expected (name it per table: `typealias ParticleId = Handle<Particles>`). At run time
 * a plain `long`; like every value class it is boxed as a generic type argument, a nullable or `Any`: keep many in a
 * `LongArray` of [raw] values and use [TableDef.NULL] rather than `null`. Immutable and thread-safe.
 * @property raw the core handle; pass it to the Java API or store it in a `LongArray`
 */
@JvmInline
public value class Handle<out D : TableDef<*>>(public val raw: Long) {
    /** Whether this is the null handle (raw value `0`), which refers to no record of any table. */
    public val isNull: Boolean get() = raw == Handles.NULL

    /** `name#slot@generation` (`Handles.format`): `tag7#42@3` if no open table owns the tag; allocates. */
    override fun toString(): String = Handles.format(raw)
}
