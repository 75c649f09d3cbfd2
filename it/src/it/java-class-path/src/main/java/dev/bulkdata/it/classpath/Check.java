package dev.bulkdata.it.classpath;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the recording that {@code -XX:StartFlightRecording} wrote while {@link App} ran: each of
 * its two tables was opened, allocated its blocks, was seen by the periodic statistics event
 * with its final counts, and was closed, the close event's counts equal to the allocations.
 * The second argument is what {@code jfr print --events dev.bulkdata.TableStatistics} printed
 * for the same recording (docs/observability.md).
 */
public final class Check {
    public static void main(String[] args) throws IOException {
        List<RecordedEvent> events = RecordingFile.readAllEvents(Path.of(args[0])).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.bulkdata."))
                .filter(e -> "cp-particles".equals(e.getString("table")))
                .toList();
        Map<Integer, Integer> opened = new HashMap<>();
        Map<Integer, Integer> blocks = new HashMap<>();
        Map<Integer, Long> bytes = new HashMap<>();
        Map<Integer, RecordedEvent> closed = new HashMap<>();
        Map<Integer, RecordedEvent> finalStatistics = new HashMap<>();
        for (RecordedEvent e : events) {
            int tag = e.getInt("tag");
            switch (e.getEventType().getName()) {
                case "dev.bulkdata.TableOpen" -> opened.merge(tag, 1, Integer::sum);
                case "dev.bulkdata.BlockAllocation" -> {
                    blocks.merge(tag, 1, Integer::sum);
                    bytes.merge(tag, e.getLong("bytes"), Long::sum);
                }
                case "dev.bulkdata.TableClose" -> closed.put(tag, e);
                case "dev.bulkdata.TableStatistics" -> {
                    if (e.getInt("live") == App.RECORDS - App.REMOVED) {
                        finalStatistics.put(tag, e);
                    }
                }
                default -> { }
            }
        }
        App.check(opened.size() == 2, "two tables opened: " + opened);
        App.check(closed.keySet().equals(opened.keySet()), "both closed: " + closed.keySet());
        for (int tag : opened.keySet()) {
            RecordedEvent close = closed.get(tag);
            App.check(close.getInt("blocks") == blocks.get(tag),
                    "tag " + tag + ": close counts " + close.getInt("blocks") + " blocks, allocations " + blocks.get(tag));
            App.check(close.getLong("nativeBytes") == bytes.get(tag), "tag " + tag + ": native bytes");
            App.check(!close.getBoolean("reclaimed"), "closed by close(), not by the cleaner");
            RecordedEvent statistics = finalStatistics.get(tag);
            App.check(statistics != null, "tag " + tag + ": a statistics event with the final live count");
            App.check(statistics.getInt("blocks") == blocks.get(tag), "tag " + tag + ": statistics blocks");
            App.check(statistics.getLong("nativeBytes") == bytes.get(tag), "tag " + tag + ": statistics bytes");
            System.out.println("recording: table cp-particles tag " + tag + ", " + blocks.get(tag) + " blocks, "
                    + bytes.get(tag) + " bytes, opened and closed");
        }
        String printed = Files.readString(Path.of(args[1]));
        App.check(printed.contains("dev.bulkdata.TableStatistics") && printed.contains("table = \"cp-particles\"")
                && printed.contains("live = " + (App.RECORDS - App.REMOVED)), "jfr print shows the statistics:\n" + printed);
        System.out.println("class-path consumer recording: OK");
    }

    private Check() {
    }
}
