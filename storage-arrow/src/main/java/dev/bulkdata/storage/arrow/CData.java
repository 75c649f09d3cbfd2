package dev.bulkdata.storage.arrow;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The three structs of the Arrow C data and C stream interfaces, as FFM layouts, and the
 * callbacks this module gives consumers: upcall stubs made once per JVM, in the global arena,
 * that dispatch to the {@link ArrowStream} named by the struct's {@code private_data}.
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
}
