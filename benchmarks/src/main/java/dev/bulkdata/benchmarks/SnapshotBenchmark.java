package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Snapshots;
import dev.bulkdata.storage.Table;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Workload 10: saving and loading n standard records (32 bytes each) to and from a file.
 * bulkdata's {@link Snapshots} against the limit (the same number of record bytes written and
 * read with one {@code FileChannel} call on a direct buffer) and against what Java users write
 * today: {@code ObjectOutputStream} of an {@code ArrayList<Particle>}, and
 * {@code DataOutputStream} field by field (both buffered). Every subject writes a new file in the
 * same directory and reads the file it wrote; none forces to disk.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "--enable-native-access=ALL-UNNAMED"})
public class SnapshotBenchmark {

    /** The subjects and their files. */
    @State(Scope.Benchmark)
    public static class Subject {
        Path dir;
        Path snapshot;
        /** A snapshot of a table closed in setup, so that loading finds its tag free. */
        Path closedSnapshot;
        Path raw;
        Path objects;
        Path data;
        BulkTable table;
        ByteBuffer rawBytes;
        ArrayList<Particle> list;
        int n;

        @Setup(Level.Trial)
        public void setUp(Size size) throws IOException {
            n = size.n;
            dir = Files.createTempDirectory("bulkdata-snapshot-bench");
            snapshot = dir.resolve("table.bulk");
            closedSnapshot = dir.resolve("closed.bulk");
            try (BulkTable closed = Subjects.table(Subjects.SOA, n, new long[n])) {
                Snapshots.save(closed, closedSnapshot);
            }
            raw = dir.resolve("raw.bin");
            objects = dir.resolve("objects.ser");
            data = dir.resolve("data.bin");
            table = Subjects.table(Subjects.SOA, n, new long[n]);
            rawBytes = ByteBuffer.allocateDirect(n * Subjects.SOA.slotBytes());
            list = Subjects.arrayList(n);
            // Every file exists once, so that the load subjects have something to read.
            saveBulk(this);
            rawWrite(this);
            objectOutputStream(this);
            dataOutputStream(this);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            table.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    @Benchmark
    @Fork(3)
    public static long saveBulk(Subject s) throws IOException {
        Snapshots.save(s.table, s.snapshot);
        return s.table.size();
    }

    @Benchmark
    @Fork(3)
    public static int loadBulk(Subject s) throws IOException {
        try (Table loaded = Snapshots.load(s.closedSnapshot, Subjects.SOA)) {
            return loaded.size();
        }
    }

    @Benchmark
    @Fork(3)
    public static long rawWrite(Subject s) throws IOException {
        try (FileChannel out = FileChannel.open(s.raw, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = s.rawBytes.clear();
            while (b.hasRemaining()) {
                out.write(b);
            }
            return out.position();
        }
    }

    @Benchmark
    @Fork(3)
    public static long rawRead(Subject s) throws IOException {
        try (FileChannel in = FileChannel.open(s.raw, StandardOpenOption.READ)) {
            ByteBuffer b = s.rawBytes.clear();
            while (b.hasRemaining() && in.read(b) >= 0) {
                // until full
            }
            return b.position();
        }
    }

    /**
     * The raw read into memory allocated for it: what any load into a new table must at least
     * pay, since a new table's memory is new (allocated, zeroed and first touched). Beside
     * {@link #rawRead}, which reads into a buffer allocated once in setup.
     */
    @Benchmark
    public static long rawReadIntoNewMemory(Subject s) throws IOException {
        try (FileChannel in = FileChannel.open(s.raw, StandardOpenOption.READ);
             Arena arena = Arena.ofShared()) {
            ByteBuffer b = arena.allocate((long) s.n * Subjects.SOA.slotBytes(), 64).asByteBuffer();
            while (b.hasRemaining() && in.read(b) >= 0) {
                // until full
            }
            return b.position();
        }
    }

    @Benchmark
    @Fork(3)
    public static int objectOutputStream(Subject s) throws IOException {
        try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(Files.newOutputStream(s.objects)))) {
            out.writeObject(s.list);
        }
        return s.list.size();
    }

    @Benchmark
    @SuppressWarnings("unchecked")
    @Fork(3)
    public static int objectInputStream(Subject s) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(Files.newInputStream(s.objects)))) {
            return ((ArrayList<Particle>) in.readObject()).size();
        }
    }

    @Benchmark
    public static int dataOutputStream(Subject s) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(s.data)))) {
            out.writeInt(s.list.size());
            for (Particle p : s.list) {
                out.writeFloat(p.t);
                out.writeFloat(p.px);
                out.writeFloat(p.py);
                out.writeFloat(p.pz);
                out.writeFloat(p.vx);
                out.writeFloat(p.vy);
                out.writeFloat(p.vz);
                out.writeFloat(p.pad);
            }
        }
        return s.list.size();
    }

    @Benchmark
    public static int dataInputStream(Subject s) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(s.data)))) {
            int n = in.readInt();
            ArrayList<Particle> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Particle p = new Particle(in.readFloat());
                p.px = in.readFloat();
                p.py = in.readFloat();
                p.pz = in.readFloat();
                p.vx = in.readFloat();
                p.vy = in.readFloat();
                p.vz = in.readFloat();
                p.pad = in.readFloat();
                list.add(p);
            }
            return list.size();
        }
    }
}
