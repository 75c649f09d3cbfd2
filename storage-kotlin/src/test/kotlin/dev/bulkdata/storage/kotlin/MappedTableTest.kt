package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.StorageFileException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.nio.file.Files
import java.nio.file.Path

object MappedShips : TableDef<MappedShips>("mapped_ships", { tag = 4010 }) {
    val X = float("x")
    val HULL = int("hull")
}

object MappedDenseShips : TableDef<MappedDenseShips>("mapped_dense", { tag = 4011; kind = TableKind.PACKED }) {
    val X = float("x")
}

private val fixedFile: Path = Files.createTempFile("fixed-ships", ".bulk").also { Files.delete(it) }

object FileShips : TableDef<FileShips>("file_ships", { tag = 4012; file = fixedFile }) {
    val X = float("x")
}

class MappedTableTest : FunSpec({
    test("open(file) maps the table; typed handles are valid after close and reopen, and checkpoint works") {
        val file = Files.createTempFile("ships", ".bulk").also { Files.delete(it) }
        val kept = ArrayList<Handle<MappedShips>>()
        MappedShips.open(file).use { ships ->
            repeat(1_000) { i -> kept += ships.add { it[MappedShips.X] = i.toFloat(); it[MappedShips.HULL] = i } }
            ships.remove(kept.removeAt(10))
            ships.checkpoint()
            ships[kept[0], MappedShips.HULL] = -1 // after the checkpoint: close checkpoints it
        }
        MappedShips.open(file).use { ships ->
            ships.size shouldBe 999
            ships[kept[0], MappedShips.HULL] shouldBe -1
            ships[kept[500], MappedShips.X] shouldBe ships[kept[500], MappedShips.HULL].toFloat()
            shouldThrow<StorageFileException> { MappedShips.open(file) }.reason() shouldBe StorageFileException.Reason.LOCKED
        }
        Files.delete(file)
    }

    test("a PACKED declaration maps too, and the file refuses another declaration") {
        val file = Files.createTempFile("dense", ".bulk").also { Files.delete(it) }
        val h = MappedDenseShips.open(file).use { it.add { r -> r[MappedDenseShips.X] = 3f } }
        MappedDenseShips.open(file).use { it[h, MappedDenseShips.X] shouldBe 3f }
        shouldThrow<StorageFileException> { MappedShips.open(file) }.reason() shouldBe
            StorageFileException.Reason.KIND_MISMATCH
        Files.delete(file)
    }

    test("the file option makes open() map that file: a TypedMappedTable") {
        val h = FileShips.open().use { t ->
            (t is TypedMappedTable<*>) shouldBe true
            t.add { r -> r[FileShips.X] = 5f }
        }
        FileShips.open().use { it[h, FileShips.X] shouldBe 5f }
        Files.delete(fixedFile)
    }

    test("only a mapped table has a checkpoint: a table in memory is no TypedMappedTable") {
        Ships2.open().use { t ->
            (t is TypedMappedTable<*>) shouldBe false
            (t.core is dev.bulkdata.storage.MappedTable) shouldBe false
        }
    }
})

object Ships2 : TableDef<Ships2>("ships2") {
    val X = float("x")
}
