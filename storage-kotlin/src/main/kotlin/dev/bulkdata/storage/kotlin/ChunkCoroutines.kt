package dev.bulkdata.storage.kotlin

import dev.bulkdata.storage.ChangeFilter
import dev.bulkdata.storage.Chunk
import dev.bulkdata.storage.ChunkIteration
import dev.bulkdata.storage.Table
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.channels.ProducerScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.launch
import java.lang.foreign.MemorySegment
import java.util.concurrent.atomic.AtomicInteger

/**
 * Processes the table chunk by chunk in at most [parallelism] coroutines and returns when all are done (structured
 * concurrency): `min(parallelism, chunks)` workers on [dispatcher] ([Dispatchers.Default] by default) take chunks in
 * turn, [block] inlined into each; a pass allocates the workers and a byte per chunk. Cancelling the caller cancels the
 * workers; a chunk's exception cancels the others and is rethrown. An iteration is open throughout: structural changes
 * throw [java.util.ConcurrentModificationException], so [block] must not add, remove or clear (queue them on the
 * [TypedChunk]). Fast loops over a chunk's views: docs/kotlin.md, "Coroutines per chunk".
 * @throws IllegalArgumentException if [parallelism] is less than 1
 * @throws IllegalStateException if the table is closed (also while the call runs) or its memory is confined to a thread
 */
public suspend inline fun <D : TableDef<D>> TypedTable<D>.processChunks(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (TypedChunk<D>) -> Unit,
): Unit = core.processQueue(null, 0, dispatcher, parallelism) { queue -> queue.drain { block(TypedChunk(it)) } }

/** [processChunks][TypedTable.processChunks] for a core [Table] (built with the Java API), with the core [Chunk]; same contract. */
public suspend inline fun Table.processChunks(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (Chunk) -> Unit,
): Unit = processQueue(null, 0, dispatcher, parallelism) { queue -> queue.drain { block(it) } }

/**
 * [processChunks][TypedTable.processChunks] over the chunks changed after [since] (from [TypedTable.markVersion]) as
 * [changes] looks for, tested when the call starts; same contract.
 * @throws IllegalArgumentException also if [changes] names columns of another declaration
 */
public suspend inline fun <D : TableDef<D>> TypedTable<D>.processChunks(
    changes: ChangeFilter,
    since: Int,
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (TypedChunk<D>) -> Unit,
): Unit = core.processQueue(changes, since, dispatcher, parallelism) { queue -> queue.drain { block(TypedChunk(it)) } }

/** [processChunks][TypedTable.processChunks] with a change filter for a core [Table], with the core [Chunk]. */
public suspend inline fun Table.processChunks(
    changes: ChangeFilter,
    since: Int,
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (Chunk) -> Unit,
): Unit = processQueue(changes, since, dispatcher, parallelism) { queue -> queue.drain { block(it) } }

@PublishedApi
internal class ChunkQueue(private val iteration: ChunkIteration) {
    private val count = iteration.count()
    private val selected = BooleanArray(count) { iteration.selects(it) }
    private val taken = AtomicInteger()

    @JvmSynthetic
    internal fun selectedCount(): Int = selected.count { it }

    @PublishedApi
    @JvmSynthetic
    internal fun next(): Chunk? {
        while (true) {
            val i = taken.getAndIncrement()
            if (i >= count) return null
            if (selected[i]) return iteration.chunk(i)
        }
    }
}

@PublishedApi
internal suspend inline fun ChunkQueue.drain(block: (Chunk) -> Unit) {
    while (true) {
        currentCoroutineContext().ensureActive()
        block(next() ?: return)
    }
}

@PublishedApi
@JvmSynthetic
internal suspend fun Table.processQueue(
    changes: ChangeFilter?,
    since: Int,
    dispatcher: CoroutineDispatcher,
    parallelism: Int,
    worker: suspend (ChunkQueue) -> Unit,
) {
    require(parallelism >= 1) { "parallelism=$parallelism must be at least 1 (table '${name()}')" }
    val iteration = if (changes == null) iterate() else iterate(changes, since)
    try {
        for (i in 0 until iteration.count()) requireShareable(name(), iteration.chunk(i).records())
        val queue = ChunkQueue(iteration)
        coroutineScope {
            repeat(minOf(parallelism, queue.selectedCount())) {
                launch(dispatcher) { worker(queue) }
            }
        }
    } catch (e: Throwable) {
        throw closedDuringPass(e)
    } finally {
        iteration.close()
    }
}

private fun Table.closedDuringPass(e: Throwable): Throwable {
    if (e is CancellationException || !isClosed) return e
    val name = name()
    if (e is IllegalStateException && e.message?.contains("table '$name'") == true) return e
    return IllegalStateException(
        "table '$name' was closed while processChunks was running; close a table only when no other" +
            " coroutine or thread uses it (after the processChunks call returns)",
        e,
    )
}

/**
 * The table's chunks as a cold [Flow]: collecting it opens an iteration, emits every chunk in order (boxed) and closes
 * it when the collection ends; meanwhile structural changes throw [java.util.ConcurrentModificationException] and
 * chunks are valid only then (map them to values before `toList`, `first`, ...). Operators handing chunks through a
 * channel (`buffer`, `flowOn` to another dispatcher, ...) are refused: docs/kotlin.md, "Coroutines per chunk".
 * @throws IllegalStateException (on collection) if the table is closed or the flow is collected in a producer coroutine
 */
public fun <D : TableDef<D>> TypedTable<D>.chunkFlow(): Flow<TypedChunk<D>> = core.chunkFlow().map { TypedChunk(it) }

/** [chunkFlow][TypedTable.chunkFlow] for a core [Table], with the core [Chunk]; same contract. */
public fun Table.chunkFlow(): Flow<Chunk> = chunksOf { iterate() }

/**
 * [chunkFlow] of the chunks changed after [since] (from [TypedTable.markVersion]) as [changes] looks for, each tested
 * when the flow reaches it; same contract.
 * @throws IllegalArgumentException (when collected) if [changes] names columns of another declaration
 */
public fun <D : TableDef<D>> TypedTable<D>.chunkFlow(changes: ChangeFilter, since: Int): Flow<TypedChunk<D>> =
    core.chunkFlow(changes, since).map { TypedChunk(it) }

/** [chunkFlow][TypedTable.chunkFlow] with a change filter for a core [Table], with the core [Chunk]; same contract. */
public fun Table.chunkFlow(changes: ChangeFilter, since: Int): Flow<Chunk> = chunksOf { iterate(changes, since) }

private fun Table.chunksOf(open: () -> ChunkIteration): Flow<Chunk> = flow {
    check(!currentCoroutineContext()[Job].inProducerBody()) {
        "table '${name()}': chunkFlow() is collected in a producer coroutine, behind a channel (buffer," +
            " conflate, flowOn with another dispatcher, produceIn, collectLatest, channelFlow, ...), so it" +
            " cannot know when the collector is done with a chunk and would end the iteration while a" +
            " chunk is still in use; collect chunkFlow() without those operators (choose the thread with" +
            " withContext around the collection), or use processChunks for parallel work"
    }
    val iteration = open()
    try {
        for (i in 0 until iteration.count()) {
            if (iteration.selects(i)) emit(iteration.chunk(i))
        }
    } finally {
        iteration.close()
    }
}

/**
 * A change filter for writes to any of [columns] (of one declaration) for the filtered passes ([TypedTable.forEach],
 * [processChunks], ...); `.orStructure()` takes records added or removed too, the core `ChangeFilter.structure()` those
 * alone. Make it once and keep it. Throws [IllegalArgumentException] if no column is given.
 */
public fun <D : TableDef<D>> changeFilter(vararg columns: Column<D, *>): ChangeFilter =
    ChangeFilter.of(*Array(columns.size) { columns[it].field })

private val SCOPE_COROUTINE: Class<*>? =
    try {
        Class.forName("kotlinx.coroutines.internal.ScopeCoroutine", false, Job::class.java.classLoader)
    } catch (_: ClassNotFoundException) {
        null
    }

/** Whether this job runs a producer coroutine's body, maybe through scope coroutines (found by class name). */
@OptIn(ExperimentalCoroutinesApi::class)
@JvmSynthetic
internal fun Job?.inProducerBody(): Boolean {
    var job = this
    while (job != null) {
        if (job is ProducerScope<*>) return true
        if (SCOPE_COROUTINE?.isInstance(job) != true) return false
        job = job.parent
    }
    return false
}

/** A thread that never runs: a segment is accessible by it only if it is not confined. */
private val NO_OWNER: Thread = Thread.ofVirtual().unstarted {}

@JvmSynthetic
internal fun requireShareable(table: String, segment: MemorySegment) {
    check(segment.isAccessibleBy(NO_OWNER)) {
        "table '$table' has memory confined to one thread, but chunk coroutines run on the" +
            " dispatcher's threads; process it on its owner thread with forEachChunk { } instead," +
            " or allocate it from a shared arena (every table opened with TableDef.open() or" +
            " BulkTable.builder() is)"
    }
}
