package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.HandleLayout;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A one-by-one {@code remove} and a one-handle {@code removeAll} must leave every reader the same answers, also when
 * a removal's bookkeeping is deferred to the next change, pass or mark (tried for issue 39). Twin tables take the same
 * random operations, one removing with each; after bursts of removals a reader chosen at random must agree on both:
 * handles of adds, size, stats, contains, values, chunks and their live bits, change filters, parallel passes, snapshots.
 */
class DeferredRemovalTest {
    private static final long DEFAULT_SEED = 0x39_D3FE_44L;

    @ParameterizedTest(name = "{0}")
    @EnumSource(ReuseOrder.class)
    void removeThenAnyReader_agreesWithAnUndeferredTwin(ReuseOrder order) throws Exception {
        long seed = Seeds.seed("DeferredRemovalTest." + order, DEFAULT_SEED);
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Schema schema = TestSchemas.particles(RecordLayout.SOA);
        try (BulkTable a = BulkTable.builder(schema).reuseOrder(order).build();
             BulkTable b = BulkTable.builder(schema).reuseOrder(order).build()) {
            Field field = a.schema().fields().get(0);
            List<long[]> live = new ArrayList<>();   // {handle in a, handle in b}: the same but for the tag
            List<long[]> dead = new ArrayList<>();
            int mark = a.markVersion();
            assertEquals(mark, b.markVersion());
            for (int step = 0; step < 4000; step++) {
                String at = Seeds.replay(seed) + ", " + order + ", step " + step;
                int burst = random.nextInt(1 + Math.min(live.size(), random.nextBoolean() ? 5 : 150));
                for (int k = 0; k < burst; k++) {
                    long[] h = live.remove(random.nextInt(live.size()));
                    a.remove(h[0]);
                    b.removeAll(new long[] {h[1]});
                    dead.add(h);
                }
                switch (random.nextInt(12)) {
                    case 0, 1, 2 -> {
                        int n = 1 + random.nextInt(random.nextBoolean() ? 3 : 300);
                        for (int k = 0; k < n; k++) {
                            long[] h = {a.add(), b.add()};
                            assertEquals(untag(h[1]), untag(h[0]), at);
                            long v = random.nextLong();
                            Values.set(a, h[0], field, v);
                            Values.set(b, h[1], field, v);
                            live.add(h);
                        }
                    }
                    case 3 -> {
                        long[] ha = new long[1 + random.nextInt(200)];
                        long[] hb = new long[ha.length];
                        a.addAll(ha);
                        b.addAll(hb);
                        for (int k = 0; k < ha.length; k++) {
                            assertEquals(untag(hb[k]), untag(ha[k]), at);
                            live.add(new long[] {ha[k], hb[k]});
                        }
                    }
                    case 4 -> {
                        assertEquals(b.size(), a.size(), at);
                        assertEquals(b.capacity(), a.capacity(), at);
                        TableStats sa = a.stats();
                        TableStats sb = b.stats();
                        assertEquals(List.of(sb.live(), sb.holes(), sb.retired(), sb.capacity(), sb.blocks()),
                                List.of(sa.live(), sa.holes(), sa.retired(), sa.capacity(), sa.blocks()), at);
                        for (int k = 0; k < 20 && !dead.isEmpty(); k++) {
                            long[] h = dead.get(random.nextInt(dead.size()));
                            assertEquals(b.contains(h[1]), a.contains(h[0]), at);
                        }
                        for (int k = 0; k < 20 && !live.isEmpty(); k++) {
                            long[] h = live.get(random.nextInt(live.size()));
                            assertEquals(Values.get(b, h[1], field), Values.get(a, h[0], field), at);
                        }
                    }
                    case 5 -> assertEquals(chunks(b, null, 0), chunks(a, null, 0), at);
                    case 6 -> {
                        assertEquals(chunks(b, ChangeFilter.structure(), mark), chunks(a, ChangeFilter.structure(), mark), at);
                        mark = a.markVersion();
                        assertEquals(mark, b.markVersion(), at);
                    }
                    case 7 -> assertEquals(records(b), records(a), at);
                    case 8 -> {
                        List<Integer> ca = new java.util.concurrent.CopyOnWriteArrayList<>();
                        List<Integer> cb = new java.util.concurrent.CopyOnWriteArrayList<>();
                        a.forEachChunk(pool, 2, c -> ca.add(c.index() << 16 | c.liveCount()));
                        b.forEachChunk(pool, 2, c -> cb.add(c.index() << 16 | c.liveCount()));
                        assertEquals(sorted(cb), sorted(ca), at);
                    }
                    case 9 -> assertEquals(reloaded(b), reloaded(a), at);
                    case 10 -> {
                        if (!live.isEmpty() && random.nextBoolean()) {
                            long[] h = live.remove(random.nextInt(live.size()));
                            a.removeAll(new long[] {h[0]});
                            b.remove(h[1]);
                            dead.add(h);
                        } else if (random.nextInt(8) == 0) {
                            a.clear();
                            b.clear();
                            dead.addAll(live);
                            live.clear();
                        } else {
                            long[] h = {a.add(), b.add()};
                            assertEquals(untag(h[1]), untag(h[0]), at);
                            assertEquals(b.cancelAdd(h[1]), a.cancelAdd(h[0]), at);
                        }
                    }
                    default -> {
                        if (!live.isEmpty()) {
                            long[] h = live.remove(random.nextInt(live.size()));
                            a.removeLater(h[0]);
                            b.removeLater(h[1]);
                            assertEquals(b.applyQueued(), a.applyQueued(), at);
                            dead.add(h);
                        }
                    }
                }
                if (dead.size() > 5000) {
                    dead.subList(0, 2500).clear();
                }
            }
            assertEquals(chunks(b, null, 0), chunks(a, null, 0));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Each visited chunk's index, live count, live words, first live slot and first hole, as a list of longs. */
    private static List<Long> chunks(Table table, ChangeFilter filter, int since) {
        List<Long> out = new ArrayList<>();
        try (ChunkIteration it = filter == null ? table.iterate() : table.iterate(filter, since)) {
            for (Chunk c : it) {
                out.add((long) c.index());
                out.add((long) c.liveCount());
                out.add((long) c.nextLive(0));
                out.add((long) c.nextHole(0));
                for (int w = 0; w < c.liveWordCount(); w++) {
                    out.add(c.liveBits(w));
                }
            }
        }
        return out;
    }

    private static long untag(long handle) {
        return handle & (-1L >>> HandleLayout.TAG_BITS);
    }

    private static List<Long> records(Table table) {
        List<Long> out = new ArrayList<>();
        table.forEach((c, s) -> out.add(untag(c.handle(s))));
        return out;
    }

    private static List<Integer> sorted(List<Integer> list) {
        List<Integer> copy = new ArrayList<>(list);
        copy.sort(null);
        return copy;
    }

    /** The chunks of the table saved and loaded back under a new tag. */
    private static List<Long> reloaded(Table table) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Snapshots.save(table, Channels.newChannel(bytes));
        try (BulkTable copy = Snapshots.load(Channels.newChannel(new ByteArrayInputStream(bytes.toByteArray())), "test",
                BulkTable.class, null, Snapshots.LoadOption.NEW_TAG)) {
            return chunks(copy, null, 0);
        }
    }
}
