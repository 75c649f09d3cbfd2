import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes the per-type code of the modules from the {@code float} case, into the committed
 * sources: the typed get/set of every field type, written once by hand. Run it from the
 * repository's root after changing a template or a {@code float} case, with JDK 25's
 * {@code java}:
 *
 * <pre>
 * java codegen/Generate.java            rewrite what is out of date
 * java codegen/Generate.java --check    change nothing; list what is out of date, exit 1 if any
 * </pre>
 *
 * {@code GeneratedCodeTest} (storage-java) runs the check in every build. A module takes part
 * through its {@code src/main/templates} (each file a template, not compiled) and its source
 * roots {@code src/main/java} and {@code src/main/kotlin}:
 * <ul>
 * <li>a template whose name contains {@code Float} ({@code FloatVectors.java}) becomes one
 *     source file per type ({@code IntVectors.java}, ...) at the same relative path of the
 *     source root, the whole file rewritten for that type, except where the source root has a
 *     hand-written file of that name (a type whose class needs more than the template, such as
 *     {@code BooleanField});
 * <li>so does a hand-written source file whose first line starts with {@code // @per-type} and
 *     whose name contains {@code Float} ({@code FloatField.java}): the {@code float} case is
 *     compiled source, and the template of the other types (the marker line is not copied);
 * <li>any other template whose source file (same relative path) holds the line
 *     {@code // @generated} fills the lines between it and {@code // @end-generated}: the
 *     per-type members of a hand-written class, in its own file;
 * <li>any other template becomes the source file of its path, whole;
 * <li>in a template, each region between a line {@code // @each-type} and a line
 *     {@code // @end} is written once per type, in the order of {@link #TYPES}; a region that
 *     does not fit some types leaves them out: {@code // @each-type except Boolean};
 * <li>a per-type template whose first line is {@code // @types Int, Long, Float, Double} is
 *     written for those types only (that line is not copied);
 * <li>lines between {@code // @only Name, ...} and {@code // @end-only} are kept only in the code
 *     written for the types named (an identity, a widening sum); the marker lines are not copied.
 * </ul>
 * A generated file starts with a line naming its source; a generated region's first line does.
 * A file that starts with such a line and that no source makes any more is deleted.
 *
 * <p>Rewriting for a type replaces, in this order: {@code JAVA_FLOAT_UNALIGNED} by the type's value
 * layout; the literal {@code 0f} by its zero; {@code {@code float}} and {@code `float`} in
 * documentation by the type's doc word, if it has one (a handle: "Reads a handle field"); "a" before {@code float} (as "a {@code float}" or
 * "a `float`") by the type's article; the word {@code Float} by its Kotlin type (in a {@code .java} file by its Java box, {@code Integer}) and {@code Float}
 * inside a name ({@code FloatField}, {@code OfFloat}) by its name; the word {@code float} by its
 * Java type and {@code float} inside a name ({@code floatField}) by its name in lower case;
 * {@code FLOAT} by its name in upper case ({@code FieldType.FLOAT}).
 */
public final class Generate {
    /**
     * A field type: its name (in {@code FieldType}, {@code XField}, {@code XColumn},
     * {@code schema.xField}), the Java and Kotlin types of its values, for a generated
     * {@code XField} its value layout and zero literal, and the words documentation uses for
     * its values where {@code {@code float}} is not the Java type's name (null: the type's name).
     */
    record Type(String name, String javaType, String kotlinType, String layout, String zero, String docWord) {
        Type(String name, String javaType, String kotlinType, String layout, String zero) {
            this(name, javaType, kotlinType, layout, zero, null);
        }
    }

    /**
     * The field types, in the order of {@code FieldType}. Adding a type starts here
     * (ARCHITECTURE.md, How to change). A type without a value layout has its field class
     * written by hand.
     */
    static final List<Type> TYPES = List.of(
            new Type("Byte", "byte", "Byte", "JAVA_BYTE", "(byte) 0"),
            new Type("Short", "short", "Short", "JAVA_SHORT_UNALIGNED", "(short) 0"),
            new Type("Char", "char", "Char", "JAVA_CHAR_UNALIGNED", "'\\0'"),
            new Type("Int", "int", "Int", "JAVA_INT_UNALIGNED", "0"),
            new Type("Long", "long", "Long", "JAVA_LONG_UNALIGNED", "0L"),
            new Type("Float", "float", "Float", "JAVA_FLOAT_UNALIGNED", "0f"),
            new Type("Double", "double", "Double", "JAVA_DOUBLE_UNALIGNED", "0d"),
            new Type("Boolean", "boolean", "Boolean", null, null), // BooleanField stores 0 or 1 in a byte
            // HandleField holds a long handle of a named table; the Kotlin templates leave it out
            // of their regions (a handle column is typed by two tables) and write it by hand
            new Type("Handle", "long", "Long", null, null, "handle"));

    private static final String BEGIN = "// @each-type";
    private static final String END = "// @end";
    private static final String TYPES_LINE = "// @types ";
    private static final String ONLY = "// @only ";
    private static final String END_ONLY = "// @end-only";
    private static final String PER_TYPE = "// @per-type";
    private static final Pattern ARTICLE = Pattern.compile("\\b([Aa]) (\\{@code |`)float\\b");
    private static final Pattern DOC_ARTICLE = Pattern.compile("\\b([Aa]) (?:\\{@code float}|`float`)");

    private static final String GENERATED = "// @generated";
    private static final String END_GENERATED = "// @end-generated";
    private static final String HEADER = "// Generated from ";

    /** Whether this run only checks ({@code --check}). */
    private static boolean check;
    /** The files this run found out of date (checking) or rewrote. */
    private static final List<Path> changed = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        Path given = Path.of(".");
        for (String arg : args) {
            if (arg.equals("--check")) {
                check = true;
            } else if (arg.startsWith("-")) {
                throw new IllegalArgumentException("usage: java codegen/Generate.java [--check] [ROOT]");
            } else {
                given = Path.of(arg);
            }
        }
        Path root = given;
        List<Path> modules;
        try (Stream<Path> list = Files.list(root)) {
            modules = list.filter(m -> Files.isDirectory(m.resolve("src/main"))).sorted().toList();
        }
        int templates = 0;
        for (Path module : modules) {
            templates += module(root, module);
        }
        String what = changed.stream().map(p -> "  " + root.relativize(p).toString().replace('\\', '/'))
                .reduce((a, b) -> a + "\n" + b).orElse("");
        if (check && !changed.isEmpty()) {
            System.err.println("codegen: out of date (run java codegen/Generate.java from the repository's root):\n" + what);
            System.exit(1);
        }
        System.out.println("codegen: " + templates + " templates, " + (check ? "all up to date" : changed.size()
                + (changed.size() == 1 ? " file" : " files") + " rewritten" + (what.isEmpty() ? "" : ":\n" + what)));
    }

    /** Generates one module's per-type code. {@return the number of templates and per-type sources read} */
    private static int module(Path root, Path module) throws IOException {
        Path templates = module.resolve("src/main/templates");
        List<Path> sourceRoots = new ArrayList<>();
        for (String lang : List.of("java", "kotlin")) {
            if (Files.isDirectory(module.resolve("src/main/" + lang))) {
                sourceRoots.add(module.resolve("src/main/" + lang));
            }
        }
        Set<Path> outputs = new HashSet<>();
        int count = 0;
        for (Path template : Files.isDirectory(templates) ? filesBelow(templates) : List.<Path>of()) {
            count++;
            Path relative = templates.relativize(template);
            boolean java = relative.toString().endsWith(".java");
            Path sourceRoot = module.resolve(java ? "src/main/java" : "src/main/kotlin");
            String text = Files.readString(template);
            String from = root.relativize(template).toString().replace('\\', '/');
            Path target = sourceRoot.resolve(relative);
            if (relative.getFileName().toString().contains("Float")) {
                perType(template, relative, text, header(from, "the template"), sourceRoot, outputs);
            } else if (Files.exists(target) && Files.readString(target).contains(GENERATED + "\n")) {
                add(outputs, target);
                write(target, region(Files.readString(target), target, from, expand(text, relative, java)));
            } else {
                add(outputs, target);
                write(target, header(from, "the template") + expand(text, relative, java));
            }
        }
        for (Path sourceRoot : sourceRoots) {
            for (Path source : filesBelow(sourceRoot)) {
                String name = source.getFileName().toString();
                if (!(name.endsWith(".java") || name.endsWith(".kt")) || !Files.readString(source).startsWith(PER_TYPE)) {
                    continue;
                }
                count++;
                Path relative = sourceRoot.relativize(source);
                if (!name.contains("Float")) {
                    throw new IllegalStateException(source + ": a file marked " + PER_TYPE + " must be named for Float");
                }
                String text = Files.readString(source);
                text = text.substring(text.indexOf('\n') + 1); // the marker line is not copied
                String from = root.relativize(source).toString().replace('\\', '/');
                perType(source, relative, text, header(from, "that source"), sourceRoot, outputs);
            }
            removeStale(sourceRoot, outputs);
        }
        return count;
    }

    /** {@code text} with the lines between its {@code @generated} markers replaced by {@code body}. */
    private static String region(String text, Path target, String from, String body) {
        int begin = text.indexOf(GENERATED + "\n");
        int lineStart = text.lastIndexOf('\n', begin) + 1;
        String indent = text.substring(lineStart, begin);
        if (!indent.isBlank() || text.indexOf(GENERATED + "\n", begin + 1) >= 0) {
            throw new IllegalStateException(target + ": one line " + GENERATED + " on its own expected");
        }
        int end = text.indexOf(END_GENERATED, begin);
        if (end < 0) {
            throw new IllegalStateException(target + ": " + GENERATED + " without " + END_GENERATED);
        }
        int endLine = text.lastIndexOf('\n', end) + 1;
        return text.substring(0, lineStart) + indent + GENERATED + "\n"
                + indent + "// from " + from + " by codegen/Generate.java: edit the template, not these lines\n"
                + body + (body.endsWith("\n") ? "" : "\n") + text.substring(endLine);
    }

    /** Writes a per-type file ({@code relative} names it for {@code Float}) once per type, into {@code outputs}. */
    private static void perType(Path template, Path relative, String text, String header, Path sourceRoot,
                                Set<Path> outputs) throws IOException {
        List<String> only = null;
        if (text.startsWith(TYPES_LINE)) {
            only = names(text.substring(TYPES_LINE.length(), text.indexOf('\n')), template + ":1");
            text = text.substring(text.indexOf('\n') + 1);
        }
        boolean java = relative.toString().endsWith(".java");
        for (Type type : TYPES) {
            if (only != null && !only.contains(type.name)) {
                continue;
            }
            Path target = sourceRoot.resolve(relative.resolveSibling(relative.getFileName().toString()
                    .replace("Float", type.name)));
            if (target.equals(template) || Files.exists(target) && !Files.readString(target).startsWith(HEADER)) {
                continue; // the float case itself, or a type written by hand
            }
            if (type.layout == null) {
                throw new IllegalStateException(type.name + " has no value layout in TYPES, so " + template
                        + " cannot be written for it: write " + target + " by hand");
            }
            add(outputs, target);
            write(target, header + rewrite(text, type, java, template));
        }
    }

    /** Adds a written file to {@code outputs}; two sources writing one file is an error. */
    private static void add(Set<Path> outputs, Path file) {
        if (!outputs.add(file)) {
            throw new IllegalStateException(file + " is written from two sources");
        }
    }

    private static List<Path> filesBelow(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** The first line of a generated file: where it comes from, and what to edit. */
    private static String header(String from, String what) {
        return HEADER + from + " by codegen/Generate.java: edit " + what + ", not this file.\n";
    }

    /** Copies {@code text}, writing each {@code @each-type} region once per type. */
    static String expand(String text, Path source, boolean java) {
        StringBuilder out = new StringBuilder();
        List<String> region = null;
        List<String> excluded = List.of();
        int lineNumber = 0;
        for (String line : text.split("\n", -1)) {
            lineNumber++;
            String trimmed = line.strip();
            if (trimmed.startsWith(BEGIN)) {
                if (region != null) {
                    throw new IllegalStateException(source + ":" + lineNumber + ": " + BEGIN + " inside a region");
                }
                region = new ArrayList<>();
                excluded = excluded(trimmed.substring(BEGIN.length()), source + ":" + lineNumber);
            } else if (trimmed.equals(END)) {
                if (region == null) {
                    throw new IllegalStateException(source + ":" + lineNumber + ": " + END + " without " + BEGIN);
                }
                String body = String.join("\n", region);
                boolean first = true;
                for (Type type : TYPES) {
                    if (!excluded.contains(type.name)) {
                        out.append(first ? "" : "\n").append(rewrite(body, type, java, source)).append('\n');
                        first = false;
                    }
                }
                region = null;
            } else if (region != null) {
                region.add(line);
            } else {
                out.append(line).append('\n');
            }
        }
        if (region != null) {
            throw new IllegalStateException(source + ": " + BEGIN + " without " + END);
        }
        return out.substring(0, out.length() - 1); // split added one line after the last newline
    }

    /** The type names after {@code except} in a region's first line ({@code // @each-type except Boolean, Char}). */
    private static List<String> excluded(String rest, String where) {
        String names = rest.strip();
        if (names.isEmpty()) {
            return List.of();
        }
        if (!names.startsWith("except ")) {
            throw new IllegalStateException(where + ": expected '" + BEGIN + "' or '" + BEGIN + " except Name, ...'");
        }
        return names(names.substring("except ".length()), where);
    }

    /** The type names of a comma-separated list, each checked against {@link #TYPES}. */
    private static List<String> names(String text, String where) {
        List<String> list = List.of(text.strip().split("\\s*,\\s*"));
        for (String name : list) {
            if (TYPES.stream().noneMatch(t -> t.name.equals(name))) {
                throw new IllegalStateException(where + ": no type named " + name);
            }
        }
        return list;
    }

    /** {@code text} without the {@code @only} blocks that do not name {@code type}, and without their marker lines. */
    private static String only(String text, Type type, Path source) {
        StringBuilder out = new StringBuilder();
        List<String> keepFor = null;
        for (String line : text.split("\n", -1)) {
            String trimmed = line.strip();
            if (trimmed.startsWith(ONLY)) {
                if (keepFor != null) {
                    throw new IllegalStateException(source + ": " + ONLY + "inside an " + ONLY + "block");
                }
                keepFor = names(trimmed.substring(ONLY.length()), source.toString());
            } else if (trimmed.equals(END_ONLY)) {
                if (keepFor == null) {
                    throw new IllegalStateException(source + ": " + END_ONLY + " without " + ONLY.strip());
                }
                keepFor = null;
            } else if (keepFor == null || keepFor.contains(type.name)) {
                out.append(line).append('\n');
            }
        }
        if (keepFor != null) {
            throw new IllegalStateException(source + ": " + ONLY.strip() + " without " + END_ONLY);
        }
        return out.substring(0, out.length() - 1);
    }

    /** The Java box of a type's values: {@code Integer} for {@code int}, {@code Character} for {@code char}. */
    private static String box(Type type) {
        return switch (type.javaType) {
            case "int" -> "Integer";
            case "char" -> "Character";
            default -> Character.toUpperCase(type.javaType.charAt(0)) + type.javaType.substring(1);
        };
    }

    /** {@code text}, written for {@code float}, rewritten for {@code type} (in a {@code .java} file if {@code java}). */
    static String rewrite(String text, Type type, boolean java, Path source) {
        text = only(text, type, source);
        String lowerName = type.name.toLowerCase(Locale.ROOT);
        if (type.layout != null) {
            text = text.replace("JAVA_FLOAT_UNALIGNED", type.layout);
            text = text.replaceAll("(?<![\\w.])0f\\b", Matcher.quoteReplacement(type.zero));
        }
        if (type.docWord != null) {
            text = DOC_ARTICLE.matcher(text).replaceAll(m -> Matcher.quoteReplacement(
                    ("aeiou".indexOf(type.docWord.charAt(0)) >= 0 ? m.group(1) + "n" : m.group(1)) + " " + type.docWord));
            text = text.replace("{@code float}", type.docWord).replace("`float`", type.docWord);
        }
        Matcher article = ARTICLE.matcher(text);
        boolean vowel = "aeiou".indexOf(type.javaType.charAt(0)) >= 0;
        text = article.replaceAll(m -> {
            String a = vowel ? "an" : "a";
            if (m.group(1).equals("A")) {
                a = "A" + a.substring(1);
            }
            return Matcher.quoteReplacement(a + " " + m.group(2) + type.javaType);
        });
        text = text.replaceAll("\\bFloat\\b", java ? box(type) : type.kotlinType).replace("Float", type.name);
        text = text.replaceAll("\\bfloat\\b", type.javaType).replace("float", lowerName);
        return text.replace("FLOAT", type.name.toUpperCase(Locale.ROOT));
    }

    /** Writes {@code file} unless it already holds {@code text}; when checking, notes that it would. */
    private static void write(Path file, String text) {
        try {
            if (!Files.exists(file) || !Files.readString(file).equals(text)) {
                changed.add(file);
                if (!check) {
                    Files.createDirectories(file.getParent());
                    Files.writeString(file, text);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes every generated file below {@code root} that this run did not write (its source is gone). */
    private static void removeStale(Path root, Set<Path> keep) throws IOException {
        for (Path p : filesBelow(root)) {
            if (!keep.contains(p) && Files.readString(p).startsWith(HEADER)) {
                changed.add(p);
                if (!check) {
                    Files.delete(p);
                }
            }
        }
    }
}
