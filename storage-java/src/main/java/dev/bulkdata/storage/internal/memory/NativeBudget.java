package dev.bulkdata.storage.internal.memory;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide native-memory budget: one atomic counter of the block bytes every table in memory holds, and its
 * limit, read once from {@value #PROPERTY} (syntax and default: docs/errors-and-threads.md, "Memory"). Any thread;
 * called per block and per close, never per record. ARCHITECTURE.md, "Memory layout" (budget).
 */
public final class NativeBudget {
    /** The system property that sets the process-wide budget. */
    public static final String PROPERTY = "bulkdata.memoryBudget";

    private static final AtomicLong IN_USE = new AtomicLong();
    private static volatile long limit = Long.MIN_VALUE;
    private static volatile String source;

    private NativeBudget() {
    }

    /** {@return the process-wide limit in bytes ({@link Long#MAX_VALUE} for none)} */
    public static long limit() {
        long l = limit;
        if (l == Long.MIN_VALUE) {
            synchronized (NativeBudget.class) {
                if (limit == Long.MIN_VALUE) {
                    String property = System.getProperty(PROPERTY);
                    if (property != null && !property.isBlank()) {
                        limit = parse(property.strip());
                        source = "-D" + PROPERTY + "=" + property.strip();
                    } else {
                        limit = directMemoryLimit();
                    }
                }
                l = limit;
            }
        }
        return l;
    }

    /** {@return where the limit came from, for messages} */
    public static String source() {
        limit();
        return source;
    }

    /** {@return the bytes every table in memory holds in blocks right now} */
    public static long inUse() {
        return IN_USE.get();
    }

    /**
     * {@return the limit before} Sets the limit, for tests that must not depend on the machine.
     *
     * @param bytes the new limit, {@link Long#MAX_VALUE} for none
     * @param from where it came from, for messages
     */
    public static long setLimit(long bytes, String from) {
        synchronized (NativeBudget.class) {
            long before = limit();
            limit = bytes;
            source = from;
            return before;
        }
    }

    /**
     * Counts {@code bytes} more against the process-wide limit, or counts nothing and returns false if that would pass
     * it, after letting dropped tables' cleaners run ({@link System#gc()}, then retries after 1, 2 .. 32 milliseconds).
     */
    static boolean charge(long bytes) {
        if (tryCharge(bytes)) {
            return true;
        }
        System.gc();
        for (int sleep = 1; sleep <= 32; sleep <<= 1) {
            if (tryCharge(bytes)) {
                return true;
            }
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return tryCharge(bytes);
    }

    private static boolean tryCharge(long bytes) {
        long max = limit();
        while (true) {
            long used = IN_USE.get();
            if (bytes > max - used) {
                return false;
            }
            if (IN_USE.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} counted by {@link #charge}. */
    static void release(long bytes) {
        if (bytes != 0) {
            IN_USE.addAndGet(-bytes);
        }
    }

    /**
     * {@return the budget in bytes that {@code text} gives: bytes with an optional k/m/g/t suffix, a percentage of
     * physical memory, or {@code unlimited} ({@link Long#MAX_VALUE})}
     *
     * @param text the budget as written
     * @throws IllegalArgumentException if {@code text} is none of these
     */
    public static long parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("unlimited")) {
                return Long.MAX_VALUE;
            }
            if (t.endsWith("%")) {
                double percent = Double.parseDouble(t.substring(0, t.length() - 1));
                long physical = physicalMemory();
                if (!(percent > 0 && percent <= 100)) {
                    throw new NumberFormatException("not in (0, 100]");
                }
                if (physical <= 0) {
                    throw new IllegalArgumentException(PROPERTY + "=" + text + ": the physical memory size is not"
                            + " known in this JVM (module jdk.management absent); give the budget in bytes");
                }
                return (long) (physical * (percent / 100));
            }
            int shift = switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
                case 'k' -> 10;
                case 'm' -> 20;
                case 'g' -> 30;
                case 't' -> 40;
                default -> 0;
            };
            long n = Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1));
            if (n < 0 || n > Long.MAX_VALUE >> shift) {
                throw new NumberFormatException("out of range");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + "=" + text + " is not a memory budget: give bytes (with an"
                    + " optional k, m, g or t suffix), a percentage of physical memory (75%) or 'unlimited'", e);
        }
    }

    private static long directMemoryLimit() {
        for (String arg : inputArguments()) {
            if (arg.startsWith("-XX:MaxDirectMemorySize=")) {
                try {
                    long n = parse(arg.substring(arg.indexOf('=') + 1));
                    source = arg;
                    return n;
                } catch (IllegalArgumentException e) {
                    break;
                }
            }
        }
        source = "the JVM's default direct-memory limit (its largest heap, -Xmx; set -D" + PROPERTY + " to change)";
        return Runtime.getRuntime().maxMemory();
    }

    /** The JVM's arguments, by reflection: the module does not require java.management (without it: none). */
    private static java.util.List<String> inputArguments() {
        try {
            Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
            Object runtime = factory.getMethod("getRuntimeMXBean").invoke(null);
            Method arguments = Class.forName("java.lang.management.RuntimeMXBean").getMethod("getInputArguments");
            @SuppressWarnings("unchecked")
            java.util.List<String> list = (java.util.List<String>) arguments.invoke(runtime);
            return list;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return java.util.List.of();
        }
    }

    /** Physical memory in bytes (container-aware), or 0 if not known. */
    private static long physicalMemory() {
        try {
            Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
            Object os = factory.getMethod("getOperatingSystemMXBean").invoke(null);
            Method total = Class.forName("com.sun.management.OperatingSystemMXBean").getMethod("getTotalMemorySize");
            return (long) total.invoke(os);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return 0;
        }
    }
}
