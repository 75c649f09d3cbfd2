package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.Join;
import dev.bulkdata.storage.schema.Schema;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Workload 9: {@code n} entities that all have component A, a given percentage of them also
 * component B; sum {@code a.x + b.x} over the entities that have both. bulkdata joins two
 * {@link ComponentTable}s (driven by the smaller); the peers keep components in maps keyed by
 * entity id and probe the larger from the smaller.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "--enable-native-access=ALL-UNNAMED"})
public class JoinBenchmark {
    static final Schema ENTITY = Schema.builder("entity").add(FieldType.INT, "kind").build();
    static final Schema A = Schema.builder("a").add(FieldType.FLOAT, "x", "y").build();
    static final Schema B = Schema.builder("b").add(FieldType.FLOAT, "x", "y").build();

    /** Percent of the entities (all of which have A) that also have B. */
    @State(Scope.Benchmark)
    public static class Overlap {
        @Param({"100", "50", "1"})
        public int percent;

        /** Whether entity {@code i} has B: a spread-out {@code percent} of them. */
        boolean hasB(int i) {
            return (int) ((long) i * 7919 % 100) < percent;
        }
    }

    /** A component of the heap peers. */
    static final class Component {
        final float x;
        final float y;

        Component(float x) {
            this.x = x;
            this.y = 0;
        }
    }

    /** Entities in a BulkTable, components A and B in component tables, and their join. */
    @State(Scope.Benchmark)
    public static class Bulk {
        BulkTable entities;
        ComponentTable a;
        ComponentTable b;
        Join join;
        final FloatField ax = A.floatField("x");
        final FloatField bx = B.floatField("x");
        /** The visitor, made once: it sums into {@link #sum}. */
        Join.Visitor visitor;
        float sum;

        @Setup(Level.Trial)
        public void setUp(Size size, Overlap overlap) {
            entities = BulkTable.of(ENTITY);
            long[] ids = new long[size.n];
            entities.addAll(ids);
            a = ComponentTable.of(entities, A);
            b = ComponentTable.of(entities, B);
            for (int i = 0; i < size.n; i++) {
                a.setAt(a.add(ids[i]), ax, Subjects.t(i));
                if (overlap.hasB(i)) {
                    b.setAt(b.add(ids[i]), bx, 1f);
                }
            }
            join = Join.of(a, b);
            visitor = (entity, rows) -> sum += a.getAt(rows[0], ax) + b.getAt(rows[1], bx);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            a.close();
            b.close();
            entities.close();
        }
    }

    /** Components in maps keyed by entity id. */
    @State(Scope.Benchmark)
    public static class Maps {
        HashMap<Long, Component> a = new HashMap<>();
        HashMap<Long, Component> b = new HashMap<>();
        Long2ObjectOpenHashMap<Component> fa = new Long2ObjectOpenHashMap<>();
        Long2ObjectOpenHashMap<Component> fb = new Long2ObjectOpenHashMap<>();

        @Setup(Level.Trial)
        public void setUp(Size size, Overlap overlap) {
            for (int i = 0; i < size.n; i++) {
                long id = i + 1L;
                a.put(id, new Component(Subjects.t(i)));
                fa.put(id, new Component(Subjects.t(i)));
                if (overlap.hasB(i)) {
                    b.put(id, new Component(1f));
                    fb.put(id, new Component(1f));
                }
            }
        }
    }

    @Benchmark
    public float bulk(Bulk s) {
        s.sum = 0;
        s.join.forEach(s.visitor);
        return s.sum;
    }

    @Benchmark
    public float hashMap(Maps s) {
        float sum = 0;
        boolean aSmaller = s.a.size() <= s.b.size();
        HashMap<Long, Component> small = aSmaller ? s.a : s.b;
        HashMap<Long, Component> large = aSmaller ? s.b : s.a;
        for (Map.Entry<Long, Component> e : small.entrySet()) {
            Component other = large.get(e.getKey());
            if (other != null) {
                sum += e.getValue().x + other.x;
            }
        }
        return sum;
    }

    @Benchmark
    public float fastutil(Maps s) {
        float sum = 0;
        boolean aSmaller = s.fa.size() <= s.fb.size();
        Long2ObjectOpenHashMap<Component> small = aSmaller ? s.fa : s.fb;
        Long2ObjectOpenHashMap<Component> large = aSmaller ? s.fb : s.fa;
        // The fast iterator reuses one entry object, as a fastutil user would write it.
        for (var it = small.long2ObjectEntrySet().fastIterator(); it.hasNext(); ) {
            Long2ObjectMap.Entry<Component> e = it.next();
            Component other = large.get(e.getLongKey());
            if (other != null) {
                sum += e.getValue().x + other.x;
            }
        }
        return sum;
    }
}
