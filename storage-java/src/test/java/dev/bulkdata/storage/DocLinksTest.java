package dev.bulkdata.storage;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of the README and of {@code docs/} leads to a file of the repository, and
 * every {@code #anchor} into one of these documents to one of its headings (as GitHub names
 * them).
 */
class DocLinksTest {
    /** A markdown link or image: {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    @Test
    void everyRelativeLink_leadsToAFile_andEveryAnchorToAHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (String doc : DocSnippetsTest.documents()) {
            Path from = DocSnippetsTest.ROOT.resolve(doc);
            for (String target : links(from)) {
                if (target.matches("^[a-z]+:.*")) {
                    continue;                                              // https:, mailto:
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path to = file.isEmpty() ? from : from.getParent().resolve(file).normalize();
                String repoPath = DocSnippetsTest.ROOT.toAbsolutePath().normalize()
                        .relativize(to.toAbsolutePath().normalize()).toString().replace('\\', '/');
                if (!Files.exists(to)) {
                    broken.add(doc + ": " + target + " (no file " + repoPath + ")");
                    continue;
                }
                if (anchor != null && isDocument(repoPath) && !anchors(to).contains(anchor)) {
                    broken.add(doc + ": " + target + " (no heading #" + anchor + " in " + repoPath + ")");
                }
            }
        }
        assertTrue(links > 50, "found only " + links + " relative links");
        assertEquals(List.of(), broken);
    }

    @Test
    void anchors_areNamedAsGitHubNamesThem() {
        assertEquals("change-versions-visit-only-what-changed", slug("Change versions: visit only what changed"));
        assertEquals("simd-column-kernels-storage-vector", slug("SIMD column kernels (storage-vector)"));
        assertEquals("packedtable-dense-rows", slug("`PackedTable`: dense rows"));
    }

    /** README.md and the documents under docs/: the files whose headings this test knows. */
    private static boolean isDocument(String repoPath) {
        return repoPath.equals("README.md") || repoPath.startsWith("docs/") && repoPath.endsWith(".md");
    }

    /** The link targets of a markdown file, code blocks and code spans left out. */
    static List<String> links(Path markdown) throws IOException {
        List<String> targets = new ArrayList<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a markdown file's headings. */
    static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
            } else if (!inBlock && line.matches("^#{1,6} .*")) {
                String slug = slug(line.replaceFirst("^#+ ", ""));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }

    /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
