package dev.bulkdata.storage.kotlin

import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.nio.file.Path

/** storage-kotlin uses storage-java's exported API only, and its own packages form no cycle. */
class LayeringTest : FunSpec({
    val main = ClassFileImporter().importPath(Path.of("target/classes"))

    test("the module's classes are imported") {
        main.contain("dev.bulkdata.storage.kotlin.TableDef") shouldBe true
    }

    test("no class uses storage-java's internal packages") {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.bulkdata.storage.internal..").check(main)
    }

    test("no package cycle") {
        slices().matching("dev.bulkdata.(**)").should().beFreeOfCycles().check(main)
    }
})
