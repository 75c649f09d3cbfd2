package dev.bulkdata.it.modulepath

import dev.bulkdata.storage.kotlin.TableDef
import dev.bulkdata.storage.kotlin.TypedTable

/** A table declared with storage-kotlin's DSL; App uses it from Java. */
object Sounds : TableDef<Sounds>("mp-sounds") {
    @JvmField val VOLUME = float("volume")
    @JvmField val PLAYS = int("plays")

    /** Java opens the table with `Sounds.openTable()`. */
    @JvmStatic fun openTable(): TypedTable<Sounds> = open()
}
