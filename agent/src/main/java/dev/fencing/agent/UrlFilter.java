package dev.fencing.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which connections the agent fences, by JDBC URL: {@code fencing.agent.include-urls} and
 * {@code fencing.agent.exclude-urls}, each a comma-separated list of patterns matched against the
 * whole URL, where {@code *} stands for any text, at the start too (for example
 * {@code jdbc:postgresql://orders-db*} or {@code *ApplicationName=migrations*}). With includes,
 * only matching connections are fenced; excludes win over includes.
 *
 * <p>A connection may be known by several URLs: the one it was <em>configured</em> with (given
 * to {@code Driver.connect}, or a data source's URL property) and the one its driver
 * <em>reports</em> ({@code getMetaData().getURL()}), which drivers normalise: MariaDB drops the
 * default port, H2 its settings. Each URL is also taken with its default port written out and
 * left out. Includes and excludes are matched the same way, against these forms:
 * <ul>
 *   <li>an include matches when it matches any form;</li>
 *   <li>an exclude matches when it matches a form of a configured URL, or, when none is known,
 *       of the reported one;</li>
 *   <li>the connection is left unfenced only when an exclude matches, or when includes are set,
 *       none matches, and a configured URL is known. What cannot be decided (no URL known; only
 *       the reported URL, which may have lost what an include names) is fenced: fencing a
 *       connection that needs none changes nothing, leaving one unfenced could let a write
 *       through.</li>
 * </ul>
 */
final class UrlFilter {

    static final UrlFilter ALL = new UrlFilter(List.of(), List.of());

    private static final Pattern HOST_PORT = Pattern.compile(
            "(jdbc:(postgresql|mariadb|mysql)://)([^/:?;,\\[\\]@]+)(?::(\\d+))?([/?;].*)?", Pattern.DOTALL);

    private final List<Pattern> includes;
    private final List<Pattern> excludes;

    private UrlFilter(List<Pattern> includes, List<Pattern> excludes) {
        this.includes = includes;
        this.excludes = excludes;
    }

    static UrlFilter of(String includes, String excludes) {
        return new UrlFilter(patterns(includes), patterns(excludes));
    }

    /** True when no pattern is configured: every connection is fenced, the URL need not be read. */
    boolean fencesAll() {
        return includes.isEmpty() && excludes.isEmpty();
    }

    /** Whether a connection configured with {@code url} (null: unknown) is fenced. */
    boolean fences(String url) {
        return fences(url == null ? List.of() : List.of(url), null);
    }

    /**
     * Whether a connection is fenced.
     *
     * @param configured the URLs it was configured with (nulls ignored)
     * @param reported   the URL its driver reports, or null
     */
    boolean fences(List<String> configured, String reported) {
        if (fencesAll()) {
            return true;
        }
        List<String> configuredForms = new ArrayList<>();
        for (String url : configured) {
            if (url != null) {
                configuredForms.addAll(forms(url));
            }
        }
        List<String> reportedForms = reported == null ? List.of() : forms(reported);
        if (configuredForms.isEmpty() && reportedForms.isEmpty()) {
            return true;
        }
        if (matchesAny(excludes, configuredForms.isEmpty() ? reportedForms : configuredForms)) {
            return false;
        }
        if (includes.isEmpty() || matchesAny(includes, configuredForms) || matchesAny(includes, reportedForms)) {
            return true;
        }
        return configuredForms.isEmpty(); // only the reported URL, which may have lost what an include names
    }

    /** The URL as written, and with the default port written out or left out (PostgreSQL, MariaDB, MySQL). */
    static List<String> forms(String url) {
        List<String> forms = new ArrayList<>(2);
        forms.add(url);
        Matcher parts = HOST_PORT.matcher(url);
        if (parts.matches()) {
            String defaultPort = parts.group(2).equals("postgresql") ? "5432" : "3306";
            String rest = parts.group(5) == null ? "" : parts.group(5);
            if (parts.group(4) == null) {
                forms.add(parts.group(1) + parts.group(3) + ":" + defaultPort + rest);
            } else if (parts.group(4).equals(defaultPort)) {
                forms.add(parts.group(1) + parts.group(3) + rest);
            }
        }
        return forms;
    }

    private static boolean matchesAny(List<Pattern> patterns, List<String> urls) {
        for (Pattern pattern : patterns) {
            for (String url : urls) {
                if (pattern.matcher(url).matches()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<Pattern> patterns(String list) {
        List<Pattern> patterns = new ArrayList<>();
        if (list == null) {
            return patterns;
        }
        for (String part : list.split(",")) {
            String glob = part.trim();
            if (glob.isEmpty()) {
                continue;
            }
            StringBuilder regex = new StringBuilder();
            String[] literals = glob.split("\\*", -1);
            for (int i = 0; i < literals.length; i++) {
                if (i > 0) {
                    regex.append(".*"); // a star at the start as well: every star stands for any text
                }
                if (!literals[i].isEmpty()) {
                    regex.append(Pattern.quote(literals[i]));
                }
            }
            patterns.add(Pattern.compile(regex.toString(), Pattern.DOTALL));
        }
        return patterns;
    }

    @Override
    public String toString() {
        return fencesAll() ? "all URLs" : includes.size() + " include and " + excludes.size() + " exclude pattern(s)";
    }
}
