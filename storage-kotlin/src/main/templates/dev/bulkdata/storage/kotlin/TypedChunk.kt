    // @each-type except Handle
    public operator fun get(slot: Int, column: FloatColumn<D>): Float = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: FloatColumn<D>, value: Float): Unit = chunk.set(slot, column.field, value)
    // @end

    // @each-type except Handle, Boolean
    /** The values of [column] in this chunk, for reading in a loop: take it once per chunk, before it ([FloatView]). */
    public fun view(column: FloatColumn<D>): FloatView<D> = FloatView(chunk.column(column.field))

    /** As [view], for writing too ([WritableFloatView]); taking it stamps the column's change version in this chunk. */
    public fun writableView(column: FloatColumn<D>): WritableFloatView<D> = WritableFloatView(chunk.writableColumn(column.field))
    // @end
