package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.Table
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.jetbrains.kotlin.cli.common.ExitCode
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.nio.file.Files

private fun jarOf(type: Class<*>): String = File(type.protectionDomain.codeSource.location.toURI()).path

/** Declarations every snippet sees: two tables and a component declaration. */
private val HEADER = listOf(
    "import dev.bulkdata.storage.kotlin.*",
    "object Sounds2 : TableDef<Sounds2>(\"sounds2\") { val VOLUME = float(\"volume\") }",
    "object Parts2 : TableDef<Parts2>(\"parts2\") { val X = float(\"x\") }",
    "object Pos2 : TableDef<Pos2>(\"pos2\") { val PX = float(\"px\") }",
    "object Refs2 : TableDef<Refs2>(\"refs2\") { val TO = handle<Sounds2>(\"to\") }",
)

/** The line number of a snippet's first line in the compiled file. */
private val FIRST_LINE = HEADER.size + 1

/** Compiles [code] against this module, storage-java and the stdlib; returns exit code and output. */
private fun compile(code: String): Pair<ExitCode, String> {
    val dir = Files.createTempDirectory("typesafety")
    val source = dir.resolve("Snippet.kt")
    Files.writeString(source, HEADER.joinToString("\n", postfix = "\n") + code)
    val classpath = listOf(Handle::class.java, Table::class.java, Unit::class.java)
        .map(::jarOf).distinct().joinToString(File.pathSeparator)
    val out = ByteArrayOutputStream()
    val exit = K2JVMCompiler().exec(
        PrintStream(out, true),
        "-jdk-home", System.getProperty("java.home"),
        "-no-stdlib", "-no-reflect", "-jvm-target", "25",
        "-classpath", classpath,
        "-d", dir.resolve("out").toString(),
        source.toString(),
    )
    dir.toFile().deleteRecursively()
    return exit to out.toString()
}

/**
 * Compiles [lines], one function each, and checks that every line fails with an error that
 * contains its expected text, and that no other line has an error. An error's text runs from its
 * `Snippet.kt:line:` position to the next error.
 */
private fun shouldNotCompile(vararg lines: Pair<String, String>) {
    val (exit, out) = compile(lines.joinToString("\n", postfix = "\n") { it.first })
    exit shouldBe ExitCode.COMPILATION_ERROR
    val errors = Regex("Snippet\\.kt:(\\d+):\\d+: error: ").findAll(out).toList()
    val byLine = errors.mapIndexed { i, match ->
        val end = if (i + 1 < errors.size) errors[i + 1].range.first else out.length
        match.groupValues[1].toInt() to out.substring(match.range.first, end)
    }
    lines.forEachIndexed { i, (code, expected) ->
        val line = FIRST_LINE + i
        withClue("line $line, `$code`, in:\n$out") {
            val text = byLine.filter { it.first == line }.joinToString("\n") { it.second }
            text shouldContain expected
        }
    }
    withClue(out) { byLine.map { it.first }.toSet() shouldBe lines.indices.map { FIRST_LINE + it }.toSet() }
}

/** The Kotlin issue's type-safety points, checked by the compiler itself. */
class TypeSafetyTest : FunSpec({
    test("the same code with matching handles, columns, chunks, rows and orders compiles") {
        val (exit, out) = compile(
            """
            fun ok(t: TypedTable<Parts2>, h: Handle<Parts2>): Float = t[h, Parts2.X]
            fun chunk(t: TypedTable<Parts2>) = t.forEachChunk { c -> c[0, Parts2.X] = c[0, Parts2.X] + 1f }
            fun handle(t: TypedTable<Parts2>) = t.forEachChunk { c -> t[c.handle(0), Parts2.X] }
            fun views(t: TypedTable<Parts2>) = t.forEachChunk { c ->
                val x = c.writableView(Parts2.X)
                val y = c.view(Parts2.X)
                c.forEachLive { s -> x[s] = y[s] + x[s] }
            }
            @OptIn(RawMemoryApi::class)
            fun raw(t: TypedTable<Parts2>) = t.forEachChunk { c ->
                c.column(Parts2.X); c.records(); c.writableColumn(Parts2.X); c.writableRecords(); c.core
            }
            fun changed(t: TypedTable<Parts2>, v: Int) =
                t.forEachChunk(changeFilter(Parts2.X), v) { c -> c.changedSince(Parts2.X, v) }
            fun order(t: TypedTable<Parts2>) = t.defragment(1, TypedRecordOrder { a, b -> t[a, Parts2.X].compareTo(t[b, Parts2.X]) })
            fun comp(p: TypedComponentTable<Parts2, Pos2>, h: Handle<Parts2>) { p[h, Pos2.PX] = 1f }
            fun rows(p: TypedComponentTable<Parts2, Pos2>) = p.forEach { e, r -> p[r, Pos2.PX] += 1f }
            fun joined(p: TypedComponentTable<Parts2, Pos2>, q: TypedComponentTable<Parts2, Sounds2>) =
                join(p, q).forEach { e, a, b -> p[a, Pos2.PX] = q[b, Sounds2.VOLUME] }
            fun ref(t: TypedTable<Refs2>, h: Handle<Refs2>, s: Handle<Sounds2>): Handle<Sounds2> { t[h, Refs2.TO] = s; return t[h, Refs2.TO] }
            """.trimIndent(),
        )
        withClue(out) { exit shouldBe ExitCode.OK }
    }

    test("a handle of one table does not compile where another's is expected") {
        shouldNotCompile(
            "fun wrong(t: TypedTable<Parts2>, h: Handle<Sounds2>): Float = t[h, Parts2.X]" to
                "actual type is 'Handle<Sounds2>', but 'Handle<Parts2>' was expected",
        )
    }

    test("a column of one table does not compile where another's is expected") {
        shouldNotCompile(
            "fun wrong(t: TypedTable<Parts2>, h: Handle<Parts2>): Float = t[h, Sounds2.VOLUME]" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected",
        )
    }

    test("a column of table B on a chunk of table A does not compile, nor on an untyped core chunk") {
        shouldNotCompile(
            "fun a(t: TypedTable<Parts2>) = t.forEachChunk { c -> c[0, Sounds2.VOLUME] }" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected",
            "fun b(t: TypedTable<Parts2>) = t.forEachChunk { c -> c[0, Sounds2.VOLUME] = 1f }" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected",
            "fun c(t: TypedTable<Parts2>, s: TypedTable<Sounds2>) = t.forEachChunk { c -> s[c.handle(0), Sounds2.VOLUME] }" to
                "actual type is 'Handle<Parts2>', but 'Handle<Sounds2>' was expected",
            "fun d(c: dev.bulkdata.storage.Chunk) = c[0, Sounds2.VOLUME]" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatField!' was expected",
            "fun e(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.changedSince(Sounds2.VOLUME, 0) }" to
                "actual type is 'FloatColumn<Sounds2>', but 'Column<Parts2, *>' was expected",
            "fun f(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.view(Sounds2.VOLUME) }" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected",
            "fun g(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.writableView(Sounds2.VOLUME) }" to
                "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected",
            "fun h(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.view(Parts2.X)[0] = 1f }" to
                "set",
        )
    }

    test("a handle column takes and gives handles of its target table only") {
        shouldNotCompile(
            "fun a(t: TypedTable<Refs2>, h: Handle<Refs2>, p: Handle<Parts2>) { t[h, Refs2.TO] = p }" to
                "column: HandleColumn<Refs2, T>, value: Handle<T>): Unit:\n  Argument type mismatch: actual type is 'Handle<Parts2>'",
            "fun b(t: TypedTable<Refs2>, h: Handle<Refs2>): Handle<Parts2> = t[h, Refs2.TO]" to
                "expected 'Handle<Parts2>', actual 'Handle<Sounds2>'",
            "fun c(t: TypedTable<Refs2>, h: Handle<Refs2>) = t.forEachChunk { c -> c[0, Refs2.TO] = h }" to
                "column: HandleColumn<Refs2, T>, value: Handle<T>): Unit:\n  Argument type mismatch: actual type is 'Handle<Refs2>'",
        )
    }

    test("raw memory of a chunk does not compile without opting in to RawMemoryApi") {
        val message = "raw off-heap memory: a MemorySegment is not checked per access"
        shouldNotCompile(
            "fun a(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.column(Parts2.X) }" to message,
            "fun b(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.records() }" to message,
            "fun c(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.core }" to message,
            "fun d(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.writableColumn(Parts2.X) }" to message,
            "fun e(t: TypedTable<Parts2>) = t.forEachChunk { c -> c.writableRecords() }" to message,
        )
    }

    test("component tables, joins and orders reject another table's handles, rows and columns") {
        shouldNotCompile(
            "fun a(p: TypedComponentTable<Parts2, Pos2>, h: Handle<Sounds2>) = p[h, Pos2.PX]" to
                "actual type is 'Handle<Sounds2>', but 'Handle<Parts2>' was expected",
            "fun b(p: TypedComponentTable<Parts2, Pos2>, h: Handle<Parts2>) = p[h, Parts2.X]" to
                "actual type is 'FloatColumn<Parts2>', but 'FloatColumn<Pos2>' was expected",
            "fun c(p: TypedComponentTable<Parts2, Pos2>, q: TypedComponentTable<Parts2, Sounds2>) =" +
                " join(p, q).forEach { e, a, b -> p[b, Pos2.PX] }" to
                "actual type is 'Row<Sounds2>', but 'Row<Pos2>' was expected",
            "fun d(p: TypedComponentTable<Parts2, Pos2>, q: TypedComponentTable<Sounds2, Pos2>) = join(p, q)" to
                "TypedComponentTable<Sounds2, Pos2>",
            "fun e(t: TypedTable<Parts2>) = t.defragment(1, TypedRecordOrder<Sounds2> { a, b -> 0 })" to
                "actual type is 'TypedRecordOrder<Sounds2>', but 'TypedRecordOrder<Parts2>' was expected",
            "fun f(p: TypedComponentTable<Parts2, Pos2>) = p.forEach { e, r -> Pos2.open()[e, Pos2.PX] }" to
                "actual type is 'Handle<Parts2>', but 'Handle<Pos2>' was expected",
        )
    }
})
