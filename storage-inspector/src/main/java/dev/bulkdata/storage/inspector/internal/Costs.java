package dev.bulkdata.storage.inspector.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * What each kind of API call has cost lately, so that a poll starts no call it expects to run
 * past the budget. The estimate of a kind is its last cost or, if higher, the previous estimate
 * decayed by a quarter: it rises at once with a slow call and falls back over a few calls.
 * Owner thread only.
 */
final class Costs {
    private final Map<String, long[]> byPath = new HashMap<>();

    long estimate(String path) {
        long[] e = byPath.get(path);
        return e == null ? 0 : e[0];
    }

    void record(String path, long nanos) {
        long[] e = byPath.computeIfAbsent(path, p -> new long[1]);
        e[0] = Math.max(nanos, e[0] - e[0] / 4);
    }
}
