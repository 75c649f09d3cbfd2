package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.kotlin.TypedTable;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** A table declared with the Kotlin DSL, {@code n} records of {@link KotlinWorkloads#open}: the Kotlin subject of several workloads. */
@State(Scope.Benchmark)
public class KotlinTable {
    TypedTable<KParticles> table;
    /** px, py, pz, vx, vy, vz of the table ({@link UpdateBenchmark#fields}), for the column loop over its chunks. */
    dev.bulkdata.storage.schema.Field[] fields;

    @Setup(Level.Trial)
    public void setUp(Size size) {
        table = KotlinWorkloads.open(size.n, new long[size.n]);
        fields = UpdateBenchmark.fields(table.core().schema());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        table.close();
    }
}
