package dev.bulkdata.storage.kotlin

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.FlowPreview
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.flow.catch
import kotlinx.coroutines.flow.channelFlow
import kotlinx.coroutines.flow.collectLatest
import kotlinx.coroutines.flow.conflate
import kotlinx.coroutines.flow.count
import kotlinx.coroutines.flow.drop
import kotlinx.coroutines.flow.filter
import kotlinx.coroutines.flow.flatMapConcat
import kotlinx.coroutines.flow.flatMapLatest
import kotlinx.coroutines.flow.flatMapMerge
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.flowOn
import kotlinx.coroutines.flow.launchIn
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.mapLatest
import kotlinx.coroutines.flow.onCompletion
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.produceIn
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.flow.transform
import kotlinx.coroutines.flow.transformLatest
import kotlinx.coroutines.flow.withIndex
import kotlinx.coroutines.flow.zip
import kotlinx.coroutines.channels.produce
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import java.util.ConcurrentModificationException
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

private const val RECORDS = 20_000

/** The chunks of the test table. */
private typealias PChunk = TypedChunk<Particles>

private fun TypedTable<Particles>.fill() {
    repeat(RECORDS) { i -> add { it[Particles.AGE] = i } }
}

/**
 * Collects [flow] with [collect] and checks the guarantee for every chunk the collector gets,
 * the last one included: add() fails fast while the collector holds it. Returns the number of
 * chunks collected; afterwards add() works again (the iteration was closed).
 */
private suspend fun TypedTable<Particles>.collectUnderGuarantee(
    flow: Flow<PChunk>,
    collect: suspend (Flow<PChunk>, suspend (PChunk) -> Unit) -> Unit = { f, action -> f.collect { action(it) } },
): Int {
    val size = size
    var collected = 0
    collect(flow) { chunk ->
        shouldThrow<ConcurrentModificationException> { add() }
        chunk.liveCount() shouldBeGreaterThan 0 // the chunk is still readable
        collected++
    }
    this.size shouldBe size
    remove(add()) // the iteration is closed
    return collected
}

@OptIn(ExperimentalCoroutinesApi::class, FlowPreview::class)
class ChunkFlowTest : FunSpec({
    test("a chunk flow emits every chunk in order and closes its iteration") {
        Particles.open().use { table ->
            table.fill()
            val blocks = table.core.stats().blocks()
            table.chunkFlow().map { it.index() }.toList() shouldContainExactly (0 until blocks).toList()
            table.chunkFlow().count() shouldBe blocks
            table.add()
        }
    }

    test("a plain collection keeps add and remove failing until the collector is done with the last chunk") {
        Particles.open().use { table ->
            table.fill()
            table.collectUnderGuarantee(table.chunkFlow()) shouldBe table.core.stats().blocks()
        }
    }

    test("operators that run in the collecting coroutine keep the guarantee") {
        Particles.open().use { table ->
            table.fill()
            val blocks = table.core.stats().blocks()
            val operators: List<Triple<String, (Flow<PChunk>) -> Flow<PChunk>, Int>> = listOf(
                Triple("map", { f -> f.map { it } }, blocks),
                Triple("filter", { f -> f.filter { it.index() % 2 == 0 } }, (blocks + 1) / 2),
                Triple("take", { f -> f.take(2) }, 2),
                Triple("drop", { f -> f.drop(1) }, blocks - 1),
                Triple("onEach", { f -> f.onEach { } }, blocks),
                Triple("transform", { f -> f.transform { emit(it) } }, blocks),
                Triple("withIndex", { f -> f.withIndex().map { it.value } }, blocks),
                Triple("catch", { f -> f.catch { } }, blocks),
                Triple("onCompletion", { f -> f.onCompletion { } }, blocks),
                Triple("flatMapConcat", { f -> f.flatMapConcat { flowOf(it) } }, blocks),
                Triple("flowOn without a dispatcher", { f -> f.flowOn(CoroutineName("chunks")) }, blocks),
            )
            for ((name, operator, expected) in operators) {
                withClue(name) { table.collectUnderGuarantee(operator(table.chunkFlow())) shouldBe expected }
            }
            // flowOn with the collector's own dispatcher creates no producer
            withContext(Dispatchers.Default) {
                withClue("flowOn(Dispatchers.Default) collected on Dispatchers.Default") {
                    table.collectUnderGuarantee(table.chunkFlow().flowOn(Dispatchers.Default)) shouldBe blocks
                }
            }
            // launchIn collects in a coroutine of its own, still in that coroutine
            withClue("launchIn") {
                table.collectUnderGuarantee(table.chunkFlow()) { f, action ->
                    coroutineScope { f.onEach { action(it) }.launchIn(this) }
                } shouldBe blocks
            }
        }
    }

    test("operators that hand chunks over through a channel are refused at collection time") {
        Executors.newSingleThreadExecutor().asCoroutineDispatcher().use { other ->
            Particles.open().use { table ->
                table.fill()
                val operators: List<Pair<String, suspend (Flow<PChunk>, suspend (PChunk?) -> Unit) -> Unit>> = listOf(
                    "buffer()" to { f, a -> f.buffer().collect { a(it) } },
                    "buffer(RENDEZVOUS)" to { f, a -> f.buffer(Channel.RENDEZVOUS).collect { a(it) } },
                    "buffer(UNLIMITED)" to { f, a -> f.buffer(Channel.UNLIMITED).collect { a(it) } },
                    "conflate" to { f, a -> f.conflate().collect { a(it) } },
                    "flowOn(another dispatcher)" to { f, a ->
                        withContext(other) { f.flowOn(Dispatchers.Default).collect { a(it) } }
                    },
                    "map, then flowOn(another dispatcher)" to { f, a ->
                        withContext(other) { f.map { it }.flowOn(Dispatchers.Default).collect { a(it) } }
                    },
                    "map to values, then buffer" to { f, a -> f.map { it.liveCount() }.buffer().collect { a(null) } },
                    "produceIn" to { f, a -> coroutineScope { for (c in f.produceIn(this)) a(c) } },
                    "produce, in coroutineScope" to { f, a ->
                        coroutineScope {
                            for (c in produce { coroutineScope { f.collect { send(it) } } }) a(c)
                        }
                    },
                    "collectLatest" to { f, a -> f.collectLatest { a(it) } },
                    "mapLatest" to { f, a -> f.mapLatest { it }.collect { a(it) } },
                    "transformLatest" to { f, a -> f.transformLatest { emit(it) }.collect { a(it) } },
                    "flatMapLatest" to { f, a -> f.flatMapLatest { flowOf(it) }.collect { a(it) } },
                    "flatMapMerge" to { f, a -> f.flatMapMerge { flowOf(it) }.collect { a(it) } },
                    "zip with the chunk flow as argument" to { f, a ->
                        flowOf(1, 2, 3).zip(f) { _, c -> c }.collect { a(it) }
                    },
                    "channelFlow" to { f, a -> channelFlow { f.collect { send(it) } }.collect { a(it) } },
                    "channelFlow, in withContext" to { f, a ->
                        channelFlow { withContext(other) { f.collect { send(it) } } }.collect { a(it) }
                    },
                    "channelFlow, in withTimeout" to { f, a ->
                        channelFlow { withTimeout(60_000) { f.collect { send(it) } } }.collect { a(it) }
                    },
                    "callbackFlow" to { f, a ->
                        callbackFlow { f.collect { send(it) }; close(); awaitClose() }.collect { a(it) }
                    },
                )
                for ((name, collect) in operators) {
                    withClue(name) {
                        val received = AtomicInteger()
                        val e = shouldThrow<IllegalStateException> {
                            collect(table.chunkFlow()) { received.incrementAndGet() }
                        }
                        e.message shouldContain "table 'particles': chunkFlow() is collected in a producer coroutine"
                        e.message shouldContain "processChunks"
                        received.get() shouldBe 0
                        table.remove(table.add()) // nothing was left open
                    }
                }
            }
        }
    }

    test("an exception in the collector closes the iteration") {
        Particles.open().use { table ->
            table.fill()
            val e = shouldThrow<IllegalStateException> {
                table.chunkFlow().collect { if (it.index() == 1) error("chunk 1 failed") }
            }
            e.message shouldBe "chunk 1 failed"
            table.remove(table.add())
        }
    }

    test("cancelling the collector closes the iteration") {
        Particles.open().use { table ->
            table.fill()
            coroutineScope {
                val collecting = CompletableDeferred<Unit>()
                val collector = async {
                    table.chunkFlow().collect { collecting.complete(Unit); awaitCancellation() }
                }
                collecting.await()
                shouldThrow<ConcurrentModificationException> { table.add() }
                collector.cancelAndJoin()
            }
            table.remove(table.add())
        }
    }

    test("a closed table is reported when the flow is collected") {
        val table = Particles.open()
        val flow = table.chunkFlow()
        table.close()
        shouldThrow<IllegalStateException> { flow.collect { } }
    }
})
