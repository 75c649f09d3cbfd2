import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The deploy check of `mvn verify` (it/pom.xml): reads the staging repository that the
 * staging-deploy executions filled and fails the build, listing every problem, unless
 * <ul>
 *   <li>its files are exactly those of published-files.txt, each with correct .md5 and .sha1;
 *   <li>every published pom carries url, licenses, developers, scm and issueManagement, its own
 *       or inherited from bulkdata-parent, and all say the same;
 *   <li>the BOM manages exactly the published jars, at the project's version;
 *   <li>the jars hold what the README promises: storage-java's, storage-vector's, storage-arrow's and
 *       storage-inspector's module descriptors (and the inspector's charting library with its
 *       license), storage-kotlin's Automatic-Module-Name, sources in -sources, HTML in -javadoc.
 * </ul>
 * Usage: java DeployCheck.java STAGING_DIR EXPECTED_LIST VERSION
 */
public class DeployCheck {
    static final List<String> METADATA = List.of("url", "licenses", "developers", "scm", "issueManagement");
    static final Pattern TIMESTAMP = Pattern.compile("-\\d{8}\\.\\d{6}-\\d+");
    static final List<String> problems = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        Path staging = Path.of(args[0]);
        String version = args[2];
        Set<String> expected = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of(args[1]))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                expected.add(line.strip().replace("{version}", version));
            }
        }
        if (!Files.isDirectory(staging)) {
            fail("no staging repository at " + staging + ": build the whole project (mvn verify at the root)");
            report();
        }

        // 1. The set of files.
        Map<String, Path> artifacts = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(staging)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.matches(".*\\.(md5|sha1|sha256|sha512|asc)") || name.startsWith("maven-metadata")) {
                    continue;
                }
                String relative = staging.relativize(file).toString().replace('\\', '/');
                // A snapshot is deployed as NAME-0.1.0-20261123.172015-1.jar: read NAME-0.1.0-SNAPSHOT.jar.
                String normalized = version.endsWith("-SNAPSHOT")
                        ? relative.substring(0, relative.lastIndexOf('/') + 1) + TIMESTAMP.matcher(name).replaceFirst("-SNAPSHOT")
                        : relative;
                artifacts.put(normalized, file);
                checkChecksum(file, "md5", "MD5");
                checkChecksum(file, "sha1", "SHA-1");
            }
        }
        for (String missing : difference(expected, artifacts.keySet())) {
            fail("not published: " + missing);
        }
        for (String unexpected : difference(artifacts.keySet(), expected)) {
            fail("published but not expected: " + unexpected);
        }

        // 2. Publishing metadata, 3. the BOM.
        Map<String, Element> poms = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : artifacts.entrySet()) {
            if (e.getKey().endsWith(".pom")) {
                poms.put(artifactIdOf(e.getKey()), parse(e.getValue()));
            }
        }
        Element parent = poms.get("bulkdata-parent");
        Map<String, String> reference = parent == null ? Map.of() : metadataOf(parent);
        for (Map.Entry<String, Element> e : poms.entrySet()) {
            String id = e.getKey();
            Element pom = e.getValue();
            Map<String, String> own = metadataOf(pom);
            Element parentRef = child(pom, "parent");
            if (parentRef != null) {
                if (!"bulkdata-parent".equals(text(parentRef, "artifactId")) || !version.equals(text(parentRef, "version"))) {
                    fail(id + ": its parent is not dev.bulkdata:bulkdata-parent:" + version);
                }
                for (String element : METADATA) {
                    if (own.containsKey(element)) {
                        fail(id + ": declares <" + element + "> itself instead of inheriting it");
                    }
                }
            } else {
                for (String element : METADATA) {
                    if (!own.containsKey(element)) {
                        fail(id + ": no <" + element + ">");
                    } else if (reference.containsKey(element) && !reference.get(element).equals(own.get(element))) {
                        fail(id + ": <" + element + "> differs from bulkdata-parent's");
                    }
                }
            }
            for (String element : List.of("name", "description")) {
                if (text(pom, element) == null) {
                    fail(id + ": no <" + element + ">");
                }
            }
        }
        Set<String> jars = new TreeSet<>();
        for (String path : artifacts.keySet()) {
            if (path.endsWith(version + ".jar")) {
                jars.add(artifactIdOf(path));
            }
        }
        Element bom = poms.get("bulkdata-bom");
        if (bom != null) {
            Set<String> managed = new TreeSet<>();
            NodeList deps = bom.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element dep = (Element) deps.item(i);
                managed.add(text(dep, "artifactId"));
                if (!"dev.bulkdata".equals(text(dep, "groupId")) || !"${project.version}".equals(text(dep, "version"))) {
                    fail("bulkdata-bom: " + text(dep, "artifactId") + " is not dev.bulkdata at ${project.version}");
                }
            }
            if (!managed.equals(jars)) {
                fail("bulkdata-bom manages " + managed + ", the published jars are " + jars);
            }
        }

        // 4. What the jars hold.
        for (Map.Entry<String, Path> e : artifacts.entrySet()) {
            String path = e.getKey();
            if (!path.endsWith(".jar") || !expected.contains(path)) {
                continue;
            }
            try (JarFile jar = new JarFile(e.getValue().toFile())) {
                String id = artifactIdOf(path);
                if (path.endsWith("-sources.jar")) {
                    boolean sources = jar.stream().anyMatch(j -> j.getName().endsWith(".java") || j.getName().endsWith(".kt"));
                    if (!sources) {
                        fail(path + ": no source file");
                    }
                } else if (path.endsWith("-javadoc.jar")) {
                    if (jar.getEntry("index.html") == null) {
                        fail(path + ": no index.html");
                    }
                } else if (id.equals("storage-java")) {
                    if (jar.getEntry("module-info.class") == null) {
                        fail(path + ": no module-info.class (module dev.bulkdata.storage)");
                    }
                } else if (id.equals("storage-vector")) {
                    if (jar.getEntry("module-info.class") == null) {
                        fail(path + ": no module-info.class (module dev.bulkdata.storage.vector)");
                    }
                } else if (id.equals("storage-arrow")) {
                    if (jar.getEntry("module-info.class") == null) {
                        fail(path + ": no module-info.class (module dev.bulkdata.storage.arrow)");
                    }
                } else if (id.equals("storage-inspector")) {
                    if (jar.getEntry("module-info.class") == null) {
                        fail(path + ": no module-info.class (module dev.bulkdata.storage.inspector)");
                    }
                    if (jar.getEntry("dev/bulkdata/storage/inspector/internal/web/uplot/uPlot.iife.min.js") == null
                            || jar.getEntry("dev/bulkdata/storage/inspector/internal/web/uplot/LICENSE") == null) {
                        fail(path + ": the page's charting library (uPlot) and its license are not in the jar");
                    }
                } else if (id.equals("storage-kotlin")) {
                    String name = jar.getManifest() == null ? null
                            : jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
                    if (!"dev.bulkdata.storage.kotlin".equals(name)) {
                        fail(path + ": Automatic-Module-Name is " + name + ", not dev.bulkdata.storage.kotlin");
                    }
                }
            } catch (IOException broken) {
                fail(path + ": not a readable jar (" + broken.getMessage() + ")");
            }
        }
        report();
        System.out.println("deploy check: " + artifacts.size() + " published files as expected (" + poms.size()
                + " poms, jars of " + jars + "), checksums, metadata and BOM correct");
    }

    static void checkChecksum(Path file, String extension, String algorithm) throws Exception {
        Path sum = file.resolveSibling(file.getFileName() + "." + extension);
        if (!Files.exists(sum)) {
            fail(file + ": no ." + extension);
            return;
        }
        MessageDigest digest = MessageDigest.getInstance(algorithm);
        try (InputStream in = Files.newInputStream(file)) {
            digest.update(in.readAllBytes());
        }
        String actual = HexFormat.of().formatHex(digest.digest());
        if (!Files.readString(sum).strip().startsWith(actual)) {
            fail(file + ": ." + extension + " does not match");
        }
    }

    /** dev/bulkdata/ID/VERSION/FILE -> ID */
    static String artifactIdOf(String path) {
        String[] parts = path.split("/");
        return parts[parts.length - 3];
    }

    static Element parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        Document doc = factory.newDocumentBuilder().parse(pom.toFile());
        return doc.getDocumentElement();
    }

    /** Each metadata element of the pom, as normalized text (no attributes, no blanks). */
    static Map<String, String> metadataOf(Element pom) {
        Map<String, String> found = new LinkedHashMap<>();
        for (String element : METADATA) {
            Element e = child(pom, element);
            if (e != null) {
                found.put(element, e.getTextContent().replaceAll("\\s+", " ").strip());
            }
        }
        return found;
    }

    static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }

    static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    static void fail(String problem) {
        problems.add(problem);
    }

    static void report() {
        if (!problems.isEmpty()) {
            System.err.println("deploy check failed:");
            problems.forEach(p -> System.err.println("  " + p));
            System.exit(1);
        }
    }
}
