    // @each-type except Handle
    public operator fun get(entity: Handle<E>, column: FloatColumn<C>): Float = core.get(entity.raw, column.field)

    public operator fun set(entity: Handle<E>, column: FloatColumn<C>, value: Float): Unit =
        core.set(entity.raw, column.field, value)

    public operator fun get(row: Row<C>, column: FloatColumn<C>): Float = core.getAt(row.value, column.field)

    public operator fun set(row: Row<C>, column: FloatColumn<C>, value: Float): Unit =
        core.setAt(row.value, column.field, value)
    // @end
