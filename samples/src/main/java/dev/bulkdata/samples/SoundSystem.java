package dev.bulkdata.samples;

import dev.bulkdata.storage.BulkTable;
import dev.bulkdata.storage.Chunk;
import dev.bulkdata.storage.schema.DoubleField;
import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.HandleField;
import dev.bulkdata.storage.Handles;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.schema.LongField;
import dev.bulkdata.storage.RecordVisitor;
import dev.bulkdata.storage.schema.ReuseOrder;
import dev.bulkdata.storage.schema.Schema;

import java.util.SplittableRandom;

/**
 * The sound system of "Data Structures Part 1: Bulk Data": sound resources, playing sounds and fades in three
 * {@link BulkTable}s that refer to each other by handle, in handle fields
 * ({@link Schema.Builder#addHandle}: a sound names its resource, a fade names its sound). Every few ticks resources are unloaded while sounds still play them, and
 * fades keep pointing at sounds that stop; each stale handle is caught, two ways:
 *
 * <ul>
 *   <li>a sound asks {@code resources.contains(resource)} before reading it, and stops itself
 *       when its resource is gone;</li>
 *   <li>a fade just uses its sound handle and catches {@link InvalidHandleException} with
 *       reason {@link InvalidHandleException.Reason#STALE STALE}, then drops itself.</li>
 * </ul>
 *
 * <p>To prove nothing reads the wrong record, every record carries a serial number and every
 * reference remembers the serial it meant; a read that passes the handle check but finds
 * another serial counts as a wrong read (there must be none). Decisions depend only on the
 * seeded random stream and on which records are alive, never on slot positions, so the
 * {@link Outcome} (counts and an order-independent checksum) is the same under every
 * {@link ReuseOrder}; under {@link ReuseOrder#LIFO} every replacement resource lands in the very
 * slot its stale sounds point at.
 *
 * <p>Finished fades and sounds remove themselves from inside the pass that finds them
 * ({@link Chunk#removeLater}); the table applies the removals when the pass ends.
 *
 * <p>Single-threaded; one instance runs once.
 */
public final class SoundSystem {
    /** The sizes of a run. */
    public record Params(int resources, int startsPerTick, int fadesPerTick, int ticks, int unloadEvery,
                         int unloadCount, int minSoundTicks, int maxSoundTicks, int minFadeTicks,
                         int maxFadeTicks, long seed) {
        /** The main command's size: about 100,000 sounds playing at once for 300 ticks. */
        public static final Params FULL = new Params(512, 2_000, 400, 300, 5, 6, 20, 100, 5, 30, 4004L);
        /** A smoke-test size. */
        public static final Params SMALL = new Params(16, 20, 8, 60, 5, 1, 5, 30, 2, 10, 4004L);
    }

    /**
     * What a run observed.
     *
     * @param loaded resources loaded (initial and replacements)
     * @param unloaded resources unloaded while sounds played them
     * @param reusedSlot replacements that landed in the slot of the resource just unloaded
     * @param orphaned sounds that were playing a resource when it was unloaded
     * @param started sounds started
     * @param finished sounds that played to their end
     * @param fadedOut sounds stopped by a fade reaching volume 0
     * @param stoppedStale sounds stopped because {@code contains} rejected their resource handle
     * @param fadesStarted fades started
     * @param fadesFinished fades that ran to their end time
     * @param fadesStale fades dropped on {@link InvalidHandleException} (reason STALE)
     * @param fadeTargetsGone fades not started because {@code contains} rejected the sound
     * @param wrongReads reads that passed the handle check but found another record (must be 0)
     * @param playingAtEnd sounds still playing after the last tick
     * @param fadesAtEnd fades still running after the last tick
     * @param checksum order-independent sum over every sound update of serial, position and volume
     */
    public record Outcome(long loaded, long unloaded, long reusedSlot, long orphaned, long started,
                          long finished, long fadedOut, long stoppedStale, long fadesStarted,
                          long fadesFinished, long fadesStale, long fadeTargetsGone, long wrongReads,
                          int playingAtEnd, int fadesAtEnd, long checksum) {
    }

    private static final double TICK_SECONDS = 1.0 / 60;
    private static final long FRAMES_PER_TICK = 800;   // 48 kHz at 60 ticks per second
    private static final int RECENT = 4096;            // sounds a fade may be started for

    private static final Schema RESOURCES = Schema.builder("resources")
            .add(FieldType.LONG, "serial", "frames", "bytes")
            .add(FieldType.INT, "channels")
            .build();
    private static final LongField RES_SERIAL = RESOURCES.longField("serial");
    private static final LongField RES_FRAMES = RESOURCES.longField("frames");
    private static final LongField RES_BYTES = RESOURCES.longField("bytes");
    private static final IntField RES_CHANNELS = RESOURCES.intField("channels");

    private static final Schema SOUNDS = Schema.builder("sounds")
            .addHandle("resource", "resources")          // a handle of the resources table
            .add(FieldType.LONG, "resourceSerial", "serial", "played")
            .add(FieldType.FLOAT, "volume")
            .build();
    private static final HandleField SND_RESOURCE = SOUNDS.handleField("resource");
    private static final LongField SND_RESOURCE_SERIAL = SOUNDS.longField("resourceSerial");
    private static final LongField SND_SERIAL = SOUNDS.longField("serial");
    private static final LongField SND_PLAYED = SOUNDS.longField("played");
    private static final FloatField SND_VOLUME = SOUNDS.floatField("volume");

    private static final Schema FADES = Schema.builder("fades")
            .addHandle("sound", "sounds")                // a handle of the sounds table
            .add(FieldType.LONG, "soundSerial")
            .add(FieldType.FLOAT, "from", "to")
            .add(FieldType.DOUBLE, "fromTs", "toTs")
            .build();
    private static final HandleField FADE_SOUND = FADES.handleField("sound");
    private static final LongField FADE_SOUND_SERIAL = FADES.longField("soundSerial");
    private static final FloatField FADE_FROM = FADES.floatField("from");
    private static final FloatField FADE_TO = FADES.floatField("to");
    private static final DoubleField FADE_FROM_TS = FADES.doubleField("fromTs");
    private static final DoubleField FADE_TO_TS = FADES.doubleField("toTs");

    private final Params p;
    private final SplittableRandom random;
    private final BulkTable resources;
    private final BulkTable sounds;
    private final BulkTable fades;
    private final long[] loadedResources;
    private final long[] recentSounds = new long[RECENT];
    private final long[] recentSerials = new long[RECENT];
    private double now;
    private long nextSerial = 1;
    private long unloadedHandle;
    private final RecordVisitor countOrphans = this::countOrphan;
    private final RecordVisitor updateFade = this::updateFade;
    private final RecordVisitor updateSound = this::updateSound;

    private long loaded, unloaded, reusedSlot, orphaned, started, finished, fadedOut, stoppedStale;
    private long fadesStarted, fadesFinished, fadesStale, fadeTargetsGone, wrongReads, checksum;

    private SoundSystem(Params p, ReuseOrder order) {
        this.p = p;
        this.random = new SplittableRandom(p.seed());
        this.resources = BulkTable.builder(RESOURCES).reuseOrder(order).build();
        this.sounds = BulkTable.builder(SOUNDS).reuseOrder(order).build();
        this.fades = BulkTable.builder(FADES).reuseOrder(order).build();
        this.loadedResources = new long[p.resources()];
    }

    /**
     * Runs the sound system for {@code p.ticks()} ticks.
     *
     * @param p sizes and seed
     * @param order how the three tables reuse freed slots
     * @param out where to print progress and the summary
     * @return the counts and checksum, for tests
     */
    public static Outcome run(Params p, ReuseOrder order, SampleOutput out) {
        SoundSystem system = new SoundSystem(p, order);
        try {
            return system.play(out);
        } finally {
            system.resources.close();
            system.sounds.close();
            system.fades.close();
        }
    }

    private Outcome play(SampleOutput out) {
        for (int i = 0; i < loadedResources.length; i++) {
            loadedResources[i] = load();
        }
        Progress progress = out.progress("tick", p.ticks(),
                () -> String.format("sounds %,d  fades %,d  stale caught %,d", sounds.size(), fades.size(),
                        stoppedStale + fadesStale + fadeTargetsGone));
        for (int tick = 1; tick <= p.ticks(); tick++) {
            now = tick * TICK_SECONDS;
            if (tick % p.unloadEvery() == 0) {
                unloadWhilePlaying();
            }
            startSounds();
            startFades();
            fades.forEach(updateFade);                 // the finished fades are removed when it ends
            sounds.forEach(updateSound);
            progress.step(tick);
        }
        progress.done();
        Outcome o = new Outcome(loaded, unloaded, reusedSlot, orphaned, started, finished, fadedOut,
                stoppedStale, fadesStarted, fadesFinished, fadesStale, fadeTargetsGone, wrongReads,
                sounds.size(), fades.size(), checksum);
        out.line("resources  %,d loaded, %,d unloaded while playing %,d sounds (%,d replacements took the freed slot)",
                o.loaded(), o.unloaded(), o.orphaned(), o.reusedSlot());
        out.line("sounds     %,d started: %,d played out, %,d faded out, %,d stopped on a stale resource (contains)",
                o.started(), o.finished(), o.fadedOut(), o.stoppedStale());
        out.line("fades      %,d started: %,d done, %,d dropped on a stale sound (InvalidHandleException STALE);"
                + " %,d never started (contains)", o.fadesStarted(), o.fadesFinished(), o.fadesStale(),
                o.fadeTargetsGone());
        out.line("check      %,d wrong records read; checksum %016x", o.wrongReads(), o.checksum());
        return o;
    }

    private long load() {
        long h = resources.add();
        long frames = FRAMES_PER_TICK * random.nextInt(p.minSoundTicks(), p.maxSoundTicks() + 1);
        int channels = random.nextInt(1, 3);
        resources.set(h, RES_SERIAL, nextSerial++);
        resources.set(h, RES_FRAMES, frames);
        resources.set(h, RES_CHANNELS, channels);
        resources.set(h, RES_BYTES, frames * channels * Short.BYTES);
        loaded++;
        return h;
    }

    /** Unloads resources at random, though sounds still play them, and loads replacements. */
    private void unloadWhilePlaying() {
        for (int k = 0; k < p.unloadCount(); k++) {
            int i = random.nextInt(loadedResources.length);
            unloadedHandle = loadedResources[i];
            sounds.forEach(countOrphans);           // the ground truth the sounds must discover
            resources.remove(unloadedHandle);
            unloaded++;
            long replacement = load();
            if (resources.handleLayout().slot(replacement) == resources.handleLayout().slot(unloadedHandle)) {
                reusedSlot++;
            }
            loadedResources[i] = replacement;
        }
    }

    private void countOrphan(Chunk chunk, int slot) {
        if (chunk.get(slot, SND_RESOURCE) == unloadedHandle) {
            orphaned++;
        }
    }

    private void startSounds() {
        for (int k = 0; k < p.startsPerTick(); k++) {
            long resource = loadedResources[random.nextInt(loadedResources.length)];
            long h = sounds.add();
            long serial = nextSerial++;
            sounds.set(h, SND_RESOURCE, resource);
            sounds.set(h, SND_RESOURCE_SERIAL, resources.get(resource, RES_SERIAL));
            sounds.set(h, SND_SERIAL, serial);
            sounds.set(h, SND_VOLUME, 1f);
            int r = (int) (started++ % RECENT);
            recentSounds[r] = h;
            recentSerials[r] = serial;
        }
    }

    private void startFades() {
        int known = (int) Math.min(started, RECENT);
        for (int k = 0; k < p.fadesPerTick(); k++) {
            int r = random.nextInt(known);
            long sound = recentSounds[r];
            if (!sounds.contains(sound)) {          // it played out, faded out or lost its resource
                fadeTargetsGone++;
                continue;
            }
            int duration = random.nextInt(p.minFadeTicks(), p.maxFadeTicks() + 1);
            long h = fades.add();
            fades.set(h, FADE_SOUND, sound);
            fades.set(h, FADE_SOUND_SERIAL, recentSerials[r]);
            fades.set(h, FADE_FROM, sounds.get(sound, SND_VOLUME));
            fades.set(h, FADE_TO, 0f);
            fades.set(h, FADE_FROM_TS, now);
            fades.set(h, FADE_TO_TS, now + duration * TICK_SECONDS);
            fadesStarted++;
        }
    }

    private void updateFade(Chunk chunk, int slot) {
        long sound = chunk.get(slot, FADE_SOUND);
        try {
            if (sounds.get(sound, SND_SERIAL) != chunk.get(slot, FADE_SOUND_SERIAL)) {
                wrongReads++;
            }
            double fromTs = chunk.get(slot, FADE_FROM_TS);
            double toTs = chunk.get(slot, FADE_TO_TS);
            double t = Math.min(1.0, (now - fromTs) / (toTs - fromTs));
            float from = chunk.get(slot, FADE_FROM);
            float volume = (float) (from + (chunk.get(slot, FADE_TO) - from) * t);
            // Several fades may drive one sound: the quietest wins, whatever the visiting order.
            sounds.set(sound, SND_VOLUME, Math.min(sounds.get(sound, SND_VOLUME), volume));
            if (t >= 1.0) {
                fadesFinished++;
                chunk.removeLater(slot);
            }
        } catch (InvalidHandleException e) {
            if (e.reason() != InvalidHandleException.Reason.STALE) {
                throw e;
            }
            fadesStale++;
            chunk.removeLater(slot);
        }
    }

    private void updateSound(Chunk chunk, int slot) {
        long resource = chunk.get(slot, SND_RESOURCE);
        if (!resources.contains(resource)) {
            stoppedStale++;
            chunk.removeLater(slot);
            return;
        }
        if (resources.get(resource, RES_SERIAL) != chunk.get(slot, SND_RESOURCE_SERIAL)) {
            wrongReads++;
        }
        long played = chunk.get(slot, SND_PLAYED) + FRAMES_PER_TICK;
        float volume = chunk.get(slot, SND_VOLUME);
        chunk.set(slot, SND_PLAYED, played);
        long serial = chunk.get(slot, SND_SERIAL);
        checksum += serial * 0x9E3779B97F4A7C15L ^ (played * 31 + Float.floatToIntBits(volume));
        if (volume <= 0f) {
            fadedOut++;
            chunk.removeLater(slot);
        } else if (played >= resources.get(resource, RES_FRAMES)) {
            finished++;
            chunk.removeLater(slot);
        }
    }
}
