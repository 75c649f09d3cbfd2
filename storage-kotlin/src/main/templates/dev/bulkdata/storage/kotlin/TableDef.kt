    // @each-type except Handle
    /** Declares a `float` column named [name]. */
    protected fun float(name: String): FloatColumn<D> = declare(FloatColumn(this, name))
    // @end
