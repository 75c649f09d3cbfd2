package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.BooleanField
import dev.bulkdata.storage.ByteField
import dev.bulkdata.storage.CharField
import dev.bulkdata.storage.DoubleField
import dev.bulkdata.storage.FieldType
import dev.bulkdata.storage.FloatField
import dev.bulkdata.storage.IntField
import dev.bulkdata.storage.LongField
import dev.bulkdata.storage.ShortField

// @each-type except Handle
/** A `float` column of table [D]; declared with [TableDef.float]. */
public class FloatColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, FloatField>(table, name, FieldType.FLOAT)
// @end
