package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.HandleLayout
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

private object Capped : TableDef<Capped>("capped", { maxCapacity = 1_000_000 }) {
    val X = float("x")
}

private object CappedWithLayout : TableDef<CappedWithLayout>("cappedWithLayout", {
    maxCapacity = 1_000_000
    handleLayout = HandleLayout.DEFAULT
}) {
    val X = float("x")
}

/** A Kotlin declaration's handle layout follows its maxCapacity as the core builder's does. */
class LayoutFollowsCapacityTest : FunSpec({
    test("a capped declaration with no layout gets forCapacity's; one with a layout keeps it") {
        Capped.open().use { it.core.handleLayout() shouldBe HandleLayout.forCapacity(1_000_000) }
        CappedWithLayout.open().use { it.core.handleLayout() shouldBe HandleLayout.DEFAULT }
        Particles.open().use { it.core.handleLayout() shouldBe HandleLayout.DEFAULT }
    }
})
