package dev.bulkdata.storage.kotlin

import io.kotest.core.spec.style.FunSpec
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking

private const val OPS = 100_000
private const val MAX_ROUNDS = 200

/** Records of the short passes that get the typed forEach pass compiled as a whole. */
private const val SMALL_PASS = 1_000

/** A join's or a component loop's visitor object: header and two captured references. */
private const val VISITOR_BYTES = 24L

/** Passes allowed until one allocates nothing: the JIT compiles a method after thousands of calls. */
private const val MAX_PASSES = 20_000

/** What a coroutine pass may allocate besides its byte per chunk: the scope, its workers and their state. */
private const val PASS_BYTES = 4096L

/**
 * Runs [round] until one call allocates nothing on this thread; fails if none does, or if the
 * JVM cannot count ([AllocationCounter]). Early rounds run interpreted, where the JVM and the
 * FFM runtime allocate; a path that allocates per operation never reaches zero. Measures bytes,
 * never time.
 */
private inline fun roundsUntilAllocationFree(what: String, maxRounds: Int = MAX_ROUNDS, round: () -> Long): Int =
    roundsUntilAllocationAtMost(what, 0, maxRounds, round)

/** As [roundsUntilAllocationFree], until a round allocates at most [bytes]. */
internal inline fun roundsUntilAllocationAtMost(what: String, bytes: Long, maxRounds: Int, round: () -> Long): Int {
    AllocationCounter.requireCounting()
    var sink = 0L
    var last = 0L
    for (i in 1..maxRounds) {
        val before = AllocationCounter.allocatedBytes()
        sink += round()
        last = AllocationCounter.allocatedBytes() - before
        if (last <= bytes) return i
    }
    throw AssertionError("$what still allocates more than $bytes B after $maxRounds rounds ($last B in the last;" +
        " sink $sink); ${AllocationCounter.machine()}")
}

/**
 * One pass of a typical system, in its own method as callers (and the JMH benchmark) write it:
 * the JIT compiles it whole, and escape analysis removes the one iteration object per pass.
 */
private fun move(table: TypedTable<Particles>): Long {
    var n = 0L
    table.forEach {
        it[Particles.X] = it[Particles.X] + it[Particles.VX]
        n++
    }
    return n
}

/**
 * A pass whose action reads six fields and writes three (the benchmark's `p += v * dt` on three
 * axes has that size): with the action inlined twice, this was past the JIT's inlining budget,
 * and the pass kept its scope and iteration (72 B per pass).
 */
private fun moveNine(table: TypedTable<Particles>): Long {
    var n = 0L
    table.forEach {
        it[Particles.X] += it[Particles.VX] * 0.5f
        it[Particles.MASS] += it[Particles.ID].toDouble()
        it[Particles.AGE] += it[Particles.FLAGS].toInt()
        n++
    }
    return n
}

/** One pass over typed chunks, as a system writes it: typed slot access, no handles. */
private fun moveByChunk(table: TypedTable<Particles>): Long {
    var n = 0L
    table.forEachChunk { chunk ->
        var s = chunk.nextLive(0)
        while (s >= 0) {
            chunk[s, Particles.X] = chunk[s, Particles.X] + chunk[s, Particles.VX]
            n++
            s = chunk.nextLive(s + 1)
        }
    }
    return n
}

/** [moveByChunk] with views taken once per chunk and [TypedChunk.forEachLive]: docs/kotlin.md's loop. */
private fun moveByViews(table: TypedTable<Particles>): Long {
    var n = 0L
    table.forEachChunk { chunk ->
        val x = chunk.writableView(Particles.X)
        val vx = chunk.view(Particles.VX)
        chunk.forEachLive { s ->
            x[s] += vx[s]
            n++
        }
    }
    return n
}

/** [moveByViews] as a coroutine pass: one worker, on the calling thread. */
private suspend fun moveByCoroutines(table: TypedTable<Particles>) {
    table.processChunks(Dispatchers.Unconfined, parallelism = 1) { chunk ->
        val x = chunk.writableView(Particles.X)
        val vx = chunk.view(Particles.VX)
        chunk.forEachLive { s -> x[s] += vx[s] }
    }
}

/** One run of a join, as a system writes it. */
private fun moveJoined(
    join: TypedJoin2<Bullets, Position, Velocity>,
    positions: TypedComponentTable<Bullets, Position>,
    velocities: TypedComponentTable<Bullets, Velocity>,
): Int = join.forEach { _, p, v -> positions[p, Position.X] += velocities[v, Velocity.DX] }

/** Reverses the order of [raw]'s records by damage and sorts them again; returns the swaps. */
private fun reverseAndSort(table: TypedTable<Bullets>, raw: LongArray, order: TypedRecordOrder<Bullets>): Long {
    for (r in raw) {
        val id = Handle<Bullets>(r)
        table[id, Bullets.DAMAGE] = -table[id, Bullets.DAMAGE] - 1
    }
    table.markFragmented()
    return table.defragment(Long.MAX_VALUE, order)
}

/** The typed hot paths cost what the core's do: nothing, once compiled. */
class AllocationTest : FunSpec({
    test("typed get and set by handle allocate nothing") {
        Particles.open().use { table ->
            val raw = LongArray(OPS) { table.add().raw }
            roundsUntilAllocationFree("typed get/set") {
                var sum = 0f
                for (i in raw.indices) {
                    val id = ParticleId(raw[i])
                    table[id, Particles.X] = i.toFloat()
                    sum += table[id, Particles.X]
                }
                sum.toLong()
            }
        }
    }

    test("typed remove, add with initialiser and contains allocate nothing once the blocks exist") {
        Particles.open().use { table ->
            val raw = LongArray(OPS) { table.add().raw }
            roundsUntilAllocationFree("typed remove/add/contains") {
                var live = 0L
                for (i in raw.indices step 2) table.remove(ParticleId(raw[i]))
                for (i in raw.indices step 2) raw[i] = table.add { it[Particles.AGE] = i }.raw
                for (r in raw) if (ParticleId(r) in table) live++
                live
            }
            table.size shouldBe OPS
        }
    }

    test("typed forEach allocates nothing once compiled: not even the iteration object") {
        Particles.open().use { small ->
            repeat(SMALL_PASS) { small.add { h -> h[Particles.VX] = 1f } }
            // Short passes, many times: the pass (move) is compiled as a whole, not only its loop
            // (on-stack replacement), and escape analysis then removes the core's ChunkIteration.
            // Early rounds allocate it (interpreted, or entering the loop's OSR code).
            val rounds = roundsUntilAllocationFree("typed forEach", MAX_PASSES) { move(small) }
            println("[AllocationTest] typed forEach allocation-free after $rounds passes of $SMALL_PASS records")
            Particles.open().use { large ->
                val first = large.add { h -> h[Particles.VX] = 1f }
                repeat(OPS - 1) { large.add { h -> h[Particles.VX] = 1f } }
                var visited = 0L
                val largeRounds = roundsUntilAllocationFree("typed forEach over $OPS records") {
                    move(large).also { visited += it }
                }
                println("[AllocationTest] and after $largeRounds passes of $OPS records")
                visited shouldBe largeRounds.toLong() * OPS
                large[first, Particles.X] shouldBe largeRounds.toFloat()
            }
        }
    }

    test("a forEach reading six fields and writing three allocates nothing once compiled") {
        Particles.open().use { small ->
            repeat(SMALL_PASS) { small.add { h -> h[Particles.VX] = 1f; h[Particles.ID] = 2L; h[Particles.FLAGS] = 3 } }
            val rounds = roundsUntilAllocationFree("a nine-access forEach", MAX_PASSES) { moveNine(small) }
            println("[AllocationTest] a nine-access forEach allocation-free after $rounds passes of $SMALL_PASS records")
            Particles.open().use { large ->
                val first = large.add { h -> h[Particles.VX] = 1f; h[Particles.ID] = 2L; h[Particles.FLAGS] = 3 }
                repeat(OPS - 1) { large.add { h -> h[Particles.VX] = 1f } }
                val largeRounds = roundsUntilAllocationFree("a nine-access forEach over $OPS records") { moveNine(large) }
                println("[AllocationTest] and after $largeRounds passes of $OPS records")
                large[first, Particles.X] shouldBe largeRounds * 0.5f
                large[first, Particles.MASS] shouldBe largeRounds * 2.0
                large[first, Particles.AGE] shouldBe largeRounds * 3
            }
        }
    }

    test("typed chunk access in forEachChunk allocates nothing once compiled") {
        Particles.open().use { small ->
            repeat(SMALL_PASS) { small.add { h -> h[Particles.VX] = 1f } }
            val rounds = roundsUntilAllocationFree("typed chunk access", MAX_PASSES) { moveByChunk(small) }
            println("[AllocationTest] typed chunk access allocation-free after $rounds passes of $SMALL_PASS records")
            Particles.open().use { large ->
                val first = large.add { h -> h[Particles.VX] = 1f }
                repeat(OPS - 1) { large.add { h -> h[Particles.VX] = 1f } }
                val largeRounds = roundsUntilAllocationFree("typed chunk access over $OPS records") { moveByChunk(large) }
                println("[AllocationTest] and after $largeRounds passes of $OPS records")
                large[first, Particles.X] shouldBe largeRounds.toFloat()
            }
        }
    }

    test("the view loop (views per chunk, forEachLive) allocates nothing once compiled") {
        Particles.open().use { small ->
            repeat(SMALL_PASS) { small.add { h -> h[Particles.VX] = 1f } }
            val rounds = roundsUntilAllocationFree("the view loop", MAX_PASSES) { moveByViews(small) }
            println("[AllocationTest] the view loop allocation-free after $rounds passes of $SMALL_PASS records")
            Particles.open().use { large ->
                val first = large.add { h -> h[Particles.VX] = 1f }
                repeat(OPS - 1) { large.add { h -> h[Particles.VX] = 1f } }
                val largeRounds = roundsUntilAllocationFree("the view loop over $OPS records") { moveByViews(large) }
                println("[AllocationTest] and after $largeRounds passes of $OPS records")
                large[first, Particles.X] shouldBe largeRounds.toFloat()
            }
        }
    }

    test("a coroutine pass allocates its workers and a byte per chunk: nothing per chunk beyond that, nothing per record") {
        Particles.open().use { table ->
            val first = table.add { h -> h[Particles.VX] = 1f }
            repeat(OPS - 1) { table.add { h -> h[Particles.VX] = 1f } }
            val chunks = table.stats().blocks
            // Unconfined, one worker, a block that never suspends: the whole pass runs on this thread,
            // whose allocation counter then sees all of it. The least of many passes: the first
            // run interpreted.
            AllocationCounter.requireCounting()
            val bound = PASS_BYTES + chunks
            var least = Long.MAX_VALUE
            runBlocking {
                repeat(MAX_ROUNDS) {
                    val before = AllocationCounter.allocatedBytes()
                    moveByCoroutines(table)
                    least = minOf(least, AllocationCounter.allocatedBytes() - before)
                }
            }
            withClue("a coroutine pass over $chunks chunks allocated $least B; ${AllocationCounter.machine()}") {
                (least <= bound) shouldBe true
            }
            table[first, Particles.X] shouldBe MAX_ROUNDS.toFloat()
            println("[AllocationTest] a coroutine pass over $chunks chunks: $least B")
        }
    }

    test("component get and set by entity and defragment with a kept order allocate nothing; a join run one visitor") {
        Bullets.open().use { bullets ->
            Position.openComponents(bullets).use { positions ->
                Velocity.openComponents(bullets).use { velocities ->
                    val raw = LongArray(SMALL_PASS) { bullets.add().raw }
                    for (r in raw) {
                        positions.add(Handle(r))
                        velocities.add(Handle(r))
                        velocities[Handle<Bullets>(r), Velocity.DX] = 1f
                    }
                    roundsUntilAllocationFree("component get/set by entity") {
                        var sum = 0f
                        for (r in raw) {
                            val id = Handle<Bullets>(r)
                            positions[id, Position.Y] = positions[id, Position.Y] + velocities[id, Velocity.DX]
                            sum += positions[id, Position.Y]
                        }
                        sum.toLong()
                    }
                    // A run hands the core join one visitor object, which escape analysis does not
                    // remove (the core's join loop is not inlined into the caller): one object per
                    // run, nothing per entity (a box per entity would be 16 KB and more).
                    val join = join(positions, velocities)
                    val rounds = roundsUntilAllocationAtMost("a join run", VISITOR_BYTES, MAX_PASSES) {
                        moveJoined(join, positions, velocities).toLong()
                    }
                    println("[AllocationTest] a join run allocates one visitor, <= $VISITOR_BYTES B, after $rounds runs" +
                        " over $SMALL_PASS entities")
                    val bullet = Handle<Bullets>(raw[0])
                    positions[bullet, Position.X] shouldBe rounds.toFloat()
                }
            }
        }
        Bullets.open().use { bullets ->
            val raw = LongArray(64) { i -> bullets.add { it[Bullets.DAMAGE] = i }.raw }
            val byDamage = TypedRecordOrder<Bullets> { a, b -> bullets[a, Bullets.DAMAGE].compareTo(bullets[b, Bullets.DAMAGE]) }
            var swaps = 0L
            val rounds = roundsUntilAllocationFree("defragment with a kept order", MAX_PASSES) {
                reverseAndSort(bullets, raw, byDamage).also { swaps += it }
            }
            swaps shouldBe rounds * 64L * 63 / 2                    // every round sorted 64 reversed rows
        }
    }
})
