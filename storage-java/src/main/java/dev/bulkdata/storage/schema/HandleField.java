package dev.bulkdata.storage.schema;

/**
 * A {@link Field} holding handles of another table, named by the field: the {@link #target()} table's name. Declared
 * with {@link Schema.Builder#addHandle(String, String)}, obtained from {@link Schema#handleField(String)}; read and
 * written as {@code long} handles with the typed {@code get}/{@code set} of {@link dev.bulkdata.storage.Table}, {@link dev.bulkdata.storage.Chunk} and
 * {@link dev.bulkdata.storage.ComponentTable}. A new record's handle fields hold {@link dev.bulkdata.storage.Handles#NULL}.
 *
 * <p>A value is stored as it is written, 8 bytes, without a check: a table does not know the tables its fields refer
 * to. What the target name is for: a snapshot records it, so that {@link dev.bulkdata.storage.Snapshots#remap} rewrites the references to a
 * table loaded under a new tag and {@link dev.bulkdata.storage.Snapshots#danglingReferences} finds the references that name no live record.
 */
public final class HandleField extends Field {
    private final String target;

    HandleField(Schema schema, String name, String target, int index, int blockOffset, int slotStride) {
        super(schema, name, FieldType.HANDLE, index, blockOffset, slotStride);
        this.target = target;
    }

    /** {@return the name of the table whose handles this field holds} */
    public String target() {
        return target;
    }
}
