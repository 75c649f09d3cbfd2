package dev.bulkdata.storage.vector;

import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.ChunkIteration;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.Table;

import java.util.Optional;

/**
 * SIMD kernels over the columns of a table's chunks: {@code fill}, {@code add}, {@code scale}, {@code axpy}
 * ({@code a += b * k}, the update {@code p += v * dt}), {@code sum}, {@code min}, {@code max}, and
 * {@code lessThan}, a comparison that yields a slot mask. Each comes for {@code float}, {@code double},
 * {@code int} and {@code long} fields, per chunk (inside your own iteration, on any thread) and for a whole table
 * (one iteration over its chunks).
 * <p>Run with {@code --add-modules jdk.incubator.vector} (class path or module path alike). Without it, on an x86
 * CPU without AVX2, and on {@link RecordLayout#AOS} tables, every kernel runs its scalar loop instead: same
 * results (sums aside), at the speed of per-slot access, nothing fails; {@link #vectorized()} says which. Kernels
 * read and write live records only: holes (and rows past a {@code PackedTable}'s end) are never written nor
 * counted. {@code fill}, {@code scale}, {@code add} and {@code axpy} stamp the written field's change version in
 * every chunk given that holds a live record; the reductions and {@code lessThan} only read, stamping nothing.
 * <p><b>Sums:</b> {@code float}/{@code double} add in an unspecified order (so may differ from a sequential loop
 * by rounding), a {@code float} chunk sum in {@code float}, a table sum the chunk sums in {@code double}; an
 * {@code int} sum widens to {@code long} (exact); a {@code long} sum wraps. <b>Minimum and maximum</b> fold
 * {@link Math#min(float, float)} and {@link Math#max(float, float)} over the live values (NaN if any is NaN,
 * {@code -0.0} below {@code 0.0}); with no live value they return the identity: positive infinity for a
 * floating-point {@code min}, negative for {@code max}, {@code MAX_VALUE} / {@code MIN_VALUE} for integers.
 * <b>Removing what a mask selects:</b> a mask names slots of its iteration only, and no record can be removed
 * while one is open: queue the removals with {@link #removeLater(Chunk, long[])}, or collect handles
 * ({@link #handles(Chunk, long[], long[], int)}, {@link #handlesLessThan(Table, FloatField, float, long[])}) for
 * {@code removeAll} after the pass.
 * <p><b>Errors</b> are checked before anything is written: a field of another schema throws
 * {@link IllegalArgumentException}, a chunk whose iteration has ended {@link IllegalStateException}.
 * <b>Threads and cost:</b> per-chunk kernels may run on many threads at once on distinct chunks of one open
 * iteration; whole-table kernels open one iteration on the calling thread (a concurrent add or remove throws
 * {@link java.util.ConcurrentModificationException}) and visit the chunks in order. All are O(slots visited); once
 * compiled no kernel allocates per record, but a whole-table call may allocate its one 32-byte iteration object.
 * Guide: docs/simd-kernels.md, "Holes", "Change versions", "Semantics".
 */
public final class Kernels {

    /**
     * Whether the kernels run on the Vector API: the module is resolved, this module reads it,
     * and the CPU has vectors the kernels compile to (see {@link #vectorized()}).
     */
    static final boolean VECTOR = vectorApiResolved() && wideVectors();

    private Kernels() {
    }

    private static boolean vectorApiResolved() {
        Optional<Module> vector = ModuleLayer.boot().findModule("jdk.incubator.vector");
        return vector.isPresent() && Kernels.class.getModule().canRead(vector.get());
    }

    /**
     * False on an x86 CPU without AVX2 (C2 then offers 128-bit vectors only), where the Vector
     * API runs much of the kernels' {@code long} and {@code double} work in Java and boxes
     * vectors per call; the scalar loops are faster there and allocate nothing. Called only
     * when the Vector API is resolved (it loads its classes).
     */
    private static boolean wideVectors() {
        String arch = System.getProperty("os.arch");
        boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        return !x86 || jdk.incubator.vector.VectorShape.preferredShape().vectorBitSize() >= 256;
    }

    /**
     * Whether the kernels run on the Vector API: {@code true} when the JVM was started with
     * {@code --add-modules jdk.incubator.vector} (and, on x86, the CPU has AVX2 or AVX-512),
     * {@code false} when every kernel runs its scalar loop (same results, see the class
     * documentation). Decided once per JVM.
     *
     * @return whether the kernels are vectorised
     */
    public static boolean vectorized() {
        return VECTOR;
    }

    /**
     * The width in bits of the vectors the kernels run on: that of the JVM's preferred species,
     * 512 with AVX-512 and 256 with AVX2 (also on an AVX-512 CPU whose JVM runs with
     * {@code -XX:UseAVX=2}); 0 when the kernels run their scalar loops ({@link #vectorized()}
     * is {@code false}). Decided once per JVM; for logs and benchmark reports.
     *
     * @return the vector width in bits, or 0
     */
    public static int vectorBits() {
        return VECTOR ? FloatVectors.S.vectorBitSize() : 0;
    }

    /**
     * A slot mask for the chunks of {@code schema}'s tables: one bit per slot, as
     * {@link #lessThan(Chunk, FloatField, float, long[]) lessThan} fills and
     * {@link #handles(Chunk, long[], long[], int) handles} and {@link #removeLater(Chunk, long[])}
     * read; make it once and reuse it for every chunk.
     *
     * @param schema the table's schema
     * @return a new mask of {@code (schema.slotsPerBlock() + 63) / 64} words
     */
    public static long[] mask(Schema schema) {
        return new long[(schema.slotsPerBlock() + 63) >>> 6];
    }

    /**
     * Queues the removal of the records in the slots of {@code mask} ({@link Chunk#removeLater},
     * applied when the pass ends), in slot order; the way to expire what
     * {@link #lessThan(Chunk, FloatField, float, long[]) lessThan} selected from inside the pass.
     *
     * @param chunk a chunk of an open iteration
     * @param mask the slot mask, at least {@code chunk.liveWordCount()} long
     * @return the number of removals queued
     * @throws IllegalArgumentException if {@code mask} is too short, or a slot of the mask holds
     *     no record (the removals before it stay queued)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int removeLater(Chunk chunk, long[] mask) {
        checkMask(chunk, mask);
        int count = 0;
        for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
            for (long bits = mask[w]; bits != 0; bits &= bits - 1) {
                chunk.removeLater((w << 6) + Long.numberOfTrailingZeros(bits));
                count++;
            }
        }
        return count;
    }

    /**
     * Writes the handles of the slots in {@code mask} (a mask of
     * {@link #lessThan(Chunk, FloatField, float, long[]) lessThan(Chunk, FloatField, float, long[])}
     * or another of this chunk's live slots) into {@code handles}, in slot order, from index
     * {@code at}.
     *
     * @param chunk a chunk of an open iteration
     * @param mask the slot mask, at least {@code chunk.liveWordCount()} long; words past those are
     *     ignored
     * @param handles receives the handles
     * @param at where the first handle goes
     * @return {@code at} plus the number of handles written
     * @throws IllegalArgumentException if {@code mask} is too short, {@code handles} has no room
     *     for every slot of the mask, or a slot of the mask holds no record (then nothing is
     *     written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int handles(Chunk chunk, long[] mask, long[] handles, int at) {
        checkMask(chunk, mask);
        int words = chunk.liveWordCount();
        int count = 0;
        for (int w = 0; w < words; w++) {
            if ((mask[w] & ~chunk.liveBits(w)) != 0) {
                throw new IllegalArgumentException("mask word " + w + " names slots that hold no record in " + chunk
                        + ": a mask is valid only for the chunk and the iteration it was made in");
            }
            count += Long.bitCount(mask[w]);
        }
        if (at < 0 || at > handles.length || handles.length - at < count) {
            throw new IllegalArgumentException("no room for " + count + " handles at " + at + " in an array of "
                    + handles.length);
        }
        for (int w = 0; w < words; w++) {
            at = handlesOf(chunk, w, mask[w], handles, at);
        }
        return at;
    }

    static int handlesOf(Chunk chunk, int w, long bits, long[] handles, int at) {
        for (; bits != 0; bits &= bits - 1) {
            handles[at++] = chunk.handle((w << 6) + Long.numberOfTrailingZeros(bits));
        }
        return at;
    }

    /** Values of the field are contiguous in its chunks' columns (SOA). */
    static boolean contiguous(Field field) {
        return field.schema().layout() == RecordLayout.SOA;
    }

    static void check(Chunk chunk, Field field) {
        check(chunk.schema(), field);
    }

    static void check(Table table, Field field) {
        check(table.schema(), field);
    }

    private static void check(Schema schema, Field field) {
        if (field.schema() != schema) {
            throw new IllegalArgumentException("field " + field + " belongs to schema '" + field.schema().name()
                    + "', not to table '" + schema.name() + "' (schemas are compared by identity)");
        }
    }

    static void checkMask(Chunk chunk, long[] mask) {
        if (mask.length < chunk.liveWordCount()) {
            throw new IllegalArgumentException("a mask of " + chunk + " needs " + chunk.liveWordCount()
                    + " words (liveWordCount()), not " + mask.length);
        }
    }

    static void checkRoom(Table table, long[] handles) {
        if (handles.length < table.size()) {
            throw new IllegalArgumentException("an array of " + handles.length + " handles cannot hold all "
                    + table.size() + " records of table '" + table.name() + "'; pass one of at least size()");
        }
    }

    // The typed kernels (fill .. handlesLessThan), one of each per lane type (ARCHITECTURE.md,
    // The four types):
    // @generated
    // from storage-vector/src/main/templates/dev/bulkdata/storage/vector/Kernels.java by codegen/Generate.java: edit the template, not these lines
    // ---------------------------------------------------------------- int

    /** Sets the field of every live record of the chunk to {@code value}; holes are not written. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Chunk chunk, IntField field, int value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            IntVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /** Multiplies the field of every live record of the chunk by {@code k}. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Chunk chunk, IntField field, int k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            IntVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /** Adds {@code c} to the field of every live record of the chunk. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Chunk chunk, IntField field, int c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            IntVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk, each operation rounded as in Java (no
     * fused multiply-add); {@code b} may be {@code a}.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Chunk chunk, IntField a, IntField b, int k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            IntVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /** {@return the sum of the field over the live records of the chunk}, 0 if none is live (see Sums). */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long sum(Chunk chunk, IntField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return IntVectors.sum(chunk, chunk.column(field));
        }
        return Scalar.sum(chunk, field);
    }

    /**
     * {@return the least value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static int min(Chunk chunk, IntField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return IntVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * {@return the greatest value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static int max(Chunk chunk, IntField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return IntVectors.max(chunk, chunk.column(field));
        }
        return Scalar.max(chunk, field);
    }

    /**
     * The slot mask of the live records of the chunk whose field is below {@code threshold}:
     * bit {@code b} of {@code mask[w]} is set iff slot {@code w * 64 + b} is live and its
     * value {@code < threshold} (a NaN is below nothing). Writes words
     * {@code 0 .. chunk.liveWordCount() - 1} of {@code mask}, leaves the rest. The mask names
     * slots of this iteration: turn it into handles ({@link Kernels#handles(Chunk, long[], long[], int)})
     * before the iteration ends, and remove by handle after (see Removing what a mask selects).
     *
     * @param chunk a chunk of an open iteration
     * @param field an {@code int} field of the chunk's schema
     * @param threshold the bound, exclusive
     * @param mask receives the mask; at least {@code chunk.liveWordCount()} long
     * @return the number of slots in the mask
     * @throws IllegalArgumentException if the field belongs to another schema or {@code mask}
     *     is too short (nothing written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int lessThan(Chunk chunk, IntField field, int threshold, long[] mask) {
        check(chunk, field);
        checkMask(chunk, mask);
        if (VECTOR && contiguous(field)) {
            return IntVectors.lessThan(chunk, chunk.column(field), threshold, mask);
        }
        return Scalar.lessThan(chunk, field, threshold, mask);
    }

    /** {@link #fill(Chunk, IntField, int) fill} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Table table, IntField field, int value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /** {@link #scale(Chunk, IntField, int) scale} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Table table, IntField field, int k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /** {@link #add(Chunk, IntField, int) add} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Table table, IntField field, int c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, IntField, IntField, int) axpy} over every chunk of the table, in
     * one iteration: the update {@code p += v * dt} of every live record.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Table table, IntField a, IntField b, int k) {
        check(table, a);
        check(table, b);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                axpy(chunks.chunk(c), a, b, k);
            }
        }
    }

    /**
     * {@return the sum of the field over the live records of the table}: the chunk sums added up
     * (see Sums); 0 for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long sum(Table table, IntField field) {
        check(table, field);
        long sum = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                sum += sum(chunks.chunk(c), field);
            }
        }
        return sum;
    }

    /** {@return the least value of the field over the live records of the table}, the identity for an empty table. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static int min(Table table, IntField field) {
        check(table, field);
        int min = Scalar.INT_MIN_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                min = Math.min(min, min(chunks.chunk(c), field));
            }
        }
        return min;
    }

    /**
     * {@return the greatest value of the field over the live records of the table}, the identity
     * for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static int max(Table table, IntField field) {
        check(table, field);
        int max = Scalar.INT_MAX_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                max = Math.max(max, max(chunks.chunk(c), field));
            }
        }
        return max;
    }

    /**
     * Collects the handles of the live records whose field is below {@code threshold}, in
     * iteration order, into {@code handles[0 .. count - 1]}: pass them to
     * {@link Table#removeAll(long[], int, int) removeAll(handles, 0, count)} to remove them.
     *
     * @param table an open table
     * @param field an {@code int} field of the table's schema
     * @param threshold the bound, exclusive (a NaN is below nothing)
     * @param handles receives the handles; at least {@code table.size()} long
     * @return the number of handles written
     * @throws IllegalArgumentException if the field belongs to another schema or
     *     {@code handles} is shorter than {@code table.size()} (nothing written)
     * @throws IllegalStateException if the table is closed
     */
    public static int handlesLessThan(Table table, IntField field, int threshold, long[] handles) {
        check(table, field);
        checkRoom(table, handles);
        int count = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long bits = VECTOR && contiguous(field)
                            ? IntVectors.lessThanWord(chunk, chunk.column(field), threshold, w)
                            : Scalar.lessThanWord(chunk, field, threshold, w);
                    count = handlesOf(chunk, w, bits, handles, count);
                }
            }
        }
        return count;
    }

    // ---------------------------------------------------------------- long

    /** Sets the field of every live record of the chunk to {@code value}; holes are not written. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Chunk chunk, LongField field, long value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            LongVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /** Multiplies the field of every live record of the chunk by {@code k}. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Chunk chunk, LongField field, long k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            LongVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /** Adds {@code c} to the field of every live record of the chunk. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Chunk chunk, LongField field, long c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            LongVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk, each operation rounded as in Java (no
     * fused multiply-add); {@code b} may be {@code a}.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Chunk chunk, LongField a, LongField b, long k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            LongVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /** {@return the sum of the field over the live records of the chunk}, 0 if none is live (see Sums). */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long sum(Chunk chunk, LongField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return LongVectors.sum(chunk, chunk.column(field));
        }
        return Scalar.sum(chunk, field);
    }

    /**
     * {@return the least value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long min(Chunk chunk, LongField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return LongVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * {@return the greatest value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long max(Chunk chunk, LongField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return LongVectors.max(chunk, chunk.column(field));
        }
        return Scalar.max(chunk, field);
    }

    /**
     * The slot mask of the live records of the chunk whose field is below {@code threshold}:
     * bit {@code b} of {@code mask[w]} is set iff slot {@code w * 64 + b} is live and its
     * value {@code < threshold} (a NaN is below nothing). Writes words
     * {@code 0 .. chunk.liveWordCount() - 1} of {@code mask}, leaves the rest. The mask names
     * slots of this iteration: turn it into handles ({@link Kernels#handles(Chunk, long[], long[], int)})
     * before the iteration ends, and remove by handle after (see Removing what a mask selects).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code long} field of the chunk's schema
     * @param threshold the bound, exclusive
     * @param mask receives the mask; at least {@code chunk.liveWordCount()} long
     * @return the number of slots in the mask
     * @throws IllegalArgumentException if the field belongs to another schema or {@code mask}
     *     is too short (nothing written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int lessThan(Chunk chunk, LongField field, long threshold, long[] mask) {
        check(chunk, field);
        checkMask(chunk, mask);
        if (VECTOR && contiguous(field)) {
            return LongVectors.lessThan(chunk, chunk.column(field), threshold, mask);
        }
        return Scalar.lessThan(chunk, field, threshold, mask);
    }

    /** {@link #fill(Chunk, LongField, long) fill} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Table table, LongField field, long value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /** {@link #scale(Chunk, LongField, long) scale} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Table table, LongField field, long k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /** {@link #add(Chunk, LongField, long) add} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Table table, LongField field, long c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, LongField, LongField, long) axpy} over every chunk of the table, in
     * one iteration: the update {@code p += v * dt} of every live record.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Table table, LongField a, LongField b, long k) {
        check(table, a);
        check(table, b);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                axpy(chunks.chunk(c), a, b, k);
            }
        }
    }

    /**
     * {@return the sum of the field over the live records of the table}: the chunk sums added up
     * (see Sums); 0 for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long sum(Table table, LongField field) {
        check(table, field);
        long sum = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                sum += sum(chunks.chunk(c), field);
            }
        }
        return sum;
    }

    /** {@return the least value of the field over the live records of the table}, the identity for an empty table. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long min(Table table, LongField field) {
        check(table, field);
        long min = Scalar.LONG_MIN_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                min = Math.min(min, min(chunks.chunk(c), field));
            }
        }
        return min;
    }

    /**
     * {@return the greatest value of the field over the live records of the table}, the identity
     * for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static long max(Table table, LongField field) {
        check(table, field);
        long max = Scalar.LONG_MAX_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                max = Math.max(max, max(chunks.chunk(c), field));
            }
        }
        return max;
    }

    /**
     * Collects the handles of the live records whose field is below {@code threshold}, in
     * iteration order, into {@code handles[0 .. count - 1]}: pass them to
     * {@link Table#removeAll(long[], int, int) removeAll(handles, 0, count)} to remove them.
     *
     * @param table an open table
     * @param field a {@code long} field of the table's schema
     * @param threshold the bound, exclusive (a NaN is below nothing)
     * @param handles receives the handles; at least {@code table.size()} long
     * @return the number of handles written
     * @throws IllegalArgumentException if the field belongs to another schema or
     *     {@code handles} is shorter than {@code table.size()} (nothing written)
     * @throws IllegalStateException if the table is closed
     */
    public static int handlesLessThan(Table table, LongField field, long threshold, long[] handles) {
        check(table, field);
        checkRoom(table, handles);
        int count = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long bits = VECTOR && contiguous(field)
                            ? LongVectors.lessThanWord(chunk, chunk.column(field), threshold, w)
                            : Scalar.lessThanWord(chunk, field, threshold, w);
                    count = handlesOf(chunk, w, bits, handles, count);
                }
            }
        }
        return count;
    }

    // ---------------------------------------------------------------- float

    /** Sets the field of every live record of the chunk to {@code value}; holes are not written. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Chunk chunk, FloatField field, float value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /** Multiplies the field of every live record of the chunk by {@code k}. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Chunk chunk, FloatField field, float k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /** Adds {@code c} to the field of every live record of the chunk. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Chunk chunk, FloatField field, float c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            FloatVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk, each operation rounded as in Java (no
     * fused multiply-add); {@code b} may be {@code a}.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Chunk chunk, FloatField a, FloatField b, float k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            FloatVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /** {@return the sum of the field over the live records of the chunk}, 0 if none is live (see Sums). */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double sum(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.sum(chunk, chunk.column(field));
        }
        return Scalar.sum(chunk, field);
    }

    /**
     * {@return the least value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float min(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * {@return the greatest value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float max(Chunk chunk, FloatField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.max(chunk, chunk.column(field));
        }
        return Scalar.max(chunk, field);
    }

    /**
     * The slot mask of the live records of the chunk whose field is below {@code threshold}:
     * bit {@code b} of {@code mask[w]} is set iff slot {@code w * 64 + b} is live and its
     * value {@code < threshold} (a NaN is below nothing). Writes words
     * {@code 0 .. chunk.liveWordCount() - 1} of {@code mask}, leaves the rest. The mask names
     * slots of this iteration: turn it into handles ({@link Kernels#handles(Chunk, long[], long[], int)})
     * before the iteration ends, and remove by handle after (see Removing what a mask selects).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code float} field of the chunk's schema
     * @param threshold the bound, exclusive
     * @param mask receives the mask; at least {@code chunk.liveWordCount()} long
     * @return the number of slots in the mask
     * @throws IllegalArgumentException if the field belongs to another schema or {@code mask}
     *     is too short (nothing written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int lessThan(Chunk chunk, FloatField field, float threshold, long[] mask) {
        check(chunk, field);
        checkMask(chunk, mask);
        if (VECTOR && contiguous(field)) {
            return FloatVectors.lessThan(chunk, chunk.column(field), threshold, mask);
        }
        return Scalar.lessThan(chunk, field, threshold, mask);
    }

    /** {@link #fill(Chunk, FloatField, float) fill} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Table table, FloatField field, float value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /** {@link #scale(Chunk, FloatField, float) scale} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Table table, FloatField field, float k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /** {@link #add(Chunk, FloatField, float) add} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Table table, FloatField field, float c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, FloatField, FloatField, float) axpy} over every chunk of the table, in
     * one iteration: the update {@code p += v * dt} of every live record.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Table table, FloatField a, FloatField b, float k) {
        check(table, a);
        check(table, b);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                axpy(chunks.chunk(c), a, b, k);
            }
        }
    }

    /**
     * {@return the sum of the field over the live records of the table}: the chunk sums added up
     * (see Sums); 0 for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double sum(Table table, FloatField field) {
        check(table, field);
        double sum = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                sum += sum(chunks.chunk(c), field);
            }
        }
        return sum;
    }

    /** {@return the least value of the field over the live records of the table}, the identity for an empty table. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float min(Table table, FloatField field) {
        check(table, field);
        float min = Scalar.FLOAT_MIN_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                min = Math.min(min, min(chunks.chunk(c), field));
            }
        }
        return min;
    }

    /**
     * {@return the greatest value of the field over the live records of the table}, the identity
     * for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static float max(Table table, FloatField field) {
        check(table, field);
        float max = Scalar.FLOAT_MAX_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                max = Math.max(max, max(chunks.chunk(c), field));
            }
        }
        return max;
    }

    /**
     * Collects the handles of the live records whose field is below {@code threshold}, in
     * iteration order, into {@code handles[0 .. count - 1]}: pass them to
     * {@link Table#removeAll(long[], int, int) removeAll(handles, 0, count)} to remove them.
     *
     * @param table an open table
     * @param field a {@code float} field of the table's schema
     * @param threshold the bound, exclusive (a NaN is below nothing)
     * @param handles receives the handles; at least {@code table.size()} long
     * @return the number of handles written
     * @throws IllegalArgumentException if the field belongs to another schema or
     *     {@code handles} is shorter than {@code table.size()} (nothing written)
     * @throws IllegalStateException if the table is closed
     */
    public static int handlesLessThan(Table table, FloatField field, float threshold, long[] handles) {
        check(table, field);
        checkRoom(table, handles);
        int count = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long bits = VECTOR && contiguous(field)
                            ? FloatVectors.lessThanWord(chunk, chunk.column(field), threshold, w)
                            : Scalar.lessThanWord(chunk, field, threshold, w);
                    count = handlesOf(chunk, w, bits, handles, count);
                }
            }
        }
        return count;
    }

    // ---------------------------------------------------------------- double

    /** Sets the field of every live record of the chunk to {@code value}; holes are not written. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Chunk chunk, DoubleField field, double value) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            DoubleVectors.fill(chunk, chunk.writableColumn(field), value);
        } else {
            Scalar.fill(chunk, field, value);
        }
    }

    /** Multiplies the field of every live record of the chunk by {@code k}. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Chunk chunk, DoubleField field, double k) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            DoubleVectors.scale(chunk, chunk.writableColumn(field), k);
        } else {
            Scalar.scale(chunk, field, k);
        }
    }

    /** Adds {@code c} to the field of every live record of the chunk. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Chunk chunk, DoubleField field, double c) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            DoubleVectors.add(chunk, chunk.writableColumn(field), c);
        } else {
            Scalar.add(chunk, field, c);
        }
    }

    /**
     * {@code a += b * k} for every live record of the chunk, each operation rounded as in Java (no
     * fused multiply-add); {@code b} may be {@code a}.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Chunk chunk, DoubleField a, DoubleField b, double k) {
        check(chunk, a);
        check(chunk, b);
        if (VECTOR && contiguous(a)) {
            DoubleVectors.axpy(chunk, chunk.writableColumn(a), chunk.column(b), k);
        } else {
            Scalar.axpy(chunk, a, b, k);
        }
    }

    /** {@return the sum of the field over the live records of the chunk}, 0 if none is live (see Sums). */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double sum(Chunk chunk, DoubleField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return DoubleVectors.sum(chunk, chunk.column(field));
        }
        return Scalar.sum(chunk, field);
    }

    /**
     * {@return the least value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double min(Chunk chunk, DoubleField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return DoubleVectors.min(chunk, chunk.column(field));
        }
        return Scalar.min(chunk, field);
    }

    /**
     * {@return the greatest value of the field over the live records of the chunk}, the identity if
     * none is live (see Minimum and maximum).
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double max(Chunk chunk, DoubleField field) {
        check(chunk, field);
        if (VECTOR && contiguous(field)) {
            return DoubleVectors.max(chunk, chunk.column(field));
        }
        return Scalar.max(chunk, field);
    }

    /**
     * The slot mask of the live records of the chunk whose field is below {@code threshold}:
     * bit {@code b} of {@code mask[w]} is set iff slot {@code w * 64 + b} is live and its
     * value {@code < threshold} (a NaN is below nothing). Writes words
     * {@code 0 .. chunk.liveWordCount() - 1} of {@code mask}, leaves the rest. The mask names
     * slots of this iteration: turn it into handles ({@link Kernels#handles(Chunk, long[], long[], int)})
     * before the iteration ends, and remove by handle after (see Removing what a mask selects).
     *
     * @param chunk a chunk of an open iteration
     * @param field a {@code double} field of the chunk's schema
     * @param threshold the bound, exclusive
     * @param mask receives the mask; at least {@code chunk.liveWordCount()} long
     * @return the number of slots in the mask
     * @throws IllegalArgumentException if the field belongs to another schema or {@code mask}
     *     is too short (nothing written)
     * @throws IllegalStateException if the chunk's iteration has ended
     */
    public static int lessThan(Chunk chunk, DoubleField field, double threshold, long[] mask) {
        check(chunk, field);
        checkMask(chunk, mask);
        if (VECTOR && contiguous(field)) {
            return DoubleVectors.lessThan(chunk, chunk.column(field), threshold, mask);
        }
        return Scalar.lessThan(chunk, field, threshold, mask);
    }

    /** {@link #fill(Chunk, DoubleField, double) fill} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void fill(Table table, DoubleField field, double value) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                fill(chunks.chunk(c), field, value);
            }
        }
    }

    /** {@link #scale(Chunk, DoubleField, double) scale} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void scale(Table table, DoubleField field, double k) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                scale(chunks.chunk(c), field, k);
            }
        }
    }

    /** {@link #add(Chunk, DoubleField, double) add} over every chunk of the table, in one iteration. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void add(Table table, DoubleField field, double c) {
        check(table, field);
        try (ChunkIteration chunks = table.iterate()) {
            for (int n = chunks.count(), i = 0; i < n; i++) {
                add(chunks.chunk(i), field, c);
            }
        }
    }

    /**
     * {@link #axpy(Chunk, DoubleField, DoubleField, double) axpy} over every chunk of the table, in
     * one iteration: the update {@code p += v * dt} of every live record.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static void axpy(Table table, DoubleField a, DoubleField b, double k) {
        check(table, a);
        check(table, b);
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                axpy(chunks.chunk(c), a, b, k);
            }
        }
    }

    /**
     * {@return the sum of the field over the live records of the table}: the chunk sums added up
     * (see Sums); 0 for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double sum(Table table, DoubleField field) {
        check(table, field);
        double sum = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                sum += sum(chunks.chunk(c), field);
            }
        }
        return sum;
    }

    /** {@return the least value of the field over the live records of the table}, the identity for an empty table. */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double min(Table table, DoubleField field) {
        check(table, field);
        double min = Scalar.DOUBLE_MIN_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                min = Math.min(min, min(chunks.chunk(c), field));
            }
        }
        return min;
    }

    /**
     * {@return the greatest value of the field over the live records of the table}, the identity
     * for an empty table.
     */
    @SuppressWarnings("doclint:missing") // the class documentation covers the arguments and what is thrown
    public static double max(Table table, DoubleField field) {
        check(table, field);
        double max = Scalar.DOUBLE_MAX_IDENTITY;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                max = Math.max(max, max(chunks.chunk(c), field));
            }
        }
        return max;
    }

    /**
     * Collects the handles of the live records whose field is below {@code threshold}, in
     * iteration order, into {@code handles[0 .. count - 1]}: pass them to
     * {@link Table#removeAll(long[], int, int) removeAll(handles, 0, count)} to remove them.
     *
     * @param table an open table
     * @param field a {@code double} field of the table's schema
     * @param threshold the bound, exclusive (a NaN is below nothing)
     * @param handles receives the handles; at least {@code table.size()} long
     * @return the number of handles written
     * @throws IllegalArgumentException if the field belongs to another schema or
     *     {@code handles} is shorter than {@code table.size()} (nothing written)
     * @throws IllegalStateException if the table is closed
     */
    public static int handlesLessThan(Table table, DoubleField field, double threshold, long[] handles) {
        check(table, field);
        checkRoom(table, handles);
        int count = 0;
        try (ChunkIteration chunks = table.iterate()) {
            for (int c = 0, n = chunks.count(); c < n; c++) {
                Chunk chunk = chunks.chunk(c);
                for (int w = 0, words = chunk.liveWordCount(); w < words; w++) {
                    long bits = VECTOR && contiguous(field)
                            ? DoubleVectors.lessThanWord(chunk, chunk.column(field), threshold, w)
                            : Scalar.lessThanWord(chunk, field, threshold, w);
                    count = handlesOf(chunk, w, bits, handles, count);
                }
            }
        }
        return count;
    }
    // @end-generated
}
