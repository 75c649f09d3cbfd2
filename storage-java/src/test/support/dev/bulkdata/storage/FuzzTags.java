package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.CapacityExceededException;
import dev.bulkdata.storage.internal.tags.TagRegistry;

import java.lang.reflect.Field;

/**
 * Lets every fuzzed input start from the table tags of a fresh JVM.
 *
 * <p>The tag registry is global to the JVM and remembers, per tag, the generations every closed
 * table handed out, so that a later table under the tag starts above them (ARCHITECTURE.md,
 * Handles and tags). A fuzzing JVM runs thousands of inputs, each opening tables with tiny handle layouts
 * (4 generations) that wear a tag out in one table; after about 3,800 such tables no automatic
 * tag is left and every table open throws {@link CapacityExceededException}. Which input met
 * that depended on how many had run before it (the executions per second, the corpus), and the
 * input alone replayed clean: a finding that said nothing about the input. Each fuzz target
 * therefore calls {@link #forgetClosedTables()} first. That is sound for the fuzz targets only:
 * an input keeps no handle of another input's tables.
 */
final class FuzzTags {
    private FuzzTags() {
    }

    /**
     * Forgets every closed table's tag history (bounds, makers, names) and restarts the
     * round-robin of automatic tags, as in a fresh JVM. Tags held by open tables keep all of
     * theirs.
     */
    static void forgetClosedTables() {
        synchronized (TagRegistry.class) {
            try {
                String[] names = (String[]) field("NAMES").get(null);
                long[] bounds = (long[]) field("BOUNDS").get(null);
                long[] others = (long[]) field("OTHERS").get(null);
                long[] makers = (long[]) field("MAKERS").get(null);
                String[] closedNames = (String[]) field("CLOSED_NAMES").get(null);
                for (int tag = 0; tag < names.length; tag++) {
                    if (names[tag] == null) {
                        bounds[tag] = -1;
                        others[tag] = -1;
                        makers[tag] = 0;
                        closedNames[tag] = null;
                    }
                }
                field("lastTag").setInt(null, 0);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the tag registry's fields changed: update FuzzTags", e);
            }
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field f = TagRegistry.class.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
