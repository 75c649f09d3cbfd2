package dev.bulkdata.storage.kotlin;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.PackedTable;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;
import dev.bulkdata.storage.Snapshots;
import dev.bulkdata.storage.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plain Java using tables declared in Kotlin ({@link Particles}, {@link Bullets}): it declares
 * nothing itself, opens a table with one static call, uses the columns as static fields typed by
 * table, and reaches the core API through {@code core()} and {@code field()}.
 */
class JavaInteropTest {
    @Test
    void kotlinDeclaredTable_endToEnd_fromJava() {
        try (TypedTable<Particles> table = Particles.openTable()) {
            long[] handles = new long[1000];
            for (int i = 0; i < handles.length; i++) {
                long h = table.add();
                table.set(h, Particles.X, i);
                table.set(h, Particles.VX, 1f);
                table.set(h, Particles.AGE, i);
                handles[i] = h;
            }
            assertEquals(7f, table.get(handles[7], Particles.X));
            assertEquals(1000, table.size());

            FloatField x = Particles.X.field();                  // the core field, for chunks
            FloatField vx = Particles.VX.field();
            try (ChunkIteration chunks = table.core().iterate()) {
                for (Chunk chunk : chunks) {
                    for (int s = chunk.nextLive(0); s >= 0; s = chunk.nextLive(s + 1)) {
                        chunk.set(s, x, chunk.get(s, x) + chunk.get(s, vx));
                    }
                }
            }
            assertEquals(8f, table.get(handles[7], Particles.X));

            long removed = handles[7];
            table.remove(removed);
            assertFalse(table.contains(removed));
            InvalidHandleException stale = assertThrows(InvalidHandleException.class,
                    () -> table.get(removed, Particles.X));
            assertEquals(InvalidHandleException.Reason.STALE, stale.reason());
            assertEquals(999, table.size());
            assertTrue(table.contains(handles[8]));
            assertEquals(9f, table.get(handles[8], Particles.X));
            assertEquals(table.core().format(handles[8]), table.format(handles[8]));
        }
    }

    @Test
    void aKotlinTable_fromJava_withLongHandlesAndTheCoreApi() {
        float x;
        boolean stale;
        // doc:begin docs/kotlin.md
        try (TypedTable<Particles> table = Particles.openTable()) {   // one static call
            long h = table.add();                                      // handles are longs
            table.set(h, Particles.X, 1f);                             // columns: static fields typed by table
            FloatField px = Particles.X.field();                       // the core field, for the core API
            table.core().forEach((chunk, slot) -> chunk.set(slot, px, chunk.get(slot, px) * 2));
            x = table.get(h, Particles.X);                             // 2.0; Sounds.VOLUME would not compile
            table.remove(h);
            stale = !table.contains(h);                                // true
        }
        // doc:end
        assertEquals(2f, x);
        assertTrue(stale);
    }

    @Test
    void everyColumnType_roundTrips_fromJava() {
        try (TypedTable<Particles> table = Particles.openTable()) {
            long h = table.add();
            table.set(h, Particles.KIND, (byte) 1);
            table.set(h, Particles.FLAGS, (short) 2);
            table.set(h, Particles.CODE, 'c');
            table.set(h, Particles.AGE, 3);
            table.set(h, Particles.ID, 4L);
            table.set(h, Particles.X, 5f);
            table.set(h, Particles.MASS, 6.0);
            table.set(h, Particles.ALIVE, true);
            assertEquals((byte) 1, table.get(h, Particles.KIND));
            assertEquals((short) 2, table.get(h, Particles.FLAGS));
            assertEquals('c', table.get(h, Particles.CODE));
            assertEquals(3, table.get(h, Particles.AGE));
            assertEquals(4L, table.get(h, Particles.ID));
            assertEquals(5f, table.get(h, Particles.X));
            assertEquals(6.0, table.get(h, Particles.MASS));
            assertTrue(table.get(h, Particles.ALIVE));
            assertEquals(6.0, table.core().get(h, Particles.MASS.field()));   // the same record through the core
        }
    }

    @Test
    void columnsAndDeclaration_areStatic_andNamedPlainly() throws ReflectiveOperationException {
        assertEquals("particles", Particles.INSTANCE.name());
        assertEquals("x", Particles.X.name());
        assertEquals(FieldType.FLOAT, Particles.X.type());
        assertSame(Particles.INSTANCE, Particles.X.table());
        assertSame(Particles.INSTANCE.schema().floatField("x"), Particles.X.field());

        Field x = Particles.class.getField("X");
        assertTrue(Modifier.isStatic(x.getModifiers()) && Modifier.isFinal(x.getModifiers()));
        assertEquals(FloatColumn.class, x.getType());
        assertEquals("dev.bulkdata.storage.kotlin.FloatColumn<dev.bulkdata.storage.kotlin.Particles>",
                x.getGenericType().getTypeName());
        Method open = Particles.class.getMethod("openTable");
        assertTrue(Modifier.isStatic(open.getModifiers()));
        try (TypedTable<Particles> table = Particles.openTable()) {
            assertSame(Particles.INSTANCE, table.def());
            assertEquals("particles", table.core().name());
            assertEquals("null", table.core().format(0L));
            assertTrue(table.isEmpty());
        }
    }

    @Test
    void coreApi_takesTheTable_andTheColumnsFields() {
        try (TypedTable<Bullets> bullets = Bullets.openTable();
             TypedTable<Particles> particles = Particles.openTable();
             ComponentTable extra = ComponentTable.of(bullets.core(), Particles.INSTANCE.schema())) {
            long b = bullets.add();
            extra.add(b);
            extra.set(b, Particles.X.field(), 2f);
            assertEquals(2f, extra.get(b, Particles.X.field()));
            // a Bullets handle is foreign to a Particles table: checked at run time, as in the core
            InvalidHandleException foreign = assertThrows(InvalidHandleException.class,
                    () -> particles.get(b, Particles.X));
            assertEquals(InvalidHandleException.Reason.FOREIGN, foreign.reason());
        }
    }

    @Test
    void packedTable_defragments_fromJava_withALambda() {
        try (TypedTable<Bullets> table = Bullets.openTable()) {
            long[] handles = new long[100];
            for (int i = 0; i < handles.length; i++) {
                handles[i] = table.add();
                table.set(handles[i], Bullets.DAMAGE, 100 - i);
            }
            TypedRecordOrder<Bullets> byDamage =
                    (a, b) -> Integer.compare(table.get(a, Bullets.DAMAGE), table.get(b, Bullets.DAMAGE));
            assertEquals(100L * 99 / 2, table.defragment(100_000, byDamage));   // reversed: n(n-1)/2 swaps
            assertEquals(0L, table.defragment(100_000, byDamage));
            assertTrue(table.core() instanceof PackedTable);
            for (int i = 0; i < handles.length; i++) {
                assertEquals(100 - i, table.get(handles[i], Bullets.DAMAGE));
            }
        }
    }

    /**
     * Plain Java loads a table saved from a Kotlin declaration: with the declaration's schema
     * (its columns' fields then work on the loaded core table), with the file's own schema (fields
     * by name), and with a schema that differs, which fails clearly.
     */
    @Test
    void javaLoadsATableSavedFromAKotlinDeclaration(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bullets.bulk");
        long[] handles = new long[300];
        try (TypedTable<Bullets> table = Bullets.openTable()) {
            for (int i = 0; i < handles.length; i++) {
                handles[i] = table.add();
                table.set(handles[i], Bullets.DAMAGE, i);
            }
            table.remove(handles[5]);
            table.save(file);
        }
        try (PackedTable loaded = Snapshots.load(file, PackedTable.class, Bullets.INSTANCE.schema())) {
            assertSame(Bullets.INSTANCE.schema(), loaded.schema(), "the declaration's own schema");
            assertEquals(handles.length - 1, loaded.size());
            assertFalse(loaded.contains(handles[5]));
            for (int i = 0; i < handles.length; i++) {
                if (i != 5) {
                    assertEquals(i, loaded.get(handles[i], Bullets.DAMAGE.field()));  // handles from before the save
                }
            }
        }
        try (Table loaded = Snapshots.load(file)) {                         // no declaration at all
            IntField damage = loaded.schema().intField("damage");
            assertEquals(299, loaded.get(handles[299], damage));
            assertEquals("bullets", loaded.name());
        }
        Schema other = Schema.builder("bullets").add(FieldType.FLOAT, "x").add(FieldType.LONG, "damage").build();
        StorageFileException e = assertThrows(StorageFileException.class, () -> Snapshots.load(file, other));
        assertEquals(StorageFileException.Reason.SCHEMA_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("damage:INT, expected damage:LONG"),
                e.getMessage());

        // The other way round: a file of a Java schema with one column fewer than the declaration:
        // the declaration's added column loads as zero, and the saved handle stays valid.
        Path javaFile = dir.resolve("java-bullets.bulk");
        long saved;
        try (Table t = PackedTable.of(Schema.builder("bullets").add(FieldType.FLOAT, "x").build())) {
            saved = t.add();
            t.set(saved, t.schema().floatField("x"), 7f);
            Snapshots.save(t, javaFile);
        }
        try (TypedTable<Bullets> loaded = Bullets.INSTANCE.load(javaFile)) {
            assertEquals(7f, loaded.core().get(saved, Bullets.X.field()));
            assertEquals(0, loaded.core().get(saved, Bullets.DAMAGE.field()));
        }
    }

    /** Nothing of the Kotlin layer reaches Java as a public field, or as a name Java should not call. */
    @Test
    void kotlinLayer_hasNoPublicFields_andJavaCallableNames() throws IOException, ClassNotFoundException {
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("target/classes/dev/bulkdata/storage/kotlin"))) {
            for (Path file : (Iterable<Path>) files.sorted()::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(".class")) {
                    classes.add(Class.forName("dev.bulkdata.storage.kotlin." + name.substring(0, name.length() - 6)));
                }
            }
        }
        assertTrue(classes.contains(TypedTable.class) && classes.contains(TypedChunk.class), classes.toString());
        List<String> problems = new ArrayList<>();
        for (Class<?> type : classes) {
            if (!Modifier.isPublic(type.getModifiers()) || type.isSynthetic()) {
                continue;
            }
            for (Field field : type.getFields()) {
                if (!field.isEnumConstant()) {
                    problems.add("public field " + field);
                }
            }
        }
        for (Class<?> type : List.of(TypedTable.class, TableDef.class, Column.class, FloatColumn.class,
                HandleColumn.class, TableOptions.class)) {
            for (Method method : type.getMethods()) {
                if (method.isSynthetic() || method.isBridge() || method.getDeclaringClass() == Object.class) {
                    continue;
                }
                if (!method.getName().matches("[A-Za-z][A-Za-z0-9]*")) {
                    problems.add("name Java should not call: " + method);
                }
                List<Class<?>> types = new ArrayList<>(List.of(method.getParameterTypes()));
                types.add(method.getReturnType());
                for (Class<?> t : types) {
                    if (t.getName().startsWith("kotlin.")) {
                        problems.add("Kotlin type in a Java signature: " + method);
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    /** Java's generics check the table of a column too. */
    @Test
    void columnOfAnotherTable_doesNotCompileInJava() throws IOException {
        String ok = "class Ok { float f(dev.bulkdata.storage.kotlin.TypedTable<dev.bulkdata.storage.kotlin.Particles> t,"
                + " long h) { return t.get(h, dev.bulkdata.storage.kotlin.Particles.X); } }";
        String wrong = "class Wrong { float f(dev.bulkdata.storage.kotlin.TypedTable<dev.bulkdata.storage.kotlin.Particles> t,"
                + " long h) { return t.get(h, dev.bulkdata.storage.kotlin.Sounds.VOLUME); } }";
        assertEquals(List.of(), javac("Ok", ok));
        List<String> errors = javac("Wrong", wrong);
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("FloatColumn<dev.bulkdata.storage.kotlin.Sounds>"), errors.toString());
    }

    /** Compiles one class against the test class path; returns the error messages. */
    private static List<String> javac(String name, String code) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject source = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
        String classpath = Stream.of(TypedTable.class, Particles.class, Table.class, kotlin.Unit.class)
                .map(JavaInteropTest::location).distinct().collect(Collectors.joining(File.pathSeparator));
        Path out = Files.createTempDirectory("javainterop");
        try {
            compiler.getTask(null, null, diagnostics, List.of("-proc:none", "-d", out.toString(), "-classpath", classpath),
                    null, List.of(source)).call();
        } finally {
            try (Stream<Path> files = Files.walk(out)) {
                for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(file);
                }
            }
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> d.getMessage(null))
                .toList();
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
