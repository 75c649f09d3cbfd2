package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.schema.Field;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.Schema;
import dev.bulkdata.storage.schema.StorageFileException;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.util.Arrays;

/**
 * Fuzzes {@link Snapshots#load}: the input is a mode byte and a snapshot's bytes, which Jazzer
 * mutates from the committed seeds (valid snapshots of both kinds, under
 * {@code src/test/resources/dev/bulkdata/storage/SnapshotFuzzTestInputs/load/}). Mode bit 0
 * recomputes every CRC32C first ({@link SnapshotBytes#reseal}), so that mutations reach the
 * checks behind the checksums; bit 1 loads under a new tag; bit 2 expects the seeds' schema.
 *
 * <p>Mode bit 3 makes the bytes a component table's snapshot instead, loaded for the entity
 * table it was saved with (a committed resource, loaded once under a new tag); its seeds are
 * {@code seed-components-mode*}.
 *
 * <p>A loaded table's handle field {@code ref} (aimed at its own table) is checked with
 * {@link Snapshots#danglingReferences} and remapped ({@link Snapshots#remap}), once.
 *
 * <p>Every input must end in one of two ways: a {@link StorageFileException}, or a table that
 * passes its invariant audit, takes adds and removes, and saves and loads again to an equal
 * table. A {@link CapacityExceededException} counts as the first only where the file asks for
 * more than there is ({@link #checkCapacityExceeded}): generations no free tag can take, for a
 * new-tag load, or native memory beyond what this JVM may allocate. Anything else (another
 * exception, an {@code OutOfMemoryError}, a crash) is a failure. Every input starts from the
 * table tags of a fresh JVM ({@link FuzzTags}).
 */
class SnapshotFuzzTest {
    static final String CI_BUDGET = "10s";
    static final Schema SEED_SCHEMA = Schema.builder("fuzzed").add(FieldType.LONG, "id").add(FieldType.FLOAT, "x")
            .add(FieldType.BYTE, "flag").addHandle("ref", "fuzzed").build();

    /** The component seeds' schema: their records refer to the entities through a handle field too. */
    static final Schema COMPONENT_SCHEMA = Schema.builder("fuzzedParts").add(FieldType.INT, "n")
            .addHandle("other", "fuzzedEntities").build();
    static final Schema ENTITY_SCHEMA = Schema.builder("fuzzedEntities").add(FieldType.INT, "k").build();
    /** The committed entity table the component seeds were saved with (resource beside the inputs). */
    static final String ENTITY_RESOURCE = "SnapshotFuzzEntities.bulk";

    /** The entity table of the component seeds, loaded once per JVM under a new tag (so generations may move). */
    private static final class Entities {
        static final Table TABLE = loadEntities();

        private static Table loadEntities() {
            try (var in = SnapshotFuzzTest.class.getResourceAsStream(ENTITY_RESOURCE)) {
                return Snapshots.load(java.nio.channels.Channels.newChannel(in), ENTITY_RESOURCE, Table.class,
                        ENTITY_SCHEMA, Snapshots.LoadOption.NEW_TAG);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    @FuzzTest(maxDuration = CI_BUDGET)
    void load(byte[] input) throws IOException {
        FuzzTags.forgetClosedTables();
        if (input.length == 0) {
            return;
        }
        int mode = input[0];
        byte[] file = Arrays.copyOfRange(input, 1, input.length);
        if ((mode & 1) != 0) {
            SnapshotBytes.reseal(file);
        }
        if ((mode & 8) != 0) {
            loadComponents(file, (mode & 4) != 0 ? COMPONENT_SCHEMA : null);
            return;
        }
        Snapshots.LoadOption[] options = (mode & 2) != 0
                ? new Snapshots.LoadOption[] {Snapshots.LoadOption.NEW_TAG} : new Snapshots.LoadOption[0];
        Table table;
        try {
            table = SnapshotBytes.load(file, (mode & 4) != 0 ? SEED_SCHEMA : null, options);
        } catch (StorageFileException e) {
            if (!e.getMessage().startsWith("storage file bytes: ") || e.reason() == null) {
                throw new AssertionError("unclear message: " + e.getMessage(), e);
            }
            return;
        } catch (CapacityExceededException e) {
            checkCapacityExceeded(e, (mode & 2) != 0);
            return;
        }
        try (table) {
            AbstractTable impl = (AbstractTable) table;
            TableAudit.check(impl);
            // References among its own records: counted, and remapped after a new-tag load.
            long dangling = Snapshots.danglingReferences(table, table);
            Snapshots.remap(table, table);
            if (dangling < 0 || Snapshots.remap(table, table) != 0) {
                throw new AssertionError("dangling " + dangling + ", or a second remap moved references again");
            }
            TableSnapshot before = TableSnapshot.of(table);
            byte[] again = SnapshotBytes.save(table);
            table.close();
            try (Table reloaded = SnapshotBytes.load(again, table.schema())) {
                TableSnapshot after = TableSnapshot.of(reloaded);
                if (!after.equals(before)) {
                    throw new AssertionError("a loaded table saved and loaded again differs:\n" + before + "\n" + after);
                }
                long[] added = new long[3];
                try {
                    reloaded.addAll(added);
                    reloaded.remove(added[1]);
                } catch (CapacityExceededException full) {
                    // a loaded table may well be full
                }
                TableAudit.check(reloaded);
            }
        }
    }

    /**
     * Mode bit 3: the bytes are a component table's snapshot, loaded for {@link Entities}. It
     * must fail with a {@link StorageFileException}, or give a table that passes its audit, whose
     * live components all have live entities' handles, and that saves and loads again equal.
     */
    private static void loadComponents(byte[] file, Schema expected) throws IOException {
        Table entities = Entities.TABLE;
        ComponentTable c;
        try {
            c = Snapshots.loadComponents(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(file)),
                    "bytes", entities, expected);
        } catch (StorageFileException e) {
            if (!e.getMessage().startsWith("storage file bytes: ") || e.reason() == null) {
                throw new AssertionError("unclear message: " + e.getMessage(), e);
            }
            return;
        }
        try (c) {
            TableAudit.check(c);
            java.util.List<String> before = rows(c);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            Snapshots.save(c, java.nio.channels.Channels.newChannel(out));
            Snapshots.danglingReferences(c, entities);
            try (ComponentTable again = Snapshots.loadComponents(java.nio.channels.Channels.newChannel(
                    new java.io.ByteArrayInputStream(out.toByteArray())), "again", entities, c.schema())) {
                if (!rows(again).equals(before)) {
                    throw new AssertionError("a loaded component table saved and loaded again differs");
                }
                again.removeDead();
                again.defragment(100);
                TableAudit.check(again);
            }
        }
    }

    /**
     * Accepts a {@link CapacityExceededException} from a load only where the file asked for more
     * than there is: a new-tag load ({@code newTag}) whose generations no free automatic tag can
     * take above its floor, or blocks beyond the native memory this JVM may allocate (the limit
     * of direct memory, or what the machine has free). Anything else is a failure: a load of a
     * small file has no other reason to run out of capacity.
     *
     * @param e the exception the load threw
     * @param newTag whether the load asked for a new tag
     * @throws AssertionError if the file did not ask for more than there is
     */
    static void checkCapacityExceeded(CapacityExceededException e, boolean newTag) {
        String m = String.valueOf(e.getMessage());
        if (newTag && m.startsWith("cannot load table '") && m.contains("' under a new tag: ")) {
            return;
        }
        java.util.regex.Matcher memory = java.util.regex.Pattern
                .compile("\\((\\d+) bytes of native memory\\); it holds (\\d+) bytes in blocks").matcher(m);
        if (e.getCause() instanceof OutOfMemoryError && memory.find()) {
            long asked = Long.parseLong(memory.group(1));
            long held = Long.parseLong(memory.group(2));
            long limit = nativeMemoryLimit(held);
            if (asked + held > limit) {
                return;
            }
            throw new AssertionError("a load ran out of native memory asking for " + asked + " bytes beside the "
                    + held + " it held, within the " + limit + " this JVM may allocate: " + m, e);
        }
        throw new AssertionError("a load threw CapacityExceededException although the file asked for no more than"
                + " there is (new tag: " + newTag + "): " + m, e);
    }

    /** The native memory a load may hold: this JVM's direct-memory limit, or less if the machine has less free. */
    private static long nativeMemoryLimit(long held) {
        long direct = Runtime.getRuntime().maxMemory();
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:MaxDirectMemorySize=")) {
                direct = parseSize(arg.substring(arg.indexOf('=') + 1));
            }
        }
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
        long machine = os.getFreeMemorySize() + os.getFreeSwapSpaceSize() + held;
        return Math.min(direct, machine);
    }

    private static long parseSize(String text) {
        char unit = Character.toLowerCase(text.charAt(text.length() - 1));
        int shift = switch (unit) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        return Long.parseLong(shift == 0 ? text : text.substring(0, text.length() - 1)) << shift;
    }

    private static java.util.List<String> rows(ComponentTable c) {
        java.util.List<String> rows = new java.util.ArrayList<>();
        for (int row = 0; row < c.size(); row++) {
            StringBuilder sb = new StringBuilder(Long.toHexString(c.entityAt(row)));
            for (Field f : c.schema().fields()) {
                sb.append(' ').append(Values.getAt(c, row, f));
            }
            rows.add(sb.toString());
        }
        return rows;
    }
}
