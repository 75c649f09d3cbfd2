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

/** Compiles [code] against this module, storage-java and the stdlib; returns exit code and output. */
private fun compile(code: String): Pair<ExitCode, String> {
    val dir = Files.createTempDirectory("typesafety")
    val source = dir.resolve("Snippet.kt")
    Files.writeString(
        source,
        "import dev.bulkdata.storage.kotlin.*\n" +
            "object Sounds2 : TableDef<Sounds2>(\"sounds2\") { val VOLUME = float(\"volume\") }\n" +
            "object Parts2 : TableDef<Parts2>(\"parts2\") { val X = float(\"x\") }\n" +
            code,
    )
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

/** Point 1 of the Kotlin issue, checked by the compiler itself. */
class TypeSafetyTest : FunSpec({
    test("the same code with matching handles and columns compiles") {
        val (exit, out) = compile(
            "fun ok(t: TypedTable<Parts2>, h: Handle<Parts2>): Float = t[h, Parts2.X]\n",
        )
        withClue(out) { exit shouldBe ExitCode.OK }
    }

    test("a handle of one table does not compile where another's is expected") {
        val (exit, out) = compile(
            "fun wrong(t: TypedTable<Parts2>, h: Handle<Sounds2>): Float = t[h, Parts2.X]\n",
        )
        exit shouldBe ExitCode.COMPILATION_ERROR
        out shouldContain "Snippet.kt:4:" // the snippet's line, not the declarations above it
        out shouldContain "actual type is 'Handle<Sounds2>', but 'Handle<Parts2>' was expected"
    }

    test("a column of one table does not compile where another's is expected") {
        val (exit, out) = compile(
            "fun wrong(t: TypedTable<Parts2>, h: Handle<Parts2>): Float = t[h, Sounds2.VOLUME]\n",
        )
        exit shouldBe ExitCode.COMPILATION_ERROR
        out shouldContain "Snippet.kt:4:"
        out shouldContain "actual type is 'FloatColumn<Sounds2>', but 'FloatColumn<Parts2>' was expected"
    }
})
