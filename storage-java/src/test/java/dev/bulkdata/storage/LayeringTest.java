package dev.bulkdata.storage;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layers of storage-java (ARCHITECTURE.md, "Layers"), checked on the compiled classes: its packages, the API
 * package as a slice of its own, form no cycle; the internal packages and {@code schema} never use the API package;
 * {@code schema}, the value types, uses no other package of the module; the core (the slot engine) uses no other
 * internal package; memory and tags know nothing of files or events; events knows no table type.
 */
class LayeringTest {
    private static final String ROOT = "dev.bulkdata.storage";

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void theClassesAreImported() {
        // A rule over no classes passes vacuously: make sure the import found the module.
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".Table"), "target/classes was not imported");
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".internal.memory.BlockArena"));
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".schema.Schema"));
    }

    @Test
    void packages_formNoCycle_theApiPackageIncluded() {
        SliceAssignment byPackage = new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String p = c.getPackageName();
                return p.equals(ROOT) || p.startsWith(ROOT + ".") ? SliceIdentifier.of(p) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the packages of " + ROOT;
            }
        };
        slices().assignedFrom(byPackage).should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void internalAndSchema_neverUseTheApiPackage() {
        noClasses().that().resideInAnyPackage(ROOT + ".internal..", ROOT + ".schema..")
                .should().dependOnClassesThat().resideInAPackage(ROOT).check(MAIN);
    }

    @Test
    void schema_usesNoOtherPackageOfTheModule() {
        noClasses().that().resideInAPackage(ROOT + ".schema..")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage(ROOT + "..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage(ROOT + ".schema.."))))
                .check(MAIN);
    }

    @Test
    void schema_publishesNoRawMemoryAccess() {
        // The engine's raw access (internal.core FieldAccess, SchemaAccess) stays out of the exported value types.
        java.util.List<String> raw = MAIN.stream().filter(c -> c.getPackageName().equals(ROOT + ".schema"))
                .flatMap(c -> c.getCodeUnits().stream())
                .filter(m -> m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                .filter(m -> m.getRawParameterTypes().stream()
                        .anyMatch(t -> t.isEquivalentTo(java.lang.foreign.MemorySegment.class)))
                .map(m -> m.getFullName()).toList();
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), raw);
    }

    @Test
    void core_usesNoOtherInternalPackage() {
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".internal.core.SlotMap"));
        noClasses().that().resideInAPackage(ROOT + ".internal.core..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".internal.format..",
                        ROOT + ".internal.events..", ROOT + ".internal.tags..", ROOT + ".internal.memory..")
                .check(MAIN);
    }

    @Test
    void memoryAndTags_knowNothingOfFilesOrEvents() {
        noClasses().that().resideInAnyPackage(ROOT + ".internal.memory..", ROOT + ".internal.tags..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".internal.format..", ROOT + ".internal.events..")
                .check(MAIN);
        noClasses().that().resideInAPackage(ROOT + ".internal.tags..")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".internal.memory..")
                .check(MAIN);
    }

    @Test
    void events_knowNoTableTypeAndNoFile() {
        noClasses().that().resideInAPackage(ROOT + ".internal.events..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT, ROOT + ".internal.format..")
                .check(MAIN);
    }
}
