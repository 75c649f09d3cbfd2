package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ReuseOrder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain

object NoColumns : TableDef<NoColumns>("empty")

object Duplicate : TableDef<Duplicate>("dup") {
    val a = float("a")
    val b = int("a")
}

object TooLarge : TableDef<TooLarge>("huge") {
    val columns = List(2100) { long("c$it") }
}

object BadName : TableDef<BadName>("9lives") {
    val x = float("x")
}

object BadColumnName : TableDef<BadColumnName>("badcol") {
    val x = float("x y")
}

object BadCapacity : TableDef<BadCapacity>("capped", { maxCapacity = 0 }) {
    val x = float("x")
}

object SmallHandles : TableDef<SmallHandles>("small", {
    handleLayout(indexBits = 4, generationBits = 2)
    reuseOrder = ReuseOrder.LIFO
}) {
    val x = float("x")
}

object PackedWithReuse : TableDef<PackedWithReuse>("packedreuse", {
    kind = TableKind.PACKED
    reuseOrder = ReuseOrder.LIFO
}) {
    val x = float("x")
}

/** Every DSL mistake is reported with a message saying how to fix it, and can be retried. */
class DslErrorTest : FunSpec({
    test("no columns") {
        val e = shouldThrow<IllegalArgumentException> { NoColumns.open() }
        e.message shouldContain "declares no columns"
        e.message shouldContain "val x = float(\"x\")"
        // the lazy schema is not poisoned: asking again reports the same error
        shouldThrow<IllegalArgumentException> { NoColumns.schema }.message shouldBe e.message
    }

    test("duplicate column name") {
        val e = shouldThrow<IllegalArgumentException> { Duplicate.schema }
        e.message shouldContain "declares column 'a' twice (FLOAT and INT)"
        e.message shouldContain "give each column its own name"
    }

    test("record too large for a block") {
        val e = shouldThrow<IllegalArgumentException> { TooLarge.open() }
        e.message shouldContain "table 'huge' cannot be built"
        e.message shouldContain "second TableDef"
    }

    test("invalid table and column names") {
        shouldThrow<IllegalArgumentException> { BadName.schema }.message shouldContain "table name '9lives' is not valid"
        shouldThrow<IllegalArgumentException> { BadColumnName.schema }.message shouldContain "field name 'x y'"
    }

    test("invalid options are rejected when opening") {
        shouldThrow<IllegalArgumentException> { BadCapacity.open() }.message shouldContain "maxCapacity=0"
        shouldThrow<IllegalArgumentException> {
            object : TableDef<BadCapacity>("bits", { handleLayout(indexBits = 40, generationBits = 20) }) {}
        }
    }

    test("a free-list order on a packed table") {
        val e = shouldThrow<IllegalArgumentException> { PackedWithReuse.open() }
        e.message shouldContain "PACKED table has no free list"
        e.message shouldContain "kind = TableKind.STABLE"
    }

    test("the packed kind opens a PackedTable") {
        Bullets.open().use { table ->
            (table.core is dev.bulkdata.storage.PackedTable) shouldBe true
            val a = table.add { it[Bullets.DAMAGE] = 1 }
            val b = table.add { it[Bullets.DAMAGE] = 2 }
            table.remove(a)
            table[b, Bullets.DAMAGE] shouldBe 2
            table.core.stats().holes() shouldBe 0
        }
    }

    test("a column of a table whose schema failed says why") {
        shouldThrow<IllegalArgumentException> { Duplicate.a.field }.message shouldContain "twice"
    }

    test("handle layout and capacity options reach the core") {
        SmallHandles.open().use { table ->
            table.core.handleLayout().indexBits() shouldBe 4
            val ids = List(15) { table.add() }
            shouldThrow<dev.bulkdata.storage.CapacityExceededException> { table.add() }
            table.size shouldBe 15
            ids.forEach { table.remove(it) }
        }
    }
})
