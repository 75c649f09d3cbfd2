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
 * Processes the table chunk by chunk (16 KiB blocks) in at most [parallelism] coroutines at once
 * and returns when every chunk is done (structured concurrency).
 *
 * ```
 * fun move(chunk: TypedChunk<Particles>, dt: Float) {  // one chunk, a function of its own
 *     val x = chunk.writableView(X)                     // once per chunk: stamps X's version
 *     val vx = chunk.view(VX)
 *     chunk.forEachLive { s -> x[s] += vx[s] * dt }     // no hole: one loop from 0
 * }
 * table.processChunks(Dispatchers.Default, parallelism = 4) { chunk -> move(chunk, dt) }
 * ```
 *
 * Each chunk is a [TypedChunk] of the table's declaration, so `chunk[s, column]` and
 * `chunk.view(column)` compile only for the table's own columns. The loop above, views taken
 * once per chunk and [TypedChunk.forEachLive] in a function of its own (which the JIT compiles
 * apart from the chunk loop, as it compiles the Java column loop), is the fast one;
 * `chunk[s, column]` checks the slot and the pass on every access. The function is inline so
 * that [block] is inlined into each worker: the chunk reaches it unboxed, and no suspend lambda
 * is called (and allocated) per chunk.
 *
 * - **Dispatcher and parallelism**: at most [parallelism] chunks are in progress at once,
 *   running or suspended: `min(parallelism, chunks)` worker coroutines run on [dispatcher], each
 *   taking the next chunk in order when it is done with its last, so each chunk is processed by
 *   one coroutine, and the dispatcher's threads run chunk after chunk without this call handing
 *   them over. A single-thread dispatcher (or `parallelism = 1`) processes the chunks one after
 *   another in one thread.
 * - **Allocation**: per pass, not per chunk or record: the workers (a coroutine and the state of
 *   [block] each, a few hundred bytes) and one byte per chunk of the table (which chunks are
 *   selected); measured with JMH `-prof gc` in benchmarks/NOTES.md.
 * - **[Dispatchers.Unconfined]** is supported: its workers start in the calling thread as they
 *   are launched, and continue after a suspension in whatever thread resumes them; the bound
 *   is the same.
 * - **Cancellation**: cancelling the caller cancels every worker; chunks not yet
 *   started never start, and a running [block] stops at its next suspension point (call
 *   `ensureActive()` or `yield()` inside long chunks for prompt cancellation).
 * - **Failure**: an exception thrown by [block] for one chunk cancels the other chunks and is
 *   rethrown from this call, after every chunk coroutine has finished.
 * - **Concurrency rules**: an iteration of the table is open for the whole call, so an add,
 *   remove or clear from any code during processing fails fast with
 *   [java.util.ConcurrentModificationException]; queue them instead with the chunk's
 *   [TypedChunk.removeLater] and [TypedChunk.addLater], applied when the call's pass ends, adds
 *   in chunk order whichever threads ran the chunks. Each chunk's records belong to one coroutine,
 *   so writes to distinct records from the chunk coroutines never lose an update; writing a
 *   record of another chunk is a data race the table does not detect. A chunk is valid only
 *   during the call: kept past it (while no other iteration of the table is open), every method
 *   of the chunk throws [IllegalStateException]. Closing the table before the call returns
 *   (from [block], or another thread) is a bug: the memory is freed at once, and the call
 *   throws an [IllegalStateException] naming the table.
 * - **Memory**: chunk coroutines touch the blocks from the dispatcher's threads, so the blocks
 *   must be accessible from any thread. Every core table allocates its blocks from a shared
 *   arena, so this always holds for tables opened by [TableDef.open]; a block that is confined to
 *   one thread is rejected up front with an [IllegalStateException] naming the table, before any
 *   chunk runs (instead of a `WrongThreadException` from inside [block]).
 *
 * @param dispatcher where the chunk coroutines run; [Dispatchers.Default] by default
 * @param parallelism the most chunks processed at once, at least 1
 * @param block the work for one chunk; it must not add, remove or clear (it may queue them)
 * @throws IllegalArgumentException if [parallelism] is less than 1
 * @throws IllegalStateException if the table is closed (also while the call runs) or its memory
 *   cannot be shared across threads
 */
public suspend inline fun <D : TableDef<D>> TypedTable<D>.processChunks(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (TypedChunk<D>) -> Unit,
): Unit = core.processQueue(null, 0, dispatcher, parallelism) { queue -> queue.drain { block(TypedChunk(it)) } }

/**
 * [processChunks][TypedTable.processChunks] for a core [Table] (a table built with the Java
 * API; [TypedTable.processChunks] runs on it): the same contract, with the core [Chunk], whose
 * accessors take the core fields.
 *
 * @throws IllegalArgumentException if [parallelism] is less than 1
 * @throws IllegalStateException if the table is closed or its memory cannot be shared across threads
 */
public suspend inline fun Table.processChunks(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (Chunk) -> Unit,
): Unit = processQueue(null, 0, dispatcher, parallelism) { queue -> queue.drain { block(it) } }

/**
 * [processChunks][TypedTable.processChunks] over the chunks that changed after [since] in a way
 * [changes] looks for (a version from [TypedTable.markVersion]; build [changes] with
 * [changeFilter]): the same contract, over the selected chunks. The chunks are tested
 * once, when the call starts, before any chunk runs. Then record `markVersion()` for the next
 * frame.
 *
 * ```
 * table.processChunks(changeFilter(Particles.X), seen) { chunk -> upload(chunk) }
 * seen = table.markVersion()
 * ```
 *
 * @throws IllegalArgumentException if [parallelism] is less than 1 or [changes] names columns of
 *   another declaration
 * @throws IllegalStateException if the table is closed or its memory cannot be shared across threads
 */
public suspend inline fun <D : TableDef<D>> TypedTable<D>.processChunks(
    changes: ChangeFilter,
    since: Int,
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (TypedChunk<D>) -> Unit,
): Unit = core.processQueue(changes, since, dispatcher, parallelism) { queue -> queue.drain { block(TypedChunk(it)) } }

/**
 * [processChunks][TypedTable.processChunks] with a change filter for a core [Table], with the
 * core [Chunk]; same contract.
 */
public suspend inline fun Table.processChunks(
    changes: ChangeFilter,
    since: Int,
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    parallelism: Int = Runtime.getRuntime().availableProcessors(),
    crossinline block: suspend (Chunk) -> Unit,
): Unit = processQueue(changes, since, dispatcher, parallelism) { queue -> queue.drain { block(it) } }

/**
 * The chunks of one processChunks pass, handed out in order, each once, to whichever worker
 * asks first. Which chunks are selected is decided when the pass starts, before any runs (a
 * chunk's writes do not select another): one byte per chunk.
 */
@PublishedApi
internal class ChunkQueue(private val iteration: ChunkIteration) {
    private val count = iteration.count()
    private val selected = BooleanArray(count) { iteration.selects(it) }
    private val taken = AtomicInteger()

    /** The number of selected chunks. */
    @JvmSynthetic
    internal fun selectedCount(): Int = selected.count { it }

    /** The next chunk no worker has taken yet, or null when every selected chunk is taken. */
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

/**
 * Runs [block] on the chunks this worker takes from the queue until none is left, checking
 * before each that the worker is not cancelled (chunks not yet started never start).
 */
@PublishedApi
internal suspend inline fun ChunkQueue.drain(block: (Chunk) -> Unit) {
    while (true) {
        currentCoroutineContext().ensureActive()
        block(next() ?: return)
    }
}

/**
 * The body of every processChunks: opens the pass's iteration (filtered by [changes] since
 * [since], or every chunk), checks its memory, then runs `min(parallelism, chunks)` copies of
 * [worker] on [dispatcher], each taking chunks from the one [ChunkQueue] until none is left, so
 * at most [parallelism] chunks are in progress, suspended ones included, and nothing is
 * allocated per chunk: [worker] has the caller's block inlined in its loop (a suspend lambda
 * called per chunk would allocate its state per call). Launched at once, the workers run chunk
 * after chunk on the dispatcher's threads without this call handing chunks over one by one
 * (which cost far more than a chunk's work: benchmarks/NOTES.md). Unconfined is no exception: its workers start in this
 * thread and continue after a suspension in whatever thread resumes them. Closes the iteration.
 */
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

/**
 * What a pass that failed throws: [e] itself, unless the table was closed while the pass ran
 * (a misuse: this call was still handing out chunks and other coroutines used theirs), and [e]
 * does not already say so; then an [IllegalStateException] naming the table, with [e] as its
 * cause, whatever [e] was (the memory's own "already closed", for instance).
 */
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
 * The table's chunks as a cold [Flow]: collecting it opens an iteration, emits every chunk in
 * order and closes the iteration when the collection completes, fails or is cancelled.
 *
 * **The guarantee**: from the first chunk until the collector has finished with the last one,
 * add, remove and clear fail with [java.util.ConcurrentModificationException], so no chunk
 * changes shape while it is in use. A chunk is valid only during that time: kept past it (while
 * no other iteration of the table is open), every method of the chunk throws
 * [IllegalStateException]. So do not keep chunks, and do not use terminal operators that hand
 * chunks out after the collection ([toList][kotlinx.coroutines.flow.toList],
 * [first][kotlinx.coroutines.flow.first], `last`, `single`, `reduce`); map chunks to values first.
 *
 * **Operators that keep it** (the chunk is processed in the collecting coroutine, during
 * `emit`): `map`, `filter`, `take`, `drop`, `onEach`, `transform`, `withIndex`, `catch`,
 * `onCompletion`, `flatMapConcat`, `launchIn`, and `flowOn` with the collector's own dispatcher
 * or with a context that has no dispatcher (`flowOn(CoroutineName("x"))`). To choose the thread,
 * collect inside `withContext(dispatcher) { }`; for parallel work use [processChunks].
 *
 * **Operators that cannot keep it, refused**: `buffer` (any capacity), `conflate`, `flowOn` with
 * another dispatcher, `produceIn`, `collectLatest` / `mapLatest` / `transformLatest` /
 * `flatMapLatest`, `flatMapMerge` over this flow, `zip` with this flow as the argument, and
 * `channelFlow { }` / `callbackFlow { }` blocks that collect it. Each of them collects this flow
 * in the body of a producer coroutine and hands the chunks over through a channel; a flow cannot
 * know when the collector on the other side is done with an element, so the iteration would
 * end (and add would succeed) while the collector still uses a chunk. Collecting this flow in
 * the body of a producer coroutine (`produce`, `channelFlow`, `callbackFlow` and the operators
 * above), directly or inside `coroutineScope`, `withContext` or `withTimeout` there, therefore
 * throws [IllegalStateException] at collection time, before any chunk is emitted and without
 * opening an iteration. This also refuses uses of the same shape that would be safe, such as
 * `chunkFlow().map { sum(it) }.buffer()`: compute the values in a plain collection
 * (`chunkFlow().map { sum(it) }.toList()`) or with [processChunks], then buffer those.
 *
 * **Unsupported, not detected**: `shareIn`, `stateIn`, `merge`, `combine`, `flattenMerge` /
 * `flatMapMerge` with this flow as an inner flow, and collecting this flow in a coroutine
 * launched inside a producer: each collects it in a coroutine of its own and passes the chunks
 * on, which the flow cannot tell from a plain collection in a launched coroutine. Do not use
 * them on a chunk flow.
 *
 * The table's blocks are shared memory, so a chunk may be processed on any thread (see
 * [processChunks]). Each chunk is a [TypedChunk] of the table's declaration, boxed as a flow
 * element (16 bytes per chunk).
 *
 * @throws IllegalStateException (when collected) if the table is closed, or if the flow is
 *   collected inside a producer coroutine (see above); the message names the table and says
 *   what to do instead
 */
public fun <D : TableDef<D>> TypedTable<D>.chunkFlow(): Flow<TypedChunk<D>> = core.chunkFlow().map { TypedChunk(it) }

/** [chunkFlow][TypedTable.chunkFlow] for a core [Table], with the core [Chunk]; same contract. */
public fun Table.chunkFlow(): Flow<Chunk> = chunksOf { iterate() }

/**
 * [chunkFlow] of the chunks that changed after [since] in a way [changes] looks for (a version
 * from [TypedTable.markVersion]; build [changes] with [changeFilter]): the same contract and
 * the same refused operators. Each chunk is tested when the flow reaches it.
 *
 * @throws IllegalArgumentException (when collected) if [changes] names columns of another declaration
 * @throws IllegalStateException (when collected) as [chunkFlow]
 */
public fun <D : TableDef<D>> TypedTable<D>.chunkFlow(changes: ChangeFilter, since: Int): Flow<TypedChunk<D>> =
    core.chunkFlow(changes, since).map { TypedChunk(it) }

/** [chunkFlow][TypedTable.chunkFlow] with a change filter for a core [Table], with the core [Chunk]; same contract. */
public fun Table.chunkFlow(changes: ChangeFilter, since: Int): Flow<Chunk> = chunksOf { iterate(changes, since) }

/** The flow of the selected chunks of the iteration [open] opens when the flow is collected. */
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
 * A change filter for writes to any of [columns] of one declaration, for the filtered passes
 * ([TypedTable.forEach], [TypedTable.forEachChunk], [processChunks], [chunkFlow]); add
 * `.orStructure()` to take records added or removed too, or use the core
 * `ChangeFilter.structure()` for those alone. Make it once and keep it.
 *
 * @throws IllegalArgumentException if no column is given
 */
public fun <D : TableDef<D>> changeFilter(vararg columns: Column<D, *>): ChangeFilter =
    ChangeFilter.of(*Array(columns.size) { columns[it].field })

/** `kotlinx.coroutines.internal.ScopeCoroutine`, or null if this kotlinx version has no such class. */
private val SCOPE_COROUTINE: Class<*>? =
    try {
        Class.forName("kotlinx.coroutines.internal.ScopeCoroutine", false, Job::class.java.classLoader)
    } catch (_: ClassNotFoundException) {
        null
    }

/**
 * Whether code whose coroutine has this [Job] runs in the body of a producer coroutine: the Job
 * is a [ProducerScope], or is a scope (`coroutineScope`, `withContext`, `withTimeout`, the
 * `flowScope` of the `*Latest` operators) that its parent suspends in, up to a producer. Every
 * operator that hands elements over through a channel collects its upstream there; a plain
 * collection, `flowOn` with the collector's dispatcher, and code in a coroutine launched from a
 * producer do not. (`ScopeCoroutine` is internal to kotlinx.coroutines, so it is found by name;
 * without it only the Job itself is checked.)
 */
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

/**
 * Throws unless [segment] may be accessed from any thread (a shared, global or automatic
 * arena's memory).
 *
 * @throws IllegalStateException naming the table and what to do instead
 */
@JvmSynthetic
internal fun requireShareable(table: String, segment: MemorySegment) {
    check(segment.isAccessibleBy(NO_OWNER)) {
        "table '$table' has memory confined to one thread, but chunk coroutines run on the" +
            " dispatcher's threads; process it on its owner thread with forEachChunk { } instead," +
            " or allocate it from a shared arena (every table opened with TableDef.open() or" +
            " BulkTable.builder() is)"
    }
}
