package dev.bulkdata.storage.arrow;

import dev.bulkdata.storage.schema.FieldType;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;

/**
 * The three structs of the Arrow C data and C stream interfaces, as FFM layouts, and the
 * callbacks this module gives consumers: upcall stubs made once per JVM, in the global arena,
 * that dispatch to the {@link ArrowStream} named by the struct's {@code private_data}; and the
 * interface's encodings of a field's type (its format string) and of schema metadata.
 */
final class CData {
    private CData() {
    }

    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG;
    static final java.lang.foreign.AddressLayout PTR = ValueLayout.ADDRESS;

    /** {@code struct ArrowSchema}. */
    static final StructLayout SCHEMA = MemoryLayout.structLayout(
            PTR.withName("format"), PTR.withName("name"), PTR.withName("metadata"), I64.withName("flags"),
            I64.withName("n_children"), PTR.withName("children"), PTR.withName("dictionary"),
            PTR.withName("release"), PTR.withName("private_data"));
    static final long SCHEMA_FORMAT = 0;
    static final long SCHEMA_NAME = 8;
    static final long SCHEMA_METADATA = 16;
    static final long SCHEMA_FLAGS = 24;
    static final long SCHEMA_N_CHILDREN = 32;
    static final long SCHEMA_CHILDREN = 40;
    static final long SCHEMA_DICTIONARY = 48;
    static final long SCHEMA_RELEASE = 56;
    static final long SCHEMA_PRIVATE = 64;

    /** {@code struct ArrowArray}. */
    static final StructLayout ARRAY = MemoryLayout.structLayout(
            I64.withName("length"), I64.withName("null_count"), I64.withName("offset"), I64.withName("n_buffers"),
            I64.withName("n_children"), PTR.withName("buffers"), PTR.withName("children"),
            PTR.withName("dictionary"), PTR.withName("release"), PTR.withName("private_data"));
    static final long ARRAY_LENGTH = 0;
    static final long ARRAY_NULL_COUNT = 8;
    static final long ARRAY_OFFSET = 16;
    static final long ARRAY_N_BUFFERS = 24;
    static final long ARRAY_N_CHILDREN = 32;
    static final long ARRAY_BUFFERS = 40;
    static final long ARRAY_CHILDREN = 48;
    static final long ARRAY_DICTIONARY = 56;
    static final long ARRAY_RELEASE = 64;
    static final long ARRAY_PRIVATE = 72;

    /** {@code struct ArrowArrayStream}. */
    static final StructLayout STREAM = MemoryLayout.structLayout(
            PTR.withName("get_schema"), PTR.withName("get_next"), PTR.withName("get_last_error"),
            PTR.withName("release"), PTR.withName("private_data"));
    static final long STREAM_GET_SCHEMA = 0;
    static final long STREAM_GET_NEXT = 8;
    static final long STREAM_GET_LAST_ERROR = 16;
    static final long STREAM_RELEASE = 24;
    static final long STREAM_PRIVATE = 32;

    /** {@code ARROW_FLAG_NULLABLE}. */
    static final long FLAG_NULLABLE = 2;

    static final int EIO = 5;
    static final int EINVAL = 22;

    static final MemorySegment GET_SCHEMA;
    static final MemorySegment GET_NEXT;
    static final MemorySegment GET_LAST_ERROR;
    static final MemorySegment RELEASE_STREAM;
    static final MemorySegment RELEASE_SCHEMA;
    static final MemorySegment RELEASE_ARRAY;

    static {
        Linker linker = Linker.nativeLinker();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        Arena global = Arena.global();
        try {
            GET_SCHEMA = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "getSchema",
                            MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, PTR, PTR), global);
            GET_NEXT = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "getNext",
                            MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, PTR, PTR), global);
            GET_LAST_ERROR = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "getLastError",
                            MethodType.methodType(MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(PTR, PTR), global);
            RELEASE_STREAM = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "releaseStream",
                            MethodType.methodType(void.class, MemorySegment.class)),
                    FunctionDescriptor.ofVoid(PTR), global);
            RELEASE_SCHEMA = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "releaseSchema",
                            MethodType.methodType(void.class, MemorySegment.class)),
                    FunctionDescriptor.ofVoid(PTR), global);
            RELEASE_ARRAY = linker.upcallStub(
                    lookup.findStatic(ArrowStream.class, "releaseArray",
                            MethodType.methodType(void.class, MemorySegment.class)),
                    FunctionDescriptor.ofVoid(PTR), global);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code n} rounded up to a multiple of {@code a} (a power of two). */
    static long align(long n, long a) {
        return (n + a - 1) & -a;
    }

    /** Arrow's metadata encoding of one key and value: int32 count, then length-prefixed bytes. */
    static MemorySegment metadata(Arena arena, String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        MemorySegment m = arena.allocate(12L + k.length + v.length, 4);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 1);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 4, k.length);
        MemorySegment.copy(k, 0, m, ValueLayout.JAVA_BYTE, 8, k.length);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 8L + k.length, v.length);
        MemorySegment.copy(v, 0, m, ValueLayout.JAVA_BYTE, 12L + k.length, v.length);
        return m;
    }

    /** {@return the Arrow format string of a field type (a handle is an int64)} */
    static String format(FieldType type) {
        return switch (type) {
            case BYTE -> "c";
            case SHORT -> "s";
            case CHAR -> "S";
            case INT -> "i";
            case LONG, HANDLE -> "l";
            case FLOAT -> "f";
            case DOUBLE -> "g";
            case BOOLEAN -> "b";
        };
    }
}
