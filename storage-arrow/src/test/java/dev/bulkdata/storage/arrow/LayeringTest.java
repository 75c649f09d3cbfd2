package dev.bulkdata.storage.arrow;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** storage-arrow uses storage-java's exported API only, and its own packages form no cycle. */
class LayeringTest {
    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void theClassesAreImported() {
        assertTrue(MAIN.contain("dev.bulkdata.storage.arrow.ArrowExport"), "target/classes was not imported");
    }

    @Test
    void noClassUsesStorageJavasInternals() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.bulkdata.storage.internal..").check(MAIN);
    }

    @Test
    void noPackageCycle() {
        slices().matching("dev.bulkdata.(**)").should().beFreeOfCycles().check(MAIN);
    }
}
