    // @each-type except Handle
    public operator fun get(slot: Int, column: FloatColumn<D>): Float = chunk.get(slot, column.field)

    public operator fun set(slot: Int, column: FloatColumn<D>, value: Float): Unit = chunk.set(slot, column.field, value)
    // @end

    // @each-type except Handle, Boolean
    public fun view(column: FloatColumn<D>): FloatView<D> = FloatView(chunk.column(column.field))

    public fun writableView(column: FloatColumn<D>): WritableFloatView<D> = WritableFloatView(chunk.writableColumn(column.field))
    // @end
