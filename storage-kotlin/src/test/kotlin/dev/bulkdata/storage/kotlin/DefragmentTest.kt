package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.util.ConcurrentModificationException

/** TypedTable.defragment: the core PackedTable.defragment with typed handles. */
class DefragmentTest : FunSpec({
    test("rows move toward the order within the budget; handles survive; the same order then compares nothing") {
        Bullets.open().use { table ->
            val ids = List(100) { i -> table.add { it[Bullets.DAMAGE] = 100 - i } }
            var comparisons = 0
            val byDamage = TypedRecordOrder<Bullets> { a, b ->
                comparisons++
                table[a, Bullets.DAMAGE].compareTo(table[b, Bullets.DAMAGE])
            }
            table.defragment(10, byDamage) shouldBe 10
            table.defragment(1_000_000, byDamage) shouldBe 100L * 99 / 2 - 10   // reversed: n(n-1)/2 swaps in all
            val rows = ArrayList<Handle<Bullets>>()
            table.forEach { rows += it.handle }
            rows shouldContainExactly ids.reversed()
            ids.forEachIndexed { i, id -> table[id, Bullets.DAMAGE] shouldBe 100 - i }

            comparisons = 0
            table.defragment(1_000_000, byDamage) shouldBe 0
            comparisons shouldBe 0                                  // sorted by this very order: no-op

            table[ids[0], Bullets.DAMAGE] = -1                      // writes are not tracked ...
            table.defragment(1_000_000, byDamage) shouldBe 0
            table.markFragmented()                                  // ... so say so
            table.defragment(1_000_000, byDamage) shouldBe 99
            var first = Bullets.NULL
            table.forEachChunk { chunk -> first = chunk.handle(0) }
            first shouldBe ids[0]                                   // the lowest damage now leads
        }
    }

    test("a new order instance compares every row again") {
        Bullets.open().use { table ->
            repeat(50) { i -> table.add { it[Bullets.DAMAGE] = i } }
            var comparisons = 0
            repeat(2) {
                table.defragment(10) { a, b ->
                    comparisons++
                    table[a, Bullets.DAMAGE].compareTo(table[b, Bullets.DAMAGE])
                } shouldBe 0
            }
            comparisons shouldBe 2 * 49                             // a pass over sorted rows: n - 1 each
        }
    }

    test("a BULK table refuses defragment and markFragmented, naming the table and the fix") {
        Particles.open().use { table ->
            table.add()
            val e = shouldThrow<UnsupportedOperationException> { table.defragment(10) { _, _ -> 0 } }
            e.message shouldContain "table 'particles' is BULK"
            e.message shouldContain "kind = TableKind.PACKED"
            shouldThrow<UnsupportedOperationException> { table.markFragmented() }.message shouldContain "markFragmented"
        }
    }

    test("bad budgets, structural changes from the order and closed tables are refused") {
        val table = Bullets.open()
        val a = table.add { it[Bullets.DAMAGE] = 2 }
        table.add { it[Bullets.DAMAGE] = 1 }
        shouldThrow<IllegalArgumentException> { table.defragment(-1) { _, _ -> 0 } }
        shouldThrow<ConcurrentModificationException> { table.defragment(10) { _, _ -> table.add(); 1 } }
        table.size shouldBe 2
        (a in table) shouldBe true
        table.close()
        shouldThrow<IllegalStateException> { table.defragment(10) { _, _ -> 0 } }
        shouldThrow<IllegalStateException> { table.markFragmented() }
    }
})
