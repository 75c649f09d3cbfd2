    // @each-type except Handle
    @JvmName("get")
    public operator fun get(handle: Handle<D>, column: FloatColumn<D>): Float = core.get(handle.raw, column.field)

    @JvmName("set")
    public operator fun set(handle: Handle<D>, column: FloatColumn<D>, value: Float): Unit =
        core.set(handle.raw, column.field, value)

    @JvmSynthetic
    @JvmName("read")
    public operator fun Handle<D>.get(column: FloatColumn<D>): Float = core.get(raw, column.field)

    @JvmSynthetic
    @JvmName("write")
    public operator fun Handle<D>.set(column: FloatColumn<D>, value: Float): Unit = core.set(raw, column.field, value)
    // @end
