package dev.bulkdata.storage.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The shape of a table's records: a table name, ordered named primitive fields and a {@link RecordLayout}. Building a
 * schema fixes where every field lives inside a block and how many records a block holds: the largest power of two of
 * slots that fits in {@value #BLOCK_BYTES} bytes, and only those slots' bytes are allocated ({@link #blockBytes()}).
 * {@link RecordLayout#SOA} orders its columns widest first, so each is aligned to its width; {@link RecordLayout#AOS}
 * lays records out in declaration order with C alignment. A schema whose fields are all narrower than 4 bytes gets a
 * hidden 4-byte column for the free-list links a snapshot saves, counted in {@link #slotBytes()}. Guide:
 * docs/tables-and-handles.md, "Blocks and slots"; the exact layout: docs/format.md. Immutable and thread-safe; one
 * schema may back any number of tables.
 */
public final class Schema {
    /** The size of a block: the most bytes the slots of one block may take. */
    public static final int BLOCK_BYTES = 16 * 1024;
    /** Alignment of every block's native segment: one cache line. */
    public static final int BLOCK_ALIGNMENT = 64;

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,63}");
    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final String LINK_FIELD_NAME = "$freeLink";

    private final String name;
    private final RecordLayout layout;
    private final List<Field> fields;
    private final Map<String, Field> byName;
    /** Every field whose bytes make up a record: the declared ones plus a hidden link, if any. */
    private final Field[] storedFields;
    /** Where a free slot keeps the number of the next free slot. */
    private final IntField link;
    private final int recordBytes;
    private final int slotBytes;
    private final int slotsPerBlock;
    /** Per declared field: the bits a record saved without it loads with ({@link Builder#loadDefault}). */
    private final long[] loadDefaults;

    private Schema(String name, RecordLayout layout, List<String> names, List<FieldType> types, List<String> targets,
                   long[] loadDefaults) {
        this.name = name;
        this.layout = layout;
        this.loadDefaults = loadDefaults;
        int n = names.size();
        boolean hiddenLink = types.stream().allMatch(t -> t.byteSize() < Integer.BYTES);
        int stored = hiddenLink ? n + 1 : n;
        int[] sizes = new int[stored];
        int declared = 0;
        for (int i = 0; i < n; i++) {
            sizes[i] = types.get(i).byteSize();
            declared += sizes[i];
        }
        if (hiddenLink) {
            sizes[n] = Integer.BYTES;
        }
        this.recordBytes = declared;

        int[] bases = new int[stored];
        int[] steps = new int[stored];
        if (layout == RecordLayout.SOA) {
            int bytes = Arrays.stream(sizes).sum();
            this.slotBytes = bytes;
            this.slotsPerBlock = checkedSlotsPerBlock(name, bytes, declared);
            Integer[] order = new Integer[stored];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, Comparator.comparingInt((Integer i) -> sizes[i]).reversed());
            int column = 0;
            for (int i : order) {
                bases[i] = column;
                steps[i] = sizes[i];
                column += slotsPerBlock * sizes[i];
            }
        } else {
            int offset = 0;
            int widest = 1;
            for (int i = 0; i < stored; i++) {
                offset = alignUp(offset, sizes[i]);
                bases[i] = offset;
                offset += sizes[i];
                widest = Math.max(widest, sizes[i]);
            }
            int stride = alignUp(offset, widest);
            this.slotBytes = stride;
            this.slotsPerBlock = checkedSlotsPerBlock(name, stride, declared);
            Arrays.fill(steps, stride);
        }

        Field[] all = new Field[stored];
        Map<String, Field> map = new LinkedHashMap<>();
        IntField linkField = null;
        for (int i = 0; i < n; i++) {
            all[i] = newField(names.get(i), types.get(i), targets.get(i), i, bases[i], steps[i]);
            map.put(names.get(i), all[i]);
            if (linkField == null && sizes[i] >= Integer.BYTES) {
                // The link word: a 4-byte slice at a wider field's own offset, on little- and big-endian layouts alike.
                linkField = new IntField(this, LINK_FIELD_NAME, -1, bases[i], steps[i]);
            }
        }
        if (hiddenLink) {
            linkField = new IntField(this, LINK_FIELD_NAME, -1, bases[n], steps[n]);
            all[n] = linkField;
        }
        this.storedFields = all;
        this.link = linkField;
        this.fields = Collections.unmodifiableList(Arrays.asList(Arrays.copyOf(all, n)));
        this.byName = Collections.unmodifiableMap(map);
    }

    private Field newField(String fieldName, FieldType type, String target, int index, int blockOffset,
                           int slotStride) {
        return switch (type) {
            case BYTE -> new ByteField(this, fieldName, index, blockOffset, slotStride);
            case SHORT -> new ShortField(this, fieldName, index, blockOffset, slotStride);
            case CHAR -> new CharField(this, fieldName, index, blockOffset, slotStride);
            case INT -> new IntField(this, fieldName, index, blockOffset, slotStride);
            case LONG -> new LongField(this, fieldName, index, blockOffset, slotStride);
            case FLOAT -> new FloatField(this, fieldName, index, blockOffset, slotStride);
            case DOUBLE -> new DoubleField(this, fieldName, index, blockOffset, slotStride);
            case BOOLEAN -> new BooleanField(this, fieldName, index, blockOffset, slotStride);
            case HANDLE -> new HandleField(this, fieldName, target, index, blockOffset, slotStride);
        };
    }

    private static int checkedSlotsPerBlock(String name, int slotBytes, int declared) {
        if (slotBytes > BLOCK_BYTES) {
            throw new IllegalArgumentException("schema '" + name + "': a record needs " + slotBytes
                    + " bytes (fields: " + declared + ") but a block holds " + BLOCK_BYTES
                    + "; split the record into several tables linked by handles");
        }
        return Integer.highestOneBit(BLOCK_BYTES / slotBytes);
    }

    private static int alignUp(int value, int alignment) {
        return (value + alignment - 1) & -alignment;
    }

    /**
     * {@return a new schema builder, with layout {@link RecordLayout#SOA} and no fields}
     *
     * @param tableName the name of tables built from it: a letter or {@code _}, then letters, digits, {@code _ . -}; at
     *     most 64 characters. It appears in handle text and messages.
     * @throws IllegalArgumentException if the name is not valid
     */
    public static Builder builder(String tableName) {
        return new Builder(tableName);
    }

    /** {@return the table name} */
    public String name() {
        return name;
    }

    /** {@return the record layout inside blocks} */
    public RecordLayout layout() {
        return layout;
    }

    /** {@return the declared fields in declaration order (unmodifiable)} */
    public List<Field> fields() {
        return fields;
    }

    /**
     * {@return the field named {@code fieldName}} O(1).
     *
     * @param fieldName a field name
     * @throws IllegalArgumentException if the schema has no such field
     */
    public Field field(String fieldName) {
        Field f = byName.get(fieldName);
        if (f == null) {
            throw new IllegalArgumentException("schema '" + name + "' has no field '" + fieldName
                    + "'; its fields are " + byName.keySet());
        }
        return f;
    }

    /**
     * {@return whether the schema has a field of this name}
     *
     * @param fieldName a field name
     */
    public boolean hasField(String fieldName) {
        return byName.containsKey(fieldName);
    }

    // @generated
    // from storage-java/src/main/templates/dev/bulkdata/storage/schema/Schema.java by codegen/Generate.java: edit the template, not these lines
    /** {@return the {@code byte} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public ByteField byteField(String fieldName) {
        return typed(fieldName, ByteField.class, FieldType.BYTE);
    }

    /** {@return the {@code short} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public ShortField shortField(String fieldName) {
        return typed(fieldName, ShortField.class, FieldType.SHORT);
    }

    /** {@return the {@code char} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public CharField charField(String fieldName) {
        return typed(fieldName, CharField.class, FieldType.CHAR);
    }

    /** {@return the {@code int} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public IntField intField(String fieldName) {
        return typed(fieldName, IntField.class, FieldType.INT);
    }

    /** {@return the {@code long} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public LongField longField(String fieldName) {
        return typed(fieldName, LongField.class, FieldType.LONG);
    }

    /** {@return the {@code float} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public FloatField floatField(String fieldName) {
        return typed(fieldName, FloatField.class, FieldType.FLOAT);
    }

    /** {@return the {@code double} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public DoubleField doubleField(String fieldName) {
        return typed(fieldName, DoubleField.class, FieldType.DOUBLE);
    }

    /** {@return the {@code boolean} field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public BooleanField booleanField(String fieldName) {
        return typed(fieldName, BooleanField.class, FieldType.BOOLEAN);
    }

    /** {@return the handle field named {@code fieldName}}; O(1); {@link IllegalArgumentException} if none or of another type. */
    @SuppressWarnings("doclint:missing") // the parameter is the field's name
    public HandleField handleField(String fieldName) {
        return typed(fieldName, HandleField.class, FieldType.HANDLE);
    }
    // @end-generated

    /** {@link #field(String)}, checked to be a {@code kind}: the typed lookups. */
    private <F extends Field> F typed(String fieldName, Class<F> kind, FieldType type) {
        Field f = field(fieldName);
        if (!kind.isInstance(f)) {
            throw new IllegalArgumentException("field '" + name + "." + fieldName + "' is " + f.type()
                    + ", not " + type + "; use schema." + f.type().name().toLowerCase(java.util.Locale.ROOT)
                    + "Field(\"" + fieldName + "\")");
        }
        return kind.cast(f);
    }

    /** {@return the bytes of one record's declared fields, without padding or hidden columns} */
    public int recordBytes() {
        return recordBytes;
    }

    /** {@return a slot's bytes in a block: {@link #recordBytes()} plus AOS padding and any hidden free-list column} */
    public int slotBytes() {
        return slotBytes;
    }

    /** {@return slots per block: the largest power of two whose slots fit in 16 KiB} */
    public int slotsPerBlock() {
        return slotsPerBlock;
    }

    /** {@return bytes of native memory one block takes: {@code slotsPerBlock() * slotBytes()}} */
    public int blockBytes() {
        return slotsPerBlock * slotBytes;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Schema[").append(name).append(", ").append(layout).append(", ");
        for (Field f : fields) {
            sb.append(f.name()).append(':').append(f.type());
            if (f instanceof HandleField h) {
                sb.append('(').append(h.target()).append(')');
            }
            sb.append(' ');
        }
        return sb.append("| ").append(recordBytes).append(" B/record, ").append(slotBytes).append(" B/slot, ")
                .append(slotsPerBlock).append(" slots/block]").toString();
    }

    /** Collects a {@link Schema}'s name, layout and fields; a call that throws changes nothing. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private RecordLayout layout = RecordLayout.SOA;
        private final List<String> names = new ArrayList<>();
        private final List<FieldType> types = new ArrayList<>();
        /** The target table of each handle field, null for the others. */
        private final List<String> targets = new ArrayList<>();
        /** Per field in {@link #names}: its load default's bits ({@link #loadDefault}), 0 if none. */
        private final List<Long> loadDefaults = new ArrayList<>();
        private final java.util.Set<String> nameSet = new java.util.HashSet<>();
        /** Bytes of the fields so far: a lower bound of the record, checked as fields are added. */
        private long declaredBytes;

        private Builder(String name) {
            if (name == null || !TABLE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("table name '" + name + "' is not valid: use a letter or '_'"
                        + " followed by letters, digits, '_', '.' or '-' (at most 64 characters)");
            }
            this.name = name;
        }

        /**
         * Sets the record layout inside blocks.
         *
         * @param layout {@link RecordLayout#SOA} (the default) or {@link RecordLayout#AOS}
         * @return this builder
         * @throws IllegalArgumentException if {@code layout} is null
         */
        public Builder layout(RecordLayout layout) {
            if (layout == null) {
                throw new IllegalArgumentException("layout is null (schema '" + name + "'); use SOA or AOS");
            }
            this.layout = layout;
            return this;
        }

        /**
         * Adds fields of one type, in order. O(number of names given).
         *
         * @param type the type of every field named
         * @param fieldNames one or more names: a letter or {@code _}, then letters, digits or {@code _}; unique within
         *     the schema
         * @return this builder
         * @throws IllegalArgumentException on a null type, {@link FieldType#HANDLE} (use {@link #addHandle}), no names,
         *     an invalid name, a name already added, or fields that no longer fit a {@value #BLOCK_BYTES}-byte block
         */
        public Builder add(FieldType type, String... fieldNames) {
            if (type == null) {
                throw new IllegalArgumentException("field type is null (schema '" + name + "'); pass one of "
                        + java.util.Arrays.toString(FieldType.values()) + ", e.g. add(FieldType.FLOAT, \"x\")");
            }
            if (type == FieldType.HANDLE) {
                throw new IllegalArgumentException("a HANDLE field names the table whose handles it holds (schema '"
                        + name + "'); declare it with addHandle(\"field\", \"table\")");
            }
            return addFields(type, null, fieldNames);
        }

        /**
         * Adds a field holding handles of the table named {@code targetTable} ({@link FieldType#HANDLE}, a
         * {@code long}; see {@link HandleField}). A snapshot records the name for {@link dev.bulkdata.storage.Snapshots#remap} and
         * {@link dev.bulkdata.storage.Snapshots#danglingReferences}; the table need not exist yet, and may be this schema's own.
         *
         * @param fieldName the field's name, as in {@link #add}
         * @param targetTable the name of the table whose handles the field holds, a valid table name (see
         *     {@link Schema#builder})
         * @return this builder
         * @throws IllegalArgumentException on an invalid field or table name, a name already added, or fields that no
         *     longer fit a block
         */
        public Builder addHandle(String fieldName, String targetTable) {
            if (targetTable == null || !TABLE_NAME.matcher(targetTable).matches()) {
                throw new IllegalArgumentException("target table name '" + targetTable + "' of handle field '"
                        + fieldName + "' (schema '" + name + "') is not valid: use a letter or '_' followed by"
                        + " letters, digits, '_', '.' or '-' (at most 64 characters)");
            }
            return addFields(FieldType.HANDLE, targetTable, fieldName);
        }

        private Builder addFields(FieldType type, String target, String... fieldNames) {
            if (fieldNames == null || fieldNames.length == 0) {
                throw new IllegalArgumentException("no field names given for type " + type + " (schema '" + name + "')");
            }
            java.util.Set<String> batch = new java.util.HashSet<>();
            for (String f : fieldNames) {
                if (f == null || !FIELD_NAME.matcher(f).matches()) {
                    throw new IllegalArgumentException("field name '" + f + "' in schema '" + name + "' is not valid:"
                            + " use a letter or '_' followed by letters, digits or '_' (at most 64 characters)");
                }
                if (nameSet.contains(f) || !batch.add(f)) {
                    throw new IllegalArgumentException("schema '" + name + "' already has a field named '" + f
                            + "'; field names must be unique");
                }
            }
            long bytes = declaredBytes + (long) fieldNames.length * type.byteSize();
            if (bytes > BLOCK_BYTES) {
                throw new IllegalArgumentException("schema '" + name + "': a record needs at least " + bytes
                        + " bytes (fields: " + (names.size() + fieldNames.length) + ") but a block holds "
                        + BLOCK_BYTES + "; split the record into several tables linked by handles");
            }
            for (String f : fieldNames) {
                names.add(f);
                types.add(type);
                targets.add(target);
                loadDefaults.add(0L);
            }
            nameSet.addAll(batch);
            declaredBytes = bytes;
            return this;
        }

        /**
         * Declares the value that records saved without the field get when a file of an earlier schema is loaded under
         * this one ({@link dev.bulkdata.storage.Snapshots#load}, {@link dev.bulkdata.storage.TableBuilder#mapped}); without it they get zero. Records added later
         * start at zero; a file that has the field keeps its values. For {@code BYTE}, {@code SHORT}, {@code CHAR},
         * {@code INT}, {@code LONG}, or a whole number for {@code FLOAT} and {@code DOUBLE}; a {@code HANDLE} field
         * always loads as the null handle. Guide: docs/saving-and-mapped-tables.md.
         *
         * @param fieldName a field added before
         * @param value the value, which the field's type must hold exactly
         * @return this builder
         * @throws IllegalArgumentException if no field of that name was added, the field is a {@code BOOLEAN} or
         *     {@code HANDLE}, or its type cannot hold {@code value}. O(fields).
         */
        public Builder loadDefault(String fieldName, long value) {
            int i = declared(fieldName);
            FieldType type = types.get(i);
            boolean fits = switch (type) {
                case BYTE -> value == (byte) value;
                case SHORT -> value == (short) value;
                case CHAR -> value == (char) value;
                case INT -> value == (int) value;
                case LONG -> true;
                case FLOAT -> value == (long) (float) value && value != Long.MAX_VALUE; // the cast saturates
                case DOUBLE -> value == (long) (double) value && value != Long.MAX_VALUE;
                case BOOLEAN, HANDLE -> false;
            };
            if (!fits) {
                throw new IllegalArgumentException("field '" + name + "." + fieldName + "' is " + type + ", which "
                        + (type == FieldType.BOOLEAN ? "takes loadDefault(name, true or false)"
                        : type == FieldType.HANDLE ? "always loads as the null handle where a file lacks it"
                        : "cannot hold " + value + " exactly"));
            }
            long bits = type == FieldType.FLOAT ? Float.floatToRawIntBits(value)
                    : type == FieldType.DOUBLE ? Double.doubleToRawLongBits(value) : value;
            loadDefaults.set(i, bits);
            return this;
        }

        /**
         * {@link #loadDefault(String, long)} for a {@code FLOAT} field (the value rounded to {@code float}) or a
         * {@code DOUBLE} field.
         *
         * @param fieldName a {@code FLOAT} or {@code DOUBLE} field added before
         * @param value the value
         * @return this builder
         * @throws IllegalArgumentException if no field of that name was added or it is of another type. O(fields).
         */
        public Builder loadDefault(String fieldName, double value) {
            int i = declared(fieldName);
            FieldType type = types.get(i);
            if (type != FieldType.FLOAT && type != FieldType.DOUBLE) {
                throw new IllegalArgumentException("field '" + name + "." + fieldName + "' is " + type
                        + ", not FLOAT or DOUBLE; give it a " + (type == FieldType.BOOLEAN ? "boolean" : "whole number"));
            }
            loadDefaults.set(i, type == FieldType.FLOAT ? Float.floatToRawIntBits((float) value)
                    : Double.doubleToRawLongBits(value));
            return this;
        }

        /**
         * {@link #loadDefault(String, long)} for a {@code BOOLEAN} field.
         *
         * @param fieldName a {@code BOOLEAN} field added before
         * @param value the value
         * @return this builder
         * @throws IllegalArgumentException if no field of that name was added or it is of another type. O(fields).
         */
        public Builder loadDefault(String fieldName, boolean value) {
            int i = declared(fieldName);
            if (types.get(i) != FieldType.BOOLEAN) {
                throw new IllegalArgumentException("field '" + name + "." + fieldName + "' is " + types.get(i)
                        + ", not BOOLEAN; give it a number");
            }
            loadDefaults.set(i, value ? 1L : 0L);
            return this;
        }

        /** {@return the position of the field named {@code fieldName}} */
        private int declared(String fieldName) {
            int i = names.indexOf(fieldName);
            if (i < 0) {
                throw new IllegalArgumentException("schema '" + name + "' has no field '" + fieldName
                        + "' yet; add it before declaring its load default (fields so far: " + names + ")");
            }
            return i;
        }

        /**
         * {@return the immutable schema built}
         *
         * @throws IllegalArgumentException if no field was added or one record does not fit in a 16 KiB block
         */
        public Schema build() {
            if (names.isEmpty()) {
                throw new IllegalArgumentException("schema '" + name + "' has no fields; add at least one,"
                        + " e.g. builder.add(FieldType.FLOAT, \"x\")");
            }
            return new Schema(name, layout, List.copyOf(names), List.copyOf(types),
                    java.util.Collections.unmodifiableList(new ArrayList<>(targets)),
                    loadDefaults.stream().mapToLong(Long::longValue).toArray());
        }
    }
}
