package dev.bulkdata.storage.arrow;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A consumer of the Arrow C stream interface written as a C program would be: it knows nothing
 * of this module's classes, only the structs' layouts and their function pointers, which it
 * calls through FFM downcalls.
 */
final class CConsumer {
    static final long STREAM_BYTES = 40;
    static final long SCHEMA_BYTES = 72;
    static final long ARRAY_BYTES = 80;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle INT_PP = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle PTR_P = LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle VOID_P = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));

    private CConsumer() {
    }

    static MemorySegment stream(long address) {
        return MemorySegment.ofAddress(address).reinterpret(STREAM_BYTES);
    }

    static int getSchema(MemorySegment stream, MemorySegment out) throws Throwable {
        return (int) INT_PP.invokeExact(stream.get(ADDRESS, 0), stream, out);
    }

    static int getNext(MemorySegment stream, MemorySegment out) throws Throwable {
        return (int) INT_PP.invokeExact(stream.get(ADDRESS, 8), stream, out);
    }

    static String lastError(MemorySegment stream) throws Throwable {
        MemorySegment s = (MemorySegment) PTR_P.invokeExact(stream.get(ADDRESS, 16), stream);
        return s.address() == 0 ? null : s.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** Calls the struct's release callback, read at {@code releaseAt}; returns false if it was NULL. */
    static boolean release(MemorySegment struct, long releaseAt) throws Throwable {
        MemorySegment fn = struct.get(ADDRESS, releaseAt);
        if (fn.address() == 0) {
            return false;
        }
        VOID_P.invokeExact(fn, struct);
        return true;
    }

    static boolean releaseStream(MemorySegment s) throws Throwable {
        return release(s, 24);
    }

    static boolean releaseSchema(MemorySegment s) throws Throwable {
        return release(s, 56);
    }

    static boolean releaseArray(MemorySegment a) throws Throwable {
        return release(a, 64);
    }

    /** Moves a struct into new memory, as the interface allows: copy, then NULL the source's release. */
    static MemorySegment move(MemorySegment from, long bytes, long releaseAt, Arena arena) {
        MemorySegment to = arena.allocate(bytes, 8);
        to.copyFrom(from.asSlice(0, bytes));
        from.set(ADDRESS, releaseAt, MemorySegment.NULL);
        return to;
    }

    static boolean released(MemorySegment struct, long releaseAt) {
        return struct.get(ADDRESS, releaseAt).address() == 0;
    }

    record Column(String name, String format, Map<String, String> metadata, long flags) {
    }

    static String string(MemorySegment p) {
        return p.address() == 0 ? null : p.reinterpret(Long.MAX_VALUE).getString(0);
    }

    static Map<String, String> metadata(MemorySegment p) {
        Map<String, String> m = new LinkedHashMap<>();
        if (p.address() == 0) {
            return m;
        }
        MemorySegment s = p.reinterpret(Long.MAX_VALUE);
        int n = s.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        long at = 4;
        for (int i = 0; i < n; i++) {
            int kl = s.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            String k = new String(s.asSlice(at + 4, kl).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            at += 4 + kl;
            int vl = s.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            String v = new String(s.asSlice(at + 4, vl).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            at += 4 + vl;
            m.put(k, v);
        }
        return m;
    }

    static Column column(MemorySegment schema) {
        return new Column(string(schema.get(ADDRESS, 8)), string(schema.get(ADDRESS, 0)),
                metadata(schema.get(ADDRESS, 16)), schema.get(JAVA_LONG, 24));
    }

    static MemorySegment childSchema(MemorySegment schema, int i) {
        long n = schema.get(JAVA_LONG, 32);
        MemorySegment children = schema.get(ADDRESS, 40).reinterpret(8 * n);
        return children.getAtIndex(ADDRESS, i).reinterpret(SCHEMA_BYTES);
    }

    static List<Column> columns(MemorySegment schema) {
        List<Column> cs = new ArrayList<>();
        for (int i = 0; i < schema.get(JAVA_LONG, 32); i++) {
            cs.add(column(childSchema(schema, i)));
        }
        return cs;
    }

    static long length(MemorySegment array) {
        return array.get(JAVA_LONG, 0);
    }

    static long nullCount(MemorySegment array) {
        return array.get(JAVA_LONG, 8);
    }

    static MemorySegment child(MemorySegment array, int i) {
        long n = array.get(JAVA_LONG, 32);
        return array.get(ADDRESS, 48).reinterpret(8 * n).getAtIndex(ADDRESS, i).reinterpret(ARRAY_BYTES);
    }

    /** The address of buffer {@code b} of an array (0 for an absent one). */
    static long buffer(MemorySegment array, int b) {
        long n = array.get(JAVA_LONG, 24);
        return array.get(ADDRESS, 40).reinterpret(8 * n).getAtIndex(ADDRESS, b).address();
    }

    static boolean valid(MemorySegment child, long row) {
        long v = buffer(child, 0);
        if (v == 0) {
            return true;
        }
        byte b = MemorySegment.ofAddress(v).reinterpret(row / 8 + 1).get(ValueLayout.JAVA_BYTE, row / 8);
        return (b >> (row % 8) & 1) != 0;
    }

    /** Value {@code row} of a child, as a long (or double bits for f/g, 0/1 for b). */
    static long value(MemorySegment child, String format, long row) {
        MemorySegment d = MemorySegment.ofAddress(buffer(child, 1)).reinterpret(8 * (row + 1));
        return switch (format) {
            case "c" -> d.get(ValueLayout.JAVA_BYTE, row);
            case "s" -> d.getAtIndex(ValueLayout.JAVA_SHORT, row);
            case "S" -> d.getAtIndex(ValueLayout.JAVA_CHAR, row);
            case "i" -> d.getAtIndex(ValueLayout.JAVA_INT, row);
            case "l" -> d.getAtIndex(JAVA_LONG, row);
            case "f" -> Double.doubleToLongBits(d.getAtIndex(ValueLayout.JAVA_FLOAT, row));
            case "g" -> Double.doubleToLongBits(d.getAtIndex(ValueLayout.JAVA_DOUBLE, row));
            case "b" -> d.get(ValueLayout.JAVA_BYTE, row / 8) >> (row % 8) & 1;
            default -> throw new AssertionError(format);
        };
    }
}
