package dev.bulkdata.storage.internal.events;

import dev.bulkdata.storage.internal.core.SlotMap;
import dev.bulkdata.storage.internal.tags.TagRegistry;
import dev.bulkdata.storage.internal.memory.ArenaListener;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tables' JDK Flight Recorder events (docs/observability.md), called by the tables, their arenas ({@link #ARENA}),
 * the mapped-file opener and the slot map; it knows no table type. A hook is one volatile read until a recording starts
 * (ARCHITECTURE.md, "Observability"); then an event object is made only if its type is enabled. The periodic event
 * reads each table's {@link Statistics} unsynchronized (best effort); a table closed meanwhile is skipped.
 */
public final class TableEvents {
    private record Open(WeakReference<Object> owner, String name, String kind, Statistics statistics) {
    }

    /**
     * Reads a table's figures for the periodic statistics event. Must not capture the table (it is kept weakly): a
     * static method that casts its argument.
     */
    @FunctionalInterface
    public interface Statistics {
        /**
         * Reads {@code owner}'s figures.
         *
         * @param owner the table
         * @param into filled with live, holes, retired, capacity, blocks and native bytes, in that order
         * @throws IllegalStateException if the table was closed meanwhile
         */
        void read(Object owner, long[] into);
    }

    /** The arenas' listener: block allocations and closes become events. */
    public static final ArenaListener ARENA = new ArenaListener() {
        @Override
        public void allocated(int tag, long bytes, int blocks, long nativeBytes) {
            TableEvents.allocated(tag, bytes, blocks, nativeBytes);
        }

        @Override
        public void closed(int tag, int blocks, long nativeBytes, boolean reclaimed) {
            TableEvents.closed(tag, blocks, nativeBytes, reclaimed);
        }
    };

    /** The slot maps' listener: retired slots become events. */
    public static final SlotMap.Retirements RETIREMENTS = TableEvents::retired;

    private static final Map<Integer, Open> OPEN = new ConcurrentHashMap<>();

    /** Null until the recorder is initialized and the event classes are registered. */
    private static volatile EventType openType;
    private static volatile EventType closeType;
    private static volatile EventType allocationType;
    private static volatile EventType mappedOpenType;
    private static volatile EventType retirementType;

    static {
        try {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    register();
                }
            });
        } catch (RuntimeException | LinkageError noFlightRecorder) {
            // A runtime without JFR: the tables work the same, without events.
        }
    }

    private TableEvents() {
    }

    private static void register() {
        FlightRecorder.register(TableOpenEvent.class);
        FlightRecorder.register(TableCloseEvent.class);
        FlightRecorder.register(BlockAllocationEvent.class);
        FlightRecorder.register(MappedOpenEvent.class);
        FlightRecorder.register(SlotRetirementEvent.class);
        retirementType = EventType.getEventType(SlotRetirementEvent.class);
        mappedOpenType = EventType.getEventType(MappedOpenEvent.class);
        FlightRecorder.addPeriodicEvent(TableStatisticsEvent.class, TableEvents::emitStatistics);
        allocationType = EventType.getEventType(BlockAllocationEvent.class);
        closeType = EventType.getEventType(TableCloseEvent.class);
        openType = EventType.getEventType(TableOpenEvent.class);
    }

    /**
     * A table's arena was created: the table is open, with its tag taken.
     *
     * @param owner the table, kept weakly
     * @param tag its tag
     * @param kind what the events call its kind: {@code BulkTable}, {@code PackedTable} or {@code ComponentTable}
     * @param statistics reads its figures for the statistics event
     */
    public static void opened(Object owner, int tag, String kind, Statistics statistics) {
        String name = TagRegistry.nameOf(tag);
        Open open = new Open(new WeakReference<>(owner), name, kind, statistics);
        OPEN.put(tag, open);
        EventType type = openType;
        if (type != null && type.isEnabled()) {
            TableOpenEvent event = new TableOpenEvent();
            event.of(tag, open);
            event.commit();
        }
    }

    /**
     * A block was allocated.
     *
     * @param tag the table's tag
     * @param bytes the block's bytes
     * @param blocks the table's blocks, this one counted
     * @param nativeBytes the table's native bytes, this block counted
     */
    public static void allocated(int tag, long bytes, int blocks, long nativeBytes) {
        EventType type = allocationType;
        if (type != null && type.isEnabled()) {
            Open open = OPEN.get(tag);
            BlockAllocationEvent event = new BlockAllocationEvent();
            event.of(tag, open, blocks, nativeBytes);
            event.bytes = bytes;
            event.commit();
        }
    }

    /**
     * The arena is about to be closed, by {@code close()} or by the cleaner.
     *
     * @param tag the table's tag
     * @param blocks the table's blocks
     * @param nativeBytes the table's native bytes
     * @param reclaimed whether the cleaner closes it (the table was dropped unclosed)
     */
    public static void closed(int tag, int blocks, long nativeBytes, boolean reclaimed) {
        Open open = OPEN.remove(tag);
        EventType type = closeType;
        if (type != null && type.isEnabled()) {
            TableCloseEvent event = new TableCloseEvent();
            event.of(tag, open, blocks, nativeBytes);
            event.reclaimed = reclaimed;
            event.commit();
        }
    }

    /**
     * A mapped table was opened at a checkpoint of its file (its table is registered already).
     *
     * @param tag the table's tag
     * @param file the file's path
     * @param sequence the checkpoint's sequence number
     * @param state how the checkpoint was chosen ({@code OpenedCheckpoint.State})
     * @param detail why, when it was not the newest
     * @param checksums whether the file's blocks carry checksums
     */
    public static void mappedOpened(int tag, String file, long sequence, String state, String detail, boolean checksums) {
        EventType type = mappedOpenType;
        if (type != null && type.isEnabled()) {
            MappedOpenEvent event = new MappedOpenEvent();
            event.of(tag, OPEN.get(tag));
            event.file = file;
            event.sequence = sequence;
            event.state = state;
            event.fallback = state.equals("INTERRUPTED") || state.equals("DAMAGED");
            event.detail = detail;
            event.checksums = checksums;
            event.commit();
        }
    }

    /**
     * Slots of a table retired: their generations (and the table's epochs) ran out, so they are never handed out
     * again. Called by the change that retired them, every time.
     *
     * @param tag the table's tag
     * @param retired slots this change retired
     * @param totalRetired the table's retired slots now, these included
     * @param operation the change: "remove", "clear", "reset" or "cancelAdd"
     * @param epoch the table's epoch after the change
     */
    public static void retired(int tag, int retired, int totalRetired, String operation, int epoch) {
        EventType type = retirementType;
        if (type != null && type.isEnabled()) {
            SlotRetirementEvent event = new SlotRetirementEvent();
            event.of(tag, OPEN.get(tag));
            event.retired = retired;
            event.totalRetired = totalRetired;
            event.operation = operation;
            event.epoch = epoch;
            event.commit();
        }
    }

    private static void emitStatistics() {
        for (Map.Entry<Integer, Open> entry : OPEN.entrySet()) {
            Open open = entry.getValue();
            Object owner = open.owner().get();
            if (owner == null) {
                continue;   // unreachable: the cleaner closes it and removes the entry
            }
            TableStatisticsEvent event = new TableStatisticsEvent();
            long[] figures = new long[6];
            try {
                open.statistics().read(owner, figures);
            } catch (IllegalStateException closedMeanwhile) {
                continue;
            }
            event.live = (int) figures[0];
            event.holes = (int) figures[1];
            event.retired = (int) figures[2];
            event.capacity = (int) figures[3];
            event.blocks = (int) figures[4];
            event.nativeBytes = figures[5];
            event.of(entry.getKey(), open);
            event.commit();
        }
    }

    abstract static class TableEvent extends Event {
        @Label("Table")
        String table;
        @Label("Tag")
        @Description("The table's handle tag, unique among open tables")
        int tag;
        @Label("Kind")
        @Description("BulkTable, PackedTable or ComponentTable")
        String kind;

        /** Fills in the table's fields; {@code open} is null if the table is no longer registered. */
        final void of(int tag, Open open) {
            this.tag = tag;
            this.table = open == null ? null : open.name();
            this.kind = open == null ? null : open.kind();
        }
    }

    abstract static class MemoryEvent extends TableEvent {
        @Label("Blocks")
        @Description("The table's blocks: after an allocation, this one included; at close, all freed now")
        int blocks;
        @Label("Native Bytes")
        @Description("The bytes of the table's blocks")
        @DataAmount
        long nativeBytes;

        final void of(int tag, Open open, int blocks, long nativeBytes) {
            of(tag, open);
            this.blocks = blocks;
            this.nativeBytes = nativeBytes;
        }
    }

    @Name("dev.bulkdata.TableOpen")
    @Label("Table Open")
    @Category("bulkdata")
    @Description("A table was created: its tag is taken and its native memory arena opened")
    static final class TableOpenEvent extends TableEvent {
    }

    @Name("dev.bulkdata.TableClose")
    @Label("Table Close")
    @Category("bulkdata")
    @Description("A table freed its native memory and tag: closed, or reclaimed by the cleaner after it became unreachable unclosed")
    static final class TableCloseEvent extends MemoryEvent {
        @Label("Reclaimed")
        @Description("Closed by the cleaner because the table became unreachable without close()")
        boolean reclaimed;
    }

    @Name("dev.bulkdata.BlockAllocation")
    @Label("Block Allocation")
    @Category("bulkdata")
    @Description("A table allocated a block of native memory (it grew)")
    static final class BlockAllocationEvent extends MemoryEvent {
        @Label("Bytes")
        @Description("The block's bytes")
        @DataAmount
        long bytes;
    }

    @Name("dev.bulkdata.MappedOpen")
    @Label("Mapped Table Open")
    @Category("bulkdata")
    @Description("A mapped table was opened at a checkpoint of its file (Table.openedCheckpoint())")
    static final class MappedOpenEvent extends TableEvent {
        @Label("File")
        String file;
        @Label("Checkpoint")
        @Description("The number of the checkpoint opened")
        long sequence;
        @Label("State")
        @Description("CREATED, CLOSED, NOT_CLOSED, INTERRUPTED or DAMAGED (OpenedCheckpoint.State)")
        String state;
        @Label("Fallback")
        @Description("Whether an older checkpoint than the newest the file shows was opened")
        boolean fallback;
        @Label("Detail")
        String detail;
        @Label("Block Checksums")
        boolean checksums;
    }

    @Name("dev.bulkdata.SlotRetirement")
    @Label("Slot Retirement")
    @Category("bulkdata")
    @Description("A change retired slots of a table: their generation budget ran out, so the table takes fresh slots (and grows) from now on")
    static final class SlotRetirementEvent extends TableEvent {
        @Label("Retired")
        @Description("Slots this change retired")
        int retired;
        @Label("Total Retired")
        @Description("The table's retired slots after the change (TableStats.retired())")
        int totalRetired;
        @Label("Operation")
        @Description("remove, clear, reset or cancelAdd")
        String operation;
        @Label("Epoch")
        @Description("The table's epoch after the change")
        int epoch;
    }

    @Name("dev.bulkdata.TableStatistics")
    @Label("Table Statistics")
    @Category("bulkdata")
    @Description("Occupancy and memory of every open table (Table.stats(), best effort: read without stopping the table's writer)")
    @Period("1 s")
    @StackTrace(false)
    static final class TableStatisticsEvent extends MemoryEvent {
        @Label("Live")
        @Description("Records that handles can reach")
        int live;
        @Label("Holes")
        @Description("Slots of removed records waiting for reuse")
        int holes;
        @Label("Retired")
        @Description("Slots whose generation ran out, never reused")
        int retired;
        @Label("Capacity")
        @Description("Records the table holds before it allocates another block (0 for a ComponentTable)")
        int capacity;
    }
}
