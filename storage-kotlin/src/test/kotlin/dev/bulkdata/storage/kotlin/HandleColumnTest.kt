package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.schema.FieldType
import dev.bulkdata.storage.schema.StorageFileException
import dev.bulkdata.storage.Snapshots
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Path
import kotlin.random.Random

/** Clips that voices play: the target of [Voices.CLIP]. */
object Clips : TableDef<Clips>("clips", { tag = 4010 }) {
    @JvmField val LENGTH = float("length")
}

/** Voices refer to a clip and to the next voice of their chain (their own table). */
object Voices : TableDef<Voices>("voices", {
    tag = 4011
    kind = TableKind.PACKED
}) {
    @JvmField val GAIN = float("gain")
    @JvmField val CLIP = handle<Clips>("clip")
    @JvmField val NEXT = handle<Voices>("next")
}

/** Two declarations that refer to each other. */
object Left : TableDef<Left>("left") {
    @JvmField val RIGHT = handle<Right>("right")
}

object Right : TableDef<Right>("right") {
    @JvmField val LEFT = handle<Left>("left")
}

/** Handle columns: typed `Handle<T>` values everywhere a column is read or written, and across a save and load. */
class HandleColumnTest {
    @TempDir
    lateinit var dir: Path

    @Test
    fun declaration_namesItsTarget_evenForItselfAndForACycle() {
        assertSame(Clips, Voices.CLIP.target)
        assertSame(Voices, Voices.NEXT.target)
        assertEquals(FieldType.HANDLE, Voices.CLIP.type)
        assertEquals("clips", Voices.schema.handleField("clip").target())
        assertEquals("voices", Voices.NEXT.field.target())
        assertEquals("right", Left.RIGHT.field.target())
        assertEquals("left", Right.LEFT.field.target())
    }

    @Test
    fun readAndWrite_typedHandles_byTableScopeChunkAndComponent() {
        Clips.open().use { clips ->
            Voices.open().use { voices ->
                val clip: Handle<Clips> = clips.add { it[Clips.LENGTH] = 2f }
                val first = voices.add()
                assertTrue(voices[first, Voices.CLIP].isNull, "a new record holds the null handle")
                voices[first, Voices.CLIP] = clip
                val second = voices.add {
                    it[Voices.CLIP] = clip
                    it[Voices.NEXT] = first
                }
                assertEquals(clip, voices[second, Voices.CLIP])
                assertEquals(2f, clips[voices[second, Voices.CLIP], Clips.LENGTH])
                var chained = 0
                voices.forEach {
                    if (!it[Voices.NEXT].isNull) {
                        chained++
                        it[Voices.NEXT][Voices.GAIN] = 0.5f                // the next voice, by its handle
                    }
                }
                assertEquals(1, chained)
                assertEquals(0.5f, voices[first, Voices.GAIN])
                voices.forEachChunk { chunk ->
                    var s = chunk.nextLive(0)
                    while (s >= 0) {
                        assertEquals(clip, chunk[s, Voices.CLIP])
                        chunk[s, Voices.CLIP] = Clips.NULL
                        s = chunk.nextLive(s + 1)
                    }
                }
                assertTrue(voices[first, Voices.CLIP].isNull)
                Voices.openComponents(clips).use { extra ->                  // a voice per clip
                    extra.add(clip)
                    extra[clip, Voices.CLIP] = clip
                    assertEquals(clip, extra[clip, Voices.CLIP])
                    extra.forEach { _, row -> extra[row, Voices.NEXT] = second }
                    assertEquals(second, extra[clip, Voices.NEXT])
                }
            }
        }
    }

    @Test
    fun saveAndLoad_keepsTypedReferences_andNewTagLoadsRemap() {
        val clipsFile = dir.resolve("clips.bulk")
        val voicesFile = dir.resolve("voices.bulk")
        val random = Random(11)
        val expected = LinkedHashMap<Handle<Voices>, Handle<Clips>>()
        val removed = HashSet<Handle<Clips>>()
        Clips.open().use { clips ->
            Voices.open().use { voices ->
                val all = List(100) { i -> clips.add { it[Clips.LENGTH] = i.toFloat() } }
                for (i in 0 until 500) {
                    val clip = all[random.nextInt(all.size)]
                    expected[voices.add { it[Voices.CLIP] = clip }] = clip
                }
                all.filterIndexed { i, _ -> i % 7 == 0 }.forEach { clips.remove(it); removed += it }
                clips.save(clipsFile)
                voices.save(voicesFile)
            }
        }
        val dangling = expected.values.count { it in removed }.toLong()
        Clips.load(clipsFile).use { clips ->
            Voices.load(voicesFile).use { voices ->
                for ((voice, clip) in expected) {
                    assertEquals(clip, voices[voice, Voices.CLIP])          // typed handles survive the reload
                    assertEquals(clip !in removed, voices[voice, Voices.CLIP] in clips)
                }
                assertEquals(dangling, Snapshots.danglingReferences(voices.core, clips.core, voices.core))

                // Again under new tags, while these hold theirs: remap, then the references hold.
                Clips.load(clipsFile, Snapshots.LoadOption.NEW_TAG).use { clips2 ->
                    Voices.load(voicesFile, Snapshots.LoadOption.NEW_TAG).use { voices2 ->
                        assertEquals(expected.size.toLong(), Snapshots.remap(voices2.core, clips2.core))
                        assertEquals(dangling, Snapshots.danglingReferences(voices2.core, clips2.core))
                        var live = 0
                        voices2.forEach { if (it[Voices.CLIP] in clips2) live++ }
                        assertEquals(expected.size - dangling.toInt(), live)
                    }
                }
            }
        }
    }

    @Test
    fun componentTable_savesAndLoadsWithItsEntityTable_typed() {
        val clipsFile = dir.resolve("clips-e.bulk")
        val voicesFile = dir.resolve("voices-c.bulk")
        val kept = ArrayList<Pair<Handle<Clips>, Float>>()
        Clips.open().use { clips ->
            Voices.openComponents(clips).use { voices ->
                for (i in 0 until 300) {
                    val clip = clips.add()
                    if (i % 3 == 0) {
                        voices.add(clip)
                        voices[clip, Voices.GAIN] = i.toFloat()
                        voices[clip, Voices.CLIP] = clip                       // a clip's voice names it
                        kept += clip to i.toFloat()
                    }
                }
                clips.remove(kept[0].first)                                    // its component is stale
                clips.save(clipsFile)
                voices.save(voicesFile)
            }
        }
        Clips.load(clipsFile).use { clips ->
            Voices.loadComponents(voicesFile, clips).use { voices ->
                assertEquals(kept.size, voices.size, "the stale row is kept, as saved")
                assertFalse(kept[0].first in voices)
                for ((clip, gain) in kept.drop(1)) {
                    assertTrue(clip in voices)
                    assertEquals(gain, voices[clip, Voices.GAIN])
                    assertEquals(clip, voices[clip, Voices.CLIP])
                }
                assertEquals(1, voices.removeDead())
            }
            assertThrows(StorageFileException::class.java) { Clips.loadComponents(voicesFile, clips) }
        }
    }

    @Test
    fun loadingAFileWhoseHandleColumnNamesAnotherTable_failsWithSchemaMismatch() {
        val file = dir.resolve("left.bulk")
        // A plain core table named "left" whose handle field aims at "elsewhere".
        val schema = dev.bulkdata.storage.schema.Schema.builder("left").addHandle("right", "elsewhere").build()
        dev.bulkdata.storage.BulkTable.of(schema).use { t ->
            t.add()
            Snapshots.save(t, file)
        }
        val e = assertThrows(StorageFileException::class.java) { Left.load(file) }
        assertEquals(StorageFileException.Reason.SCHEMA_MISMATCH, e.reason())
        assertTrue(e.message!!.contains("right:HANDLE(elsewhere), expected right:HANDLE(right)"), e.message)
        assertFalse(e.message!!.isBlank())
    }
}
