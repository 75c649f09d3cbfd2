package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.Schema;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The flight recorder events (docs/observability.md), recorded in this JVM with
 * {@link Recording}, dumped and read back with {@link RecordingFile}: a table of known size is
 * opened, grows block by block, is seen by the periodic statistics event with its exact counts
 * once its writer is done, and is closed.
 */
class FlightRecorderTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static Recording recording() {
        Recording recording = new Recording();
        recording.enable("dev.bulkdata.TableOpen");
        recording.enable("dev.bulkdata.BlockAllocation");
        recording.enable("dev.bulkdata.TableClose");
        recording.enable("dev.bulkdata.TableStatistics").withPeriod(Duration.ofMillis(20));
        return recording;
    }

    private List<RecordedEvent> events(Recording recording, String type, int tag) throws IOException {
        Path file = dir.resolve("dump-" + System.nanoTime() + ".jfr");
        recording.dump(file);
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(type) && e.getInt("tag") == tag)
                .toList();
    }

    /** Dumps the running recording until an event of the type and tag matches. */
    private RecordedEvent awaitEvent(Recording recording, String type, int tag, Predicate<RecordedEvent> match,
                                     Runnable meanwhile) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            meanwhile.run();
            for (RecordedEvent e : events(recording, type, tag)) {
                if (match.test(e)) {
                    return e;
                }
            }
            Thread.sleep(50);
        }
        return fail("no matching " + type + " event for tag " + tag + " within " + PATIENCE + ": "
                + events(recording, type, tag));
    }

    @ParameterizedTest
    @EnumSource(TableKind.class)
    void openAllocationsStatisticsAndClose_carryTheTablesCounts(TableKind kind) throws Exception {
        Schema schema = Schema.builder("jfr-" + kind.name().toLowerCase())
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad").build();
        try (Recording recording = recording()) {
            recording.start();
            Table table = kind.of(schema);
            long[] handles = new long[10_000];
            table.addAll(handles);
            for (int i = 0; i < 1_000; i++) {
                table.remove(handles[i]);
            }
            int tag = Handles.tag(handles[1_000]);
            TableStats stats = table.stats();
            assertEquals(9_000, stats.live());
            assertEquals(kind == TableKind.BULK ? 1_000 : 0, stats.holes());
            assertEquals(20, stats.blocks(), "10,000 records of 32 bytes, 512 per block");

            // The writer is done: some statistics event carries exactly the final counts.
            RecordedEvent statistics = awaitEvent(recording, "dev.bulkdata.TableStatistics", tag,
                    e -> e.getInt("live") == stats.live() && e.getInt("holes") == stats.holes(), () -> { });
            assertEquals(schema.name(), statistics.getString("table"));
            assertEquals(kind == TableKind.BULK ? "BulkTable" : "PackedTable", statistics.getString("kind"));
            assertEquals(stats.retired(), statistics.getInt("retired"));
            assertEquals(stats.capacity(), statistics.getInt("capacity"));
            assertEquals(stats.blocks(), statistics.getInt("blocks"));
            assertEquals(stats.nativeBytes(), statistics.getLong("nativeBytes"));

            table.close();
            recording.stop();

            List<RecordedEvent> opens = events(recording, "dev.bulkdata.TableOpen", tag);
            assertEquals(1, opens.size(), opens.toString());
            assertEquals(schema.name(), opens.getFirst().getString("table"));
            assertEquals(statistics.getString("kind"), opens.getFirst().getString("kind"));

            List<RecordedEvent> allocations = events(recording, "dev.bulkdata.BlockAllocation", tag);
            assertEquals(stats.blocks(), allocations.size(), "one allocation event per block");
            assertEquals(stats.nativeBytes(), allocations.stream().mapToLong(e -> e.getLong("bytes")).sum());
            assertTrue(allocations.stream().allMatch(e -> e.getLong("bytes") == schema.blockBytes()));
            assertTrue(allocations.stream().allMatch(e -> schema.name().equals(e.getString("table"))
                    && statistics.getString("kind").equals(e.getString("kind"))), allocations.toString());
            assertEquals(stats.blocks(), allocations.stream().mapToInt(e -> e.getInt("blocks")).max().orElseThrow());
            assertEquals(stats.nativeBytes(), allocations.stream().mapToLong(e -> e.getLong("nativeBytes")).max().orElseThrow());

            List<RecordedEvent> closes = events(recording, "dev.bulkdata.TableClose", tag);
            assertEquals(1, closes.size(), closes.toString());
            RecordedEvent close = closes.getFirst();
            assertEquals(schema.name(), close.getString("table"));
            assertEquals(stats.blocks(), close.getInt("blocks"));
            assertEquals(stats.nativeBytes(), close.getLong("nativeBytes"));
            assertFalse(close.getBoolean("reclaimed"), "closed by close()");
            assertTrue(!close.getStartTime().isBefore(opens.getFirst().getStartTime()));
        }
    }

    @Test
    void componentTables_haveTheirOwnEvents() throws Exception {
        Schema schema = Schema.builder("jfr-positions").add(FieldType.FLOAT, "x", "y").build();
        try (Recording recording = recording();
             BulkTable entities = BulkTable.of(Schema.builder("jfr-entities").add(FieldType.INT, "kind").build())) {
            recording.start();
            ComponentTable positions = ComponentTable.of(entities, schema);
            long[] handles = new long[3_000];
            entities.addAll(handles);
            for (long h : handles) {
                positions.add(h);
            }
            int tag = tagOfComponentTable(recording, "jfr-positions");
            RecordedEvent statistics = awaitEvent(recording, "dev.bulkdata.TableStatistics", tag,
                    e -> e.getInt("live") == 3_000, () -> { });
            assertEquals("ComponentTable", statistics.getString("kind"));
            int blocks = statistics.getInt("blocks");
            assertEquals(blocks, events(recording, "dev.bulkdata.BlockAllocation", tag).size());
            positions.close();
            RecordedEvent close = awaitEvent(recording, "dev.bulkdata.TableClose", tag, e -> true, () -> { });
            assertEquals(blocks, close.getInt("blocks"));
            assertEquals(statistics.getLong("nativeBytes"), close.getLong("nativeBytes"));
        }
    }

    private int tagOfComponentTable(Recording recording, String name) throws Exception {
        Path file = dir.resolve("open-" + System.nanoTime() + ".jfr");
        recording.dump(file);
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.bulkdata.TableOpen")
                        && name.equals(e.getString("table")))
                .mapToInt(e -> e.getInt("tag"))
                .reduce((a, b) -> fail("two tables named " + name))
                .orElseThrow();
    }

    @Test
    void aTableDroppedWithoutClose_isReportedReclaimedByTheCleaner() throws Exception {
        try (Recording recording = recording()) {
            recording.start();
            int tag = openAndDrop();
            RecordedEvent close = awaitEvent(recording, "dev.bulkdata.TableClose", tag,
                    e -> "jfr-dropped".equals(e.getString("table")), System::gc);
            assertTrue(close.getBoolean("reclaimed"), "reclaimed by the cleaner");
            assertEquals(1, close.getInt("blocks"));
        }
    }

    /** Opens a table and lets it become unreachable unclosed; returns its tag. */
    private static int openAndDrop() {
        BulkTable table = BulkTable.of(Schema.builder("jfr-dropped").add(FieldType.LONG, "v").build());
        return Handles.tag(table.add());
    }

    /**
     * The five event types, once the recorder is initialized: each in the category "bulkdata"
     * with the fields the observability guide lists; the statistics every second by default.
     */
    @Test
    void everyEventType_isInTheCategoryBulkdata_withItsFields_andStatisticsEverySecond() {
        Map<String, Set<String>> expected = Map.of(
                "dev.bulkdata.TableOpen", Set.of("table", "tag", "kind"),
                "dev.bulkdata.BlockAllocation", Set.of("table", "tag", "kind", "bytes", "blocks", "nativeBytes"),
                "dev.bulkdata.TableClose", Set.of("table", "tag", "kind", "blocks", "nativeBytes", "reclaimed"),
                "dev.bulkdata.TableStatistics", Set.of("table", "tag", "kind", "live", "holes", "retired",
                        "capacity", "blocks", "nativeBytes"),
                "dev.bulkdata.MappedOpen", Set.of("table", "tag", "kind", "file", "sequence", "state", "fallback",
                        "detail", "checksums"),
                "dev.bulkdata.SlotRetirement", Set.of("table", "tag", "kind", "retired", "totalRetired", "operation",
                        "epoch"));
        try (Recording recording = recording();
             BulkTable table = BulkTable.of(Schema.builder("jfr-types").add(FieldType.INT, "a").build())) {
            recording.start();
            table.add();
            Map<String, EventType> types = FlightRecorder.getFlightRecorder().getEventTypes().stream()
                    .filter(t -> t.getName().startsWith("dev.bulkdata."))
                    .collect(Collectors.toMap(EventType::getName, t -> t));
            assertEquals(expected.keySet(), types.keySet());
            expected.forEach((name, fields) -> {
                EventType type = types.get(name);
                assertEquals(List.of("bulkdata"), type.getCategoryNames(), name);
                assertTrue(type.getFields().stream().map(ValueDescriptor::getName).collect(Collectors.toSet())
                        .containsAll(fields), name + " fields " + type.getFields());
            });
            String period = types.get("dev.bulkdata.TableStatistics").getSettingDescriptors().stream()
                    .filter(d -> d.getName().equals("period")).map(SettingDescriptor::getDefaultValue)
                    .findFirst().orElseThrow();
            assertEquals("1 s", period, "every second by default");
        }
    }
}
