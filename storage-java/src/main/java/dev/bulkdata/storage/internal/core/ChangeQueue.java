package dev.bulkdata.storage.internal.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.function.LongConsumer;

/**
 * A table's changes queued during a pass, applied when its last pass ends ({@code AbstractTable.applyQueued}); made at
 * the first and kept. Removals are a bit per slot set by atomic OR (any thread, twice is once, applied in slot order).
 * Adds are a list under the lock, each with its chunk index ({@link Integer#MAX_VALUE}: the table's), applied stably
 * sorted by it, so a parallel pass's adds come out the same whichever thread ran which chunk.
 */
@SuppressWarnings("doclint:missing") // internal: its members are documented in prose, not tag by tag
public final class ChangeQueue {
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final Comparator<Add> BY_ORIGIN = Comparator.comparingInt(Add::origin);

    public record Add(int origin, LongConsumer init) {
    }

    /** Sized when a pass begins ({@link #cover}), never during one, so no bit is set in a replaced array. */
    private volatile long[] removals;
    /** Whether a removal may be queued: set at the first one, cleared by {@link #takeRemovals}. */
    private volatile boolean removalsQueued;
    /** Guarded by {@code this}; {@link #addCount} is its size, read without the lock. */
    private final ArrayList<Add> adds = new ArrayList<>();
    private volatile int addCount;

    /** A queue whose removal bits cover slots {@code [0, limit)}. */
    public ChangeQueue(int limit) {
        removals = new long[(limit + 63) >>> 6];
    }

    public boolean isEmpty() {
        return !removalsQueued && addCount == 0;
    }

    /** {@return whether a removal may be queued} */
    public boolean removalsQueued() {
        return removalsQueued;
    }

    /** Queues slot {@code slot}, below the limit at the pass's start, for removal; any thread. */
    public void queueRemoval(int slot) {
        long[] words = removals;
        long bit = 1L << slot;
        if (((long) WORDS.getOpaque(words, slot >>> 6) & bit) == 0) {
            WORDS.getAndBitwiseOr(words, slot >>> 6, bit);
        }
        if (!removalsQueued) {
            removalsQueued = true;
        }
    }

    /** Grows the removal bits to cover slots {@code [0, limit)}; when a pass begins. */
    public void cover(int limit) {
        if (removals.length < (limit + 63) >>> 6) {
            grow(limit);
        }
    }

    private synchronized void grow(int limit) {
        long[] words = removals;
        int needed = (limit + 63) >>> 6;
        if (words.length < needed) {
            removals = java.util.Arrays.copyOf(words, Math.max(needed, words.length + (words.length >>> 1)));
        }
    }

    /** Queues an add from chunk {@code origin} ({@link Integer#MAX_VALUE}: the table's); any thread. */
    public synchronized void queueAdd(int origin, LongConsumer init) {
        adds.add(new Add(origin, init));
        addCount = adds.size();
    }

    // Bits of the slots queued for removal (null if none), for the writer to read and clear; ends them. No pass open.
    public long[] takeRemovals() {
        if (!removalsQueued) {
            return null;
        }
        removalsQueued = false;
        return removals;
    }

    /** {@return the queued adds in the order they are applied, and ends them}; for the writer, no pass open. */
    public synchronized Add[] takeAdds() {
        if (adds.isEmpty()) {
            return null;
        }
        adds.sort(BY_ORIGIN); // stable: the order queued within one origin
        Add[] taken = adds.toArray(new Add[0]);
        adds.clear();
        addCount = 0;
        return taken;
    }

    /** Puts adds not applied back at the front of the queue, before any queued since. */
    public synchronized void requeue(Add[] rest, int from) {
        adds.addAll(0, java.util.Arrays.asList(rest).subList(from, rest.length));
        addCount = adds.size();
    }
}
