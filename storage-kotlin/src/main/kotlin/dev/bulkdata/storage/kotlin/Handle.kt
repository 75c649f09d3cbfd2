package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Handles

/**
 * A handle of a table declared by [D] (a [TableDef] object): a 64-bit core handle
 * (see `dev.bulkdata.storage.HandleLayout`) wrapped at compile time only. `Handle<Particles>`
 * and `Handle<Sounds>` are different types, so one table's handle does not compile where
 * another's is expected; name it per table with a type alias:
 *
 * ```
 * typealias ParticleId = Handle<Particles>
 * ```
 *
 * At run time a handle is a plain `long`: it costs nothing where its static type is
 * `Handle<D>` (parameters, return values, locals, fields, `LongArray` via [raw]). Like every
 * value class it is boxed where it is used as a generic type argument (`List<Handle<D>>`), as a
 * nullable (`Handle<D>?`) or as `Any`; keep handles in a `LongArray` of [raw] values for bulk
 * storage and use [TableDef.NULL] rather than `null`.
 *
 * Immutable and thread-safe.
 *
 * @param D the table declaration this handle belongs to
 * @property raw the core handle; pass it to the Java API or store it in a `LongArray`
 */
@JvmInline
public value class Handle<out D : TableDef<*>>(public val raw: Long) {
    /** Whether this is the null handle (raw value `0`), which refers to no record of any table. */
    public val isNull: Boolean get() = raw == Handles.NULL

    /**
     * The readable form `name#slot@generation` (`particles#42@3`) from the open table that owns
     * the handle's tag, `tag7#42@3` if no open table owns it, `null` for the null handle.
     * Allocates a string; not for hot paths.
     */
    override fun toString(): String = Handles.format(raw)
}
