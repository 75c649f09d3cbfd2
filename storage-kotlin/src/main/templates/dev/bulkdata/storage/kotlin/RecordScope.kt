    // @each-type except Handle
    public operator fun Visited<D>.get(column: FloatColumn<D>): Float {
        val slot = slotHere(at)
        return if (slot >= 0) current().get(slot, column.field) else table.core.get(handleOfEarlier(at), column.field)
    }

    public operator fun Visited<D>.set(column: FloatColumn<D>, value: Float) {
        val slot = slotHere(at)
        if (slot >= 0) current().set(slot, column.field, value) else table.core.set(handleOfEarlier(at), column.field, value)
    }

    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float = table.core.get(handle.raw, column.field)

    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float) {
        table.core.set(handle.raw, column.field, value)
    }

    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float = table.core.get(raw, column.field)

    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float) {
        table.core.set(raw, column.field, value)
    }
    // @end
