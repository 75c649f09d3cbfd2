package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.CheckpointFallback
import dev.bulkdata.storage.schema.OpenedCheckpoint
import dev.bulkdata.storage.schema.StorageFileException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Files
import java.nio.file.StandardOpenOption

object SummedShips : TableDef<SummedShips>("summed_ships", {
    tag = 4013
    blockChecksums = true
    checkpointFallback = CheckpointFallback.NEVER
}) {
    val X = float("x")
}

object PlainShips : TableDef<PlainShips>("summed_ships", { tag = 4013 }) {
    val X = float("x")
}

class MappedIntegrityTest : FunSpec({
    test("blockChecksums and checkpointFallback reach the core builder; verify and openedCheckpoint answer") {
        val file = Files.createTempFile("summed", ".bulk").also { Files.delete(it) }
        SummedShips.open(file).use { ships ->
            ships.openedCheckpoint.state() shouldBe OpenedCheckpoint.State.CREATED
            repeat(2_000) { i -> ships.add { it[SummedShips.X] = i.toFloat() } }
            ships.checkpoint()
            ships.verify() shouldBe ships.core.stats().blocks()
        }
        SummedShips.open(file).use { ships ->
            ships.openedCheckpoint.state() shouldBe OpenedCheckpoint.State.CLOSED
            ships.verify() shouldBe ships.core.stats().blocks()
        }
        shouldThrow<StorageFileException> { PlainShips.open(file) }.reason() shouldBe
            StorageFileException.Reason.SCHEMA_MISMATCH
        // Tear the older header slot: a fallback, which NEVER refuses and the default allows.
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE).use { c ->
            val h = ByteBuffer.allocate(8192).order(java.nio.ByteOrder.nativeOrder())
            c.read(h, 0)
            val older = if (h.getLong(4096 + 56) > h.getLong(56)) 0L else 4096L
            c.write(ByteBuffer.wrap(ByteArray(8) { 0x55 }), older + 30)
        }
        // Written by close(): the damaged older header is no fallback.
        SummedShips.open(file).use { it.openedCheckpoint.isFallback shouldBe false }
        Files.delete(file)
    }
})
