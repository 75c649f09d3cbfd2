package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.BooleanField
import dev.bulkdata.storage.schema.ByteField
import dev.bulkdata.storage.schema.CharField
import dev.bulkdata.storage.schema.DoubleField
import dev.bulkdata.storage.schema.FieldType
import dev.bulkdata.storage.schema.FloatField
import dev.bulkdata.storage.schema.IntField
import dev.bulkdata.storage.schema.LongField
import dev.bulkdata.storage.schema.ShortField

// @each-type except Handle
/** A `float` column of table [D]; declared with [TableDef.float]. */
public class FloatColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, FloatField>(table, name, FieldType.FLOAT)
// @end
