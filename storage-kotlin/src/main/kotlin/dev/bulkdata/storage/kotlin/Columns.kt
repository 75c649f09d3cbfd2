// Generated from storage-kotlin/src/main/templates/dev/bulkdata/storage/kotlin/Columns.kt by codegen/Generate.java: edit the template, not this file.
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

/** A `byte` column of table [D]; declared with [TableDef.byte]. */
public class ByteColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, ByteField>(table, name, FieldType.BYTE)

/** A `short` column of table [D]; declared with [TableDef.short]. */
public class ShortColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, ShortField>(table, name, FieldType.SHORT)

/** A `char` column of table [D]; declared with [TableDef.char]. */
public class CharColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, CharField>(table, name, FieldType.CHAR)

/** An `int` column of table [D]; declared with [TableDef.int]. */
public class IntColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, IntField>(table, name, FieldType.INT)

/** A `long` column of table [D]; declared with [TableDef.long]. */
public class LongColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, LongField>(table, name, FieldType.LONG)

/** A `float` column of table [D]; declared with [TableDef.float]. */
public class FloatColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, FloatField>(table, name, FieldType.FLOAT)

/** A `double` column of table [D]; declared with [TableDef.double]. */
public class DoubleColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, DoubleField>(table, name, FieldType.DOUBLE)

/** A `boolean` column of table [D]; declared with [TableDef.boolean]. */
public class BooleanColumn<D : TableDef<D>> internal constructor(table: TableDef<D>, name: String) :
    Column<D, BooleanField>(table, name, FieldType.BOOLEAN)
