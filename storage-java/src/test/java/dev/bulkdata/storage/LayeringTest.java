package dev.bulkdata.storage;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layers of storage-java (ARCHITECTURE.md, "Layers"), checked on the compiled classes: the
 * internal packages form no cycle among themselves; memory and tags know nothing of files or
 * events; events knows no table type; and below the API package, only its value types (schema,
 * fields, layouts, orders, the exceptions a user catches, the checkpoint report) are used.
 */
class LayeringTest {
    private static final String ROOT = "dev.bulkdata.storage";

    /** The API package's types that the internal packages may use: values, not tables. */
    private static final Pattern VALUES = Pattern.compile(Pattern.quote(ROOT) + "\\.(Schema|Field|FieldType"
            + "|(Boolean|Byte|Char|Short|Int|Long|Float|Double|Handle)Field|RecordLayout|HandleLayout|ReuseOrder"
            + "|CapacityExceededException|StorageFileException|OpenedCheckpoint|CheckpointFallback)(\\$.*)?");

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void theClassesAreImported() {
        // A rule over no classes passes vacuously: make sure the import found the module.
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".Table"), "target/classes was not imported");
        org.junit.jupiter.api.Assertions.assertTrue(MAIN.contain(ROOT + ".internal.memory.BlockArena"));
    }

    @Test
    void internalPackages_formNoCycle() {
        slices().matching(ROOT + ".internal.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void internalPackages_useOnlyTheApisValueTypes() {
        DescribedPredicate<JavaClass> apiButNotAValue = DescribedPredicate.describe(
                "are in " + ROOT + " and are not one of its value types",
                c -> {
                    JavaClass type = c.isArray() ? c.getBaseComponentType() : c;
                    return type.getPackageName().equals(ROOT) && !VALUES.matcher(type.getName()).matches();
                });
        noClasses().that().resideInAPackage(ROOT + ".internal..")
                .should().dependOnClassesThat(apiButNotAValue).check(MAIN);
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
