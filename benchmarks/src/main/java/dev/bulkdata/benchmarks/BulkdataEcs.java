package dev.bulkdata.benchmarks;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.ComponentTable;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.Group;
import dev.bulkdata.storage.Join;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.vector.Kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * bulkdata's side of {@link EcsPeersBenchmark}: every workload it runs against the JVM entity
 * libraries, in one place, each method naming the API path it measures, so a faster path can
 * replace one later without touching the benchmark or the peers.
 *
 * <p>The dense world is what the guides show for entities that all have a Position and a
 * Velocity: one {@link BulkTable} (SOA) with the six float fields; entity {@code i} of the
 * workloads is the record of handle {@code ids[i]}. The sparse world ({@link Sparse}) is an
 * entity table with two {@link ComponentTable}s, updated through a {@link Group} of the two
 * (the recommended path) or a {@link Join}; {@link SparseFloor} is its update with no library.
 */
final class BulkdataEcs implements AutoCloseable {
    static final Schema SCHEMA = Schema.builder("entities")
            .add(FieldType.FLOAT, "px", "py", "pz", "vx", "vy", "vz")
            .build();
    static final FloatField PX = SCHEMA.floatField("px");
    static final FloatField PY = SCHEMA.floatField("py");
    static final FloatField PZ = SCHEMA.floatField("pz");
    static final FloatField VX = SCHEMA.floatField("vx");
    static final FloatField VY = SCHEMA.floatField("vy");
    static final FloatField VZ = SCHEMA.floatField("vz");
    /** px, py, pz, vx, vy, vz: {@link UpdateBenchmark#fields}'s order. */
    private static final Field[] FIELDS = {PX, PY, PZ, VX, VY, VZ};
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT;
    private static final float DT = EcsSpec.DT;

    final int n;
    final BulkTable table;
    /** The handle of entity {@code i}. */
    final long[] ids;
    /** {@link #ids} in the order of the pre-shuffled read. */
    long[] shuffled = new long[0];

    /** An empty world for {@code n} entities. */
    BulkdataEcs(int n) {
        this.n = n;
        this.table = BulkTable.of(SCHEMA);
        this.ids = new long[n];
    }

    /**
     * Create by {@code add()} and six {@code set(h, field, value)}, one entity at a time;
     * entity i's handle into {@code ids[i]}. {@return the last handle}
     */
    static long addAndSet(BulkTable table, long[] ids, int count) {
        long h = 0;
        for (int i = 0; i < count; i++) {
            h = table.add();
            set(table, h, i);
            ids[i] = h;
        }
        return h;
    }

    /**
     * Create by one {@code addAll(ids, 0, count)}, then six {@code set(h, field, value)} per
     * entity. {@return the last handle}
     */
    static long addAllAndSet(BulkTable table, long[] ids, int count) {
        table.addAll(ids, 0, count);
        for (int i = 0; i < count; i++) {
            set(table, ids[i], i);
        }
        return ids[count - 1];
    }

    private static void set(BulkTable table, long h, int i) {
        table.set(h, PX, EcsSpec.px(i));
        table.set(h, PY, EcsSpec.py(i));
        table.set(h, PZ, EcsSpec.pz(i));
        table.set(h, VX, EcsSpec.vx(i));
        table.set(h, VY, EcsSpec.vy(i));
        table.set(h, VZ, EcsSpec.vz(i));
    }

    /** Fills the empty world with {@code n} entities by {@link #addAllAndSet}. */
    BulkdataEcs fill() {
        addAllAndSet(table, ids, n);
        return this;
    }

    /** Keeps {@code ids} in the given order (a permutation of 0..n-1) for {@link #readShuffled}. */
    void shuffle(int[] order) {
        shuffled = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            shuffled[i] = ids[order[i]];
        }
    }

    /**
     * Update {@code p += v * dt} through the chunk loop of the guide
     * (docs/iteration-and-change-versions.md): {@code iterate()}, per chunk
     * {@code writableColumn} for the positions and {@code column} for the velocities, a chunk
     * without holes as one loop from 0, else the set bits of {@code liveBits} 64 slots at a
     * time, with {@code JAVA_FLOAT_UNALIGNED}: {@link UpdateBenchmark#updateColumns(Chunk, Field[])},
     * whose {@code dt} is {@link EcsSpec#DT} too.
     */
    void updateColumns() {
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, count = chunks.count(); c < count; c++) {
                UpdateBenchmark.updateColumns(chunks.chunk(c), FIELDS);
            }
        }
    }

    /**
     * Update {@code p += v * dt} through storage-vector's kernels (docs/simd-kernels.md): one
     * whole-table {@code Kernels.axpy(table, p, v, dt)} per axis.
     */
    void updateKernels() {
        Kernels.axpy(table, PX, VX, DT);
        Kernels.axpy(table, PY, VY, DT);
        Kernels.axpy(table, PZ, VZ, DT);
    }

    /** Update {@code p += v * dt} through {@code table.forEach((chunk, slot) -> ...)} and typed slot access. */
    void updateForEach() {
        table.forEach((chunk, slot) -> {
            chunk.set(slot, PX, chunk.get(slot, PX) + chunk.get(slot, VX) * DT);
            chunk.set(slot, PY, chunk.get(slot, PY) + chunk.get(slot, VY) * DT);
            chunk.set(slot, PZ, chunk.get(slot, PZ) + chunk.get(slot, VZ) * DT);
        });
    }

    /** Sum of {@code get(h, px)} of {@code n} entities at random positions of {@code ids}. */
    float readRandom() {
        long state = EcsSpec.SEED;
        float sum = 0;
        long[] ids = this.ids;
        for (int k = 0; k < n; k++) {
            state = EcsSpec.next(state);
            sum += table.get(ids[EcsSpec.position(state, n)], PX);
        }
        return sum;
    }

    /** Sum of {@code get(h, px)} of every entity, in the shuffled order. */
    float readShuffled() {
        float sum = 0;
        for (long h : shuffled) {
            sum += table.get(h, PX);
        }
        return sum;
    }

    /**
     * Churn by {@code remove(h)} of the entities at positions {@code half} of {@code ids}, then
     * as many {@link #addAndSet}-style creates in their place. {@return the size after}
     */
    int churn(int[] half) {
        for (int i : half) {
            table.remove(ids[i]);
        }
        for (int i : half) {
            long h = table.add();
            set(table, h, i);
            ids[i] = h;
        }
        return table.size();
    }

    /**
     * Churn in batches: the handles of the entities at positions {@code half} of {@code ids}
     * gathered into {@code batch} (as long as {@code half}), one {@code removeAll(batch)}, one
     * {@code addAll(batch, 0, n, init)} whose {@code init} writes the six fields of each new
     * entity through its chunk (docs/tables-and-handles.md). {@return the size after}
     */
    int churnBatch(int[] half, long[] batch) {
        for (int k = 0; k < half.length; k++) {
            batch[k] = ids[half[k]];
        }
        table.removeAll(batch);
        table.addAll(batch, 0, half.length, (chunk, slot, k) -> {
            int i = half[k];
            chunk.set(slot, PX, EcsSpec.px(i));
            chunk.set(slot, PY, EcsSpec.py(i));
            chunk.set(slot, PZ, EcsSpec.pz(i));
            chunk.set(slot, VX, EcsSpec.vx(i));
            chunk.set(slot, VY, EcsSpec.vy(i));
            chunk.set(slot, VZ, EcsSpec.vz(i));
        });
        for (int k = 0; k < half.length; k++) {
            ids[half[k]] = batch[k];
        }
        return table.size();
    }

    /** Sum of {@code x + y + z} of entities {@code 0..count-1}, in that order. */
    double checksum(int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) {
            long h = ids[i];
            sum += (double) table.get(h, PX) + table.get(h, PY) + table.get(h, PZ);
        }
        return sum;
    }

    int size() {
        return table.size();
    }

    @Override
    public void close() {
        table.close();
    }

    /**
     * The sparse world: an entity table, a Position and a Velocity {@link ComponentTable}, every
     * entity with a Position and 10 % ({@link EcsSpec#hasVelocity}) with a Velocity too. The
     * update walks either a {@link Join} of the two, or (if grouped) a {@link Group} of the two,
     * made before the first component is added and kept by every add.
     */
    static final class Sparse implements AutoCloseable {
        static final Schema ENTITY = Schema.builder("entity").add(FieldType.INT, "kind").build();
        static final Schema POSITION = Schema.builder("position").add(FieldType.FLOAT, "x", "y", "z").build();
        static final Schema VELOCITY = Schema.builder("velocity").add(FieldType.FLOAT, "x", "y", "z").build();
        static final FloatField X = POSITION.floatField("x");
        static final FloatField Y = POSITION.floatField("y");
        static final FloatField Z = POSITION.floatField("z");
        static final FloatField DX = VELOCITY.floatField("x");
        static final FloatField DY = VELOCITY.floatField("y");
        static final FloatField DZ = VELOCITY.floatField("z");
        private static final ValueLayout.OfFloat FU = ValueLayout.JAVA_FLOAT_UNALIGNED;

        final BulkTable entities = BulkTable.of(ENTITY);
        final ComponentTable positions = ComponentTable.of(entities, POSITION);
        final ComponentTable velocities = ComponentTable.of(entities, VELOCITY);
        final Join moving;
        final Join.Visitor mover;
        /** The group of the two, or null. */
        final Group group;
        final Group.RunVisitor runMover = Sparse::moveRun;
        final Join.RunVisitor matchMover = Sparse::moveMatches;
        final long[] ids;

        /** The world with a {@link Join} only. */
        Sparse(int n) {
            this(n, false);
        }

        /** The world, its two component tables grouped if {@code grouped}. */
        Sparse(int n, boolean grouped) {
            ids = new long[n];
            group = grouped ? Group.of(positions, velocities) : null;
            entities.addAll(ids);
            for (int i = 0; i < n; i++) {
                int p = positions.add(ids[i]);
                positions.setAt(p, X, EcsSpec.px(i));
                positions.setAt(p, Y, EcsSpec.py(i));
                positions.setAt(p, Z, EcsSpec.pz(i));
                if (EcsSpec.hasVelocity(i)) {
                    int v = velocities.add(ids[i]);
                    velocities.setAt(v, DX, EcsSpec.vx(i));
                    velocities.setAt(v, DY, EcsSpec.vy(i));
                    velocities.setAt(v, DZ, EcsSpec.vz(i));
                }
            }
            moving = Join.of(positions, velocities);
            ComponentTable pos = positions;
            ComponentTable vel = velocities;
            mover = (entity, rows) -> {
                int p = rows[0];
                int v = rows[1];
                pos.setAt(p, X, pos.getAt(p, X) + vel.getAt(v, DX) * DT);
                pos.setAt(p, Y, pos.getAt(p, Y) + vel.getAt(v, DY) * DT);
                pos.setAt(p, Z, pos.getAt(p, Z) + vel.getAt(v, DZ) * DT);
            };
        }

        /**
         * Update {@code p += v * dt} of the entities with both components:
         * {@code Join.of(positions, velocities).forEach((entity, rows) -> ...)} with
         * {@code getAt}/{@code setAt} on the rows. {@return the entities visited}
         */
        int updateJoin() {
            return moving.forEach(mover);
        }

        /**
         * The same update through the join's runs: {@code Join.of(positions, velocities).forEachRun(run -> ...)}, per
         * run the chunk columns of both tables and a loop over the matches' slots. {@return the entities visited}
         */
        int updateJoinRuns() {
            return moving.forEachRun(matchMover);
        }

        /** The loop of {@link #updateJoinRuns}: one run, each member's rows in one block. */
        private static void moveMatches(Join.Run run) {
            MemorySegment px = run.chunk(0).writableColumn(X);
            MemorySegment py = run.chunk(0).writableColumn(Y);
            MemorySegment pz = run.chunk(0).writableColumn(Z);
            MemorySegment vx = run.chunk(1).column(DX);
            MemorySegment vy = run.chunk(1).column(DY);
            MemorySegment vz = run.chunk(1).column(DZ);
            for (int i = 0, n = run.count(); i < n; i++) {
                long p = run.slot(0, i);
                long v = run.slot(1, i);
                px.setAtIndex(FU, p, px.getAtIndex(FU, p) + vx.getAtIndex(FU, v) * DT);
                py.setAtIndex(FU, p, py.getAtIndex(FU, p) + vy.getAtIndex(FU, v) * DT);
                pz.setAtIndex(FU, p, pz.getAtIndex(FU, p) + vz.getAtIndex(FU, v) * DT);
            }
        }

        /**
         * Update {@code p += v * dt} of the entities with both components through the group's
         * runs: {@code group.forEachRun(run -> ...)}, per run the chunk columns of both tables
         * ({@code writableColumn} of the positions, {@code column} of the velocities) and a
         * counted loop over the run's slots. {@return the entities visited}
         */
        int updateGroup() {
            return group.forEachRun(runMover);
        }

        /** The loop of {@link #updateGroup}: one run, rows in the same block of each table. */
        private static void moveRun(Group.Run run) {
            Chunk p = run.chunk(0);
            Chunk v = run.chunk(1);
            MemorySegment px = p.writableColumn(X);
            MemorySegment py = p.writableColumn(Y);
            MemorySegment pz = p.writableColumn(Z);
            MemorySegment vx = v.column(DX);
            MemorySegment vy = v.column(DY);
            MemorySegment vz = v.column(DZ);
            long ps = run.slot(0);          // long: the index ps + i cannot overflow, so the checks leave the loop
            long vs = run.slot(1);
            for (int i = 0, n = run.count(); i < n; i++) {
                px.setAtIndex(FU, ps + i, px.getAtIndex(FU, ps + i) + vx.getAtIndex(FU, vs + i) * DT);
                py.setAtIndex(FU, ps + i, py.getAtIndex(FU, ps + i) + vy.getAtIndex(FU, vs + i) * DT);
                pz.setAtIndex(FU, ps + i, pz.getAtIndex(FU, ps + i) + vz.getAtIndex(FU, vs + i) * DT);
            }
        }

        /** Sum of {@code x + y + z} of entities {@code 0..count-1}, in that order. */
        double checksum(int count) {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                long h = ids[i];
                sum += (double) positions.get(h, X) + positions.get(h, Y) + positions.get(h, Z);
            }
            return sum;
        }

        @Override
        public void close() {
            if (group != null) {
                group.close();
            }
            positions.close();
            velocities.close();
            entities.close();
        }
    }

    /**
     * The sparse update's floor, no library: the component tables' layout (each a run of
     * 12 KiB blocks of 1,024 rows, three float columns of the schema's offsets) with plain
     * {@code int[]} in place of the sparse sets, and no generation, liveness or bounds check of
     * the library's. Two row orders: {@link #updateJoin} is today's join over it (positions in
     * entity order, the velocity rows' keys probed into the positions' rows), and, with the
     * moving entities' positions first, {@link #updateGroup} the group's lockstep walk.
     */
    static final class SparseFloor implements AutoCloseable {
        private static final ValueLayout.OfFloat FU = ValueLayout.JAVA_FLOAT_UNALIGNED;
        final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        final int perBlock = Sparse.POSITION.slotsPerBlock();
        final int shift = Integer.numberOfTrailingZeros(perBlock);
        final int mask = perBlock - 1;
        final long ox = Sparse.X.blockOffset();
        final long oy = Sparse.Y.blockOffset();
        final long oz = Sparse.Z.blockOffset();
        final long odx = Sparse.DX.blockOffset();
        final long ody = Sparse.DY.blockOffset();
        final long odz = Sparse.DZ.blockOffset();
        final MemorySegment[] positions;
        final MemorySegment[] velocities;
        /** The position row of entity i (the sparse array). */
        final int[] positionRow;
        /** The entity of velocity row r (the dense keys). */
        final int[] velocityKey;
        final int moving;

        /** The world of n entities, the moving ones' positions first if {@code grouped}. */
        SparseFloor(int n, boolean grouped) {
            if (Sparse.VELOCITY.slotsPerBlock() != perBlock) {
                throw new IllegalStateException("the floor assumes one block size for both tables");
            }
            moving = EcsSpec.moving(n);
            positionRow = new int[n];
            velocityKey = new int[moving];
            positions = blocks(n);
            velocities = blocks(moving);
            int first = 0;
            int rest = moving;
            for (int i = 0; i < n; i++) {
                boolean moves = EcsSpec.hasVelocity(i);
                int row = grouped ? (moves ? first++ : rest++) : i;
                positionRow[i] = row;
                MemorySegment block = positions[row >>> shift];
                long s = (row & mask) * 4L;
                block.set(FU, ox + s, EcsSpec.px(i));
                block.set(FU, oy + s, EcsSpec.py(i));
                block.set(FU, oz + s, EcsSpec.pz(i));
            }
            for (int i = 0, v = 0; i < n; i++) {
                if (EcsSpec.hasVelocity(i)) {
                    velocityKey[v] = i;
                    MemorySegment block = velocities[v >>> shift];
                    long s = (v & mask) * 4L;
                    block.set(FU, odx + s, EcsSpec.vx(i));
                    block.set(FU, ody + s, EcsSpec.vy(i));
                    block.set(FU, odz + s, EcsSpec.vz(i));
                    v++;
                }
            }
        }

        private MemorySegment[] blocks(int rows) {
            MemorySegment[] blocks = new MemorySegment[(rows + mask) >>> shift];
            for (int b = 0; b < blocks.length; b++) {
                blocks[b] = arena.allocate(Sparse.POSITION.blockBytes(), 64);
            }
            return blocks;
        }

        /** The join's walk: each velocity row's key looked up in the positions' sparse array. {@return the matches} */
        int updateJoin() {
            int[] rowOf = positionRow;
            int[] keys = velocityKey;
            for (int v = 0; v < moving; v++) {
                int p = rowOf[keys[v]];
                MemorySegment pb = positions[p >>> shift];
                MemorySegment vb = velocities[v >>> shift];
                long ps = (p & mask) * 4L;
                long vs = (v & mask) * 4L;
                pb.set(FU, ox + ps, pb.get(FU, ox + ps) + vb.get(FU, odx + vs) * DT);
                pb.set(FU, oy + ps, pb.get(FU, oy + ps) + vb.get(FU, ody + vs) * DT);
                pb.set(FU, oz + ps, pb.get(FU, oz + ps) + vb.get(FU, odz + vs) * DT);
            }
            return moving;
        }

        /**
         * The group's walk: rows 0..moving-1 of both, block by block, a counted loop from 0 over
         * each block's columns at their offsets. {@return the matches}
         */
        int updateGroup() {
            long x = ox;
            long y = oy;
            long z = oz;
            long dx = odx;
            long dy = ody;
            long dz = odz;
            for (int b = 0, blocks = (moving + mask) >>> shift; b < blocks; b++) {
                MemorySegment pb = positions[b];
                MemorySegment vb = velocities[b];
                for (int s = 0, n = Math.min(perBlock, moving - (b << shift)); s < n; s++) {
                    long o = s * 4L;
                    pb.set(FU, x + o, pb.get(FU, x + o) + vb.get(FU, dx + o) * DT);
                    pb.set(FU, y + o, pb.get(FU, y + o) + vb.get(FU, dy + o) * DT);
                    pb.set(FU, z + o, pb.get(FU, z + o) + vb.get(FU, dz + o) * DT);
                }
            }
            return moving;
        }

        /** Sum of {@code x + y + z} of entities {@code 0..count-1}, in that order. */
        double checksum(int count) {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                int row = positionRow[i];
                MemorySegment block = positions[row >>> shift];
                long s = (row & mask) * 4L;
                sum += (double) block.get(FU, ox + s) + block.get(FU, oy + s) + block.get(FU, oz + s);
            }
            return sum;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /**
     * The update's floor, no library: the same 24-byte SOA records in 12 KiB native blocks of
     * 512 (a {@code BulkTable} block of this schema: six columns of 512 floats), every slot
     * live, updated block by block with no live bits, checks or chunks.
     */
    static final class Floor implements AutoCloseable {
        static final int SLOTS = 512;
        static final long BLOCK = SLOTS * 24L;
        final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        final MemorySegment[] blocks;
        final int n;

        Floor(int n) {
            this.n = n;
            blocks = new MemorySegment[(n + SLOTS - 1) / SLOTS];
            for (int b = 0; b < blocks.length; b++) {
                blocks[b] = arena.allocate(BLOCK, 64);
            }
            for (int i = 0; i < n; i++) {
                MemorySegment block = blocks[i / SLOTS];
                int s = i % SLOTS;
                block.setAtIndex(F, s, EcsSpec.px(i));
                block.setAtIndex(F, SLOTS + s, EcsSpec.py(i));
                block.setAtIndex(F, 2 * SLOTS + s, EcsSpec.pz(i));
                block.setAtIndex(F, 3 * SLOTS + s, EcsSpec.vx(i));
                block.setAtIndex(F, 4 * SLOTS + s, EcsSpec.vy(i));
                block.setAtIndex(F, 5 * SLOTS + s, EcsSpec.vz(i));
            }
        }

        /** {@code p += v * dt} over every record of every block, column slices of each block. */
        void update() {
            long column = SLOTS * 4L;
            for (int b = 0; b < blocks.length; b++) {
                MemorySegment block = blocks[b];
                int live = Math.min(SLOTS, n - b * SLOTS);
                MemorySegment px = block.asSlice(0, column);
                MemorySegment py = block.asSlice(column, column);
                MemorySegment pz = block.asSlice(2 * column, column);
                MemorySegment vx = block.asSlice(3 * column, column);
                MemorySegment vy = block.asSlice(4 * column, column);
                MemorySegment vz = block.asSlice(5 * column, column);
                for (int s = 0; s < live; s++) {
                    px.setAtIndex(F, s, px.getAtIndex(F, s) + vx.getAtIndex(F, s) * DT);
                    py.setAtIndex(F, s, py.getAtIndex(F, s) + vy.getAtIndex(F, s) * DT);
                    pz.setAtIndex(F, s, pz.getAtIndex(F, s) + vz.getAtIndex(F, s) * DT);
                }
            }
        }

        /** Sum of {@code x + y + z} of records {@code 0..count-1}. */
        double checksum(int count) {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                MemorySegment block = blocks[i / SLOTS];
                int s = i % SLOTS;
                sum += (double) block.getAtIndex(F, s) + block.getAtIndex(F, SLOTS + s)
                        + block.getAtIndex(F, 2 * SLOTS + s);
            }
            return sum;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /**
     * The random read's floor, no library: the table's lookup layout for the same n records,
     * every check a handle gets from {@code get(h, px)} but no more. Handles as a table's (tag
     * in the top 8 bits, a 24-bit generation at 32, the slot below); a meta word per slot
     * ({@code generation << 1 | live}) in one native range; the records' columns in 16 KiB
     * blocks of 512 in another, {@code px} at the block's start. The read: the handle from
     * {@code ids} at a random position, its tag and meta word checked, then {@code px}.
     */
    static final class ReadFloor implements AutoCloseable {
        static final long TAG = 0x5A;
        static final int SLOTS = 512;
        final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        final MemorySegment meta;
        final MemorySegment region;
        final long[] ids;
        final int n;

        ReadFloor(int n) {
            this.n = n;
            ids = new long[n];
            meta = arena.allocate(4L * n, 64);
            region = arena.allocate((long) ((n + SLOTS - 1) / SLOTS) << 14, 4096);
            for (int i = 0; i < n; i++) {
                int generation = i % 3;
                meta.setAtIndex(ValueLayout.JAVA_INT, i, generation << 1 | 1);
                ids[i] = TAG << 56 | (long) generation << 32 | i;
                region.set(F, ((long) (i >>> 9) << 14) + (i & (SLOTS - 1)) * 4L, EcsSpec.px(i));
            }
        }

        /** As {@link #readRandom()}. */
        float readRandom() {
            long state = EcsSpec.SEED;
            float sum = 0;
            long[] ids = this.ids;
            MemorySegment meta = this.meta;
            MemorySegment region = this.region;
            for (int k = 0; k < n; k++) {
                state = EcsSpec.next(state);
                long h = ids[EcsSpec.position(state, n)];
                int slot = (int) h;
                if ((h >>> 56) != TAG
                        || meta.getAtIndex(ValueLayout.JAVA_INT, slot) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                    throw new IllegalArgumentException("stale");
                }
                sum += region.get(F, ((long) (slot >>> 9) << 14) + (slot & (SLOTS - 1)) * 4L);
            }
            return sum;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /**
     * The one-by-one churn's floor, no library: a slot map of the table's layout for n records
     * with the checks a handle gets, but no more. Handles, meta words and 16 KiB blocks as in
     * {@link ReadFloor}; the live bits and the free bits one {@code long[]} each for the table;
     * a removal checks the handle, advances the slot's generation and marks it free; an add
     * takes the next free slot at or after a sweeping cursor (bulkdata's default reuse order)
     * and makes it live, then six checked stores. Not done, where bulkdata does: zeroing a
     * reused record (the six stores write it whole), change versions, the writer claim.
     */
    static final class ChurnFloor implements AutoCloseable {
        static final long TAG = 0x5A;
        static final int SLOTS = 512;
        static final int META_MASK = 0x1FF_FFFF;
        final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        final MemorySegment meta;
        final MemorySegment region;
        final long[] live;
        final long[] free;
        final long[] ids;
        int cursor;
        int size;

        ChurnFloor(int n) {
            ids = new long[n];
            live = new long[(n + 63) >>> 6];
            free = new long[live.length];
            meta = arena.allocate(4L * n, 64);
            region = arena.allocate((long) ((n + SLOTS - 1) / SLOTS) << 14, 4096);
            for (int i = 0; i < n; i++) {
                meta.setAtIndex(ValueLayout.JAVA_INT, i, 1);
                live[i >>> 6] |= 1L << i;
                ids[i] = TAG << 56 | i;
                set(ids[i], i);
            }
            size = n;
        }

        /** As {@link BulkdataEcs#churn}. */
        int churn(int[] half) {
            for (int i : half) {
                remove(ids[i]);
            }
            for (int i : half) {
                long h = add();
                set(h, i);
                ids[i] = h;
            }
            return size;
        }

        private int check(long h) {
            int slot = (int) h;
            if ((h >>> 56) != TAG
                    || meta.getAtIndex(ValueLayout.JAVA_INT, slot) != (((int) (h >>> 32) & 0xFF_FFFF) << 1 | 1)) {
                throw new IllegalArgumentException("stale");
            }
            return slot;
        }

        private void remove(long h) {
            int slot = check(h);
            int m = meta.getAtIndex(ValueLayout.JAVA_INT, slot);
            meta.setAtIndex(ValueLayout.JAVA_INT, slot, ((m & ~1) + 2) & META_MASK);
            live[slot >>> 6] &= ~(1L << slot);
            free[slot >>> 6] |= 1L << slot;
            size--;
        }

        private long add() {
            long[] free = this.free;
            int w = cursor;
            long bits;
            while ((bits = free[w]) == 0) {
                w = w + 1 == free.length ? 0 : w + 1;
            }
            cursor = w;
            int slot = (w << 6) + Long.numberOfTrailingZeros(bits);
            free[w] = bits & (bits - 1);
            live[w] |= 1L << slot;
            int m = meta.getAtIndex(ValueLayout.JAVA_INT, slot) | 1;
            meta.setAtIndex(ValueLayout.JAVA_INT, slot, m);
            size++;
            return TAG << 56 | (long) (m >>> 1) << 32 | slot;
        }

        private void set(long h, int i) {
            put(h, 0, EcsSpec.px(i));
            put(h, 1, EcsSpec.py(i));
            put(h, 2, EcsSpec.pz(i));
            put(h, 3, EcsSpec.vx(i));
            put(h, 4, EcsSpec.vy(i));
            put(h, 5, EcsSpec.vz(i));
        }

        private void put(long h, int column, float value) {
            int slot = check(h);
            region.set(F, ((long) (slot >>> 9) << 14) + column * (SLOTS * 4L) + (slot & (SLOTS - 1)) * 4L, value);
        }

        private float get(long h, int column) {
            int slot = check(h);
            return region.get(F, ((long) (slot >>> 9) << 14) + column * (SLOTS * 4L) + (slot & (SLOTS - 1)) * 4L);
        }

        /** As {@link BulkdataEcs#checksum}. */
        double checksum(int count) {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                long h = ids[i];
                sum += (double) get(h, 0) + get(h, 1) + get(h, 2);
            }
            return sum;
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
