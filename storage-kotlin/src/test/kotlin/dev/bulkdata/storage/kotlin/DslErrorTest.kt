package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.ReuseOrder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import io.kotest.matchers.types.shouldBeInstanceOf

// Every broken declaration is its own object, first touched inside a test: the object's class
// initialisation is part of what is tested (it must not fail, whatever the mistake).

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

object BadHandleLayout : TableDef<BadHandleLayout>("bits", { handleLayout(0, 5) }) {
    val x = float("x")
}

object ThrowingOptions : TableDef<ThrowingOptions>("throwing", { error("no configuration for 'throwing'") }) {
    val x = float("x")
}

object PackedWithReuse : TableDef<PackedWithReuse>("packedreuse", {
    kind = TableKind.PACKED
    reuseOrder = ReuseOrder.LIFO
}) {
    val x = float("x")
}

object LateColumn : TableDef<LateColumn>("late") {
    val a = float("a")
    val early = schema // builds the schema during the object's initialisation: a mistake
    val b = float("b")
}

object SmallHandles : TableDef<SmallHandles>("small", {
    handleLayout(slotBits = 4, generationBits = 2)
    reuseOrder = ReuseOrder.LIFO
}) {
    val x = float("x")
}

/**
 * Opens the declaration [def] returns twice; both times must throw an [IllegalArgumentException]
 * with the same message (never `ExceptionInInitializerError` or `NoClassDefFoundError`). The
 * declaration object is first touched inside the first call.
 */
private fun opensFailTwice(def: () -> TableDef<*>): IllegalArgumentException {
    val first = shouldThrow<IllegalArgumentException> { def().open() }
    val second = shouldThrow<IllegalArgumentException> { def().open() }
    second.message shouldBe first.message
    shouldThrow<IllegalArgumentException> { def().schema }.message shouldBe first.message
    return first
}

/** Every DSL mistake is reported by open() with a message saying how to fix it, every time. */
class DslErrorTest : FunSpec({
    test("no columns") {
        val e = opensFailTwice { NoColumns }
        e.message shouldContain "table 'empty' declares no columns"
        e.message shouldContain "val x = float(\"x\")"
    }

    test("a column declared twice") {
        val e = opensFailTwice { Duplicate }
        e.message shouldContain "table 'dup' declares column 'a' twice (FLOAT and INT)"
        e.message shouldContain "give each column its own name"
    }

    test("a record larger than a block (16 KiB)") {
        val e = opensFailTwice { TooLarge }
        e.message shouldContain "table 'huge' cannot be built"
        e.message shouldContain "but a block holds 16384"
        e.message shouldContain "second TableDef"
    }

    test("invalid table and column names") {
        val badName = opensFailTwice { BadName }
        badName.message shouldContain "table name '9lives' is not valid"
        badName.message shouldNotContain "second TableDef" // that hint is for records too large
        opensFailTwice { BadColumnName }.message shouldContain "table 'badcol' cannot be built: field name 'x y'"
    }

    test("an invalid option value") {
        val e = opensFailTwice { BadCapacity }
        e.message shouldContain "table 'capped': an option is invalid: maxCapacity=0 must be at least 1"
        e.message shouldContain "TableDef(\"capped\", { ... })"
    }

    test("an option that throws inside the options block: handleLayout(0, 5)") {
        val e = opensFailTwice { BadHandleLayout }
        e.message shouldContain "table 'bits': its options block threw IllegalArgumentException: slotBits=0"
        e.message shouldContain "TableDef(\"bits\", { ... })"
        e.cause.shouldBeInstanceOf<IllegalArgumentException>()
        // the object itself is initialised and usable for what does not need its options
        BadHandleLayout.name shouldBe "bits"
        BadHandleLayout.columns().map { it.name } shouldBe listOf("x")
        shouldThrow<IllegalArgumentException> { BadHandleLayout.layout }.message shouldBe e.message
    }

    test("an options block that throws something else") {
        val e = opensFailTwice { ThrowingOptions }
        e.message shouldContain "table 'throwing': its options block threw IllegalStateException:" +
            " no configuration for 'throwing'"
        e.cause.shouldBeInstanceOf<IllegalStateException>()
    }

    test("an option that does not fit the kind: a free-list order on a packed table") {
        val e = opensFailTwice { PackedWithReuse }
        e.message shouldContain "table 'packedreuse': a PACKED table has no free list"
        e.message shouldContain "kind = TableKind.BULK"
    }

    test("a column declared after the schema was built") {
        val e = opensFailTwice { LateColumn }
        e.message shouldContain "table 'late': column 'b' is declared after the schema was built"
        LateColumn.columns().map { it.name } shouldBe listOf("a", "b")
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

    test("a BULK table without a reuseOrder option reuses holes in SWEEP order, the default") {
        Particles.open().use { table ->
            (table.core as dev.bulkdata.storage.BulkTable).reuseOrder() shouldBe ReuseOrder.SWEEP
            val h = List(10) { table.add() }
            table.remove(h[7])
            table.remove(h[2])
            val slots = List(2) { table.core.handleLayout().slot(table.add().raw) }
            slots shouldBe listOf(3L, 8L)
        }
    }

    test("handle layout, reuse order and capacity options reach the core") {
        SmallHandles.open().use { table ->
            table.core.handleLayout().slotBits() shouldBe 4
            table.core.handleLayout().generationBits() shouldBe 2
            (table.core as dev.bulkdata.storage.BulkTable).reuseOrder() shouldBe ReuseOrder.LIFO
            val ids = List(15) { table.add() }
            shouldThrow<dev.bulkdata.storage.schema.CapacityExceededException> { table.add() }
            table.size shouldBe 15
            ids.forEach { table.remove(it) }
            table.isEmpty() shouldBe true
        }
    }
})
