package dev.bulkdata.storage;

import dev.bulkdata.storage.schema.FieldType;
import dev.bulkdata.storage.schema.RecordLayout;
import dev.bulkdata.storage.schema.Schema;

/** Schemas the tests share. Every call builds a new schema (schemas compare by identity). */
final class TestSchemas {
    /** 249 longs: with them a mixed record takes 2030 (SOA) or 2048 (AOS) bytes, 8 per block. */
    private static final String[] PADDING =
            java.util.stream.IntStream.range(0, 249).mapToObj(i -> "pad" + i).toArray(String[]::new);

    private TestSchemas() {
    }

    /** The standard 32-byte record: 8 floats, 512 slots per block. */
    static Schema particles(RecordLayout layout) {
        return Schema.builder("particles").layout(layout)
                .add(FieldType.FLOAT, "t", "px", "py", "pz", "vx", "vy", "vz", "pad")
                .build();
    }

    /**
     * One field of every type, in an order that makes AOS pad (byte before long), and an
     * unused tail that forces several blocks quickly: 8 slots per block.
     */
    static Schema mixed(RecordLayout layout) {
        return Schema.builder("mixed").layout(layout)
                .add(FieldType.BYTE, "b")
                .add(FieldType.LONG, "l")
                .add(FieldType.SHORT, "s")
                .add(FieldType.CHAR, "c")
                .add(FieldType.INT, "i")
                .add(FieldType.FLOAT, "f")
                .add(FieldType.DOUBLE, "d")
                .add(FieldType.BOOLEAN, "z")
                .addHandle("h", "mixed")
                .add(FieldType.LONG, PADDING)
                .build();
    }

    /** Only narrow fields: the free-list link needs a hidden column. */
    static Schema narrow(RecordLayout layout) {
        return Schema.builder("narrow").layout(layout)
                .add(FieldType.BYTE, "a")
                .add(FieldType.CHAR, "c")
                .add(FieldType.BOOLEAN, "z")
                .build();
    }
}
