package dev.fencing.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which connections the agent fences, by JDBC URL: {@code fencing.agent.include-urls} and
 * {@code fencing.agent.exclude-urls}, each a comma-separated list of patterns matched against the
 * whole URL, where {@code *} stands for any text (for example {@code jdbc:postgresql://orders-db*}).
 * With includes, only matching URLs are fenced; excludes win over includes. A connection whose
 * URL cannot be read is fenced: fencing a connection that needs none changes nothing, while
 * leaving one unfenced could let a write through.
 */
final class UrlFilter {

    static final UrlFilter ALL = new UrlFilter(List.of(), List.of());

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

    /** Whether a connection to {@code url} (null: unknown) is fenced. */
    boolean fences(String url) {
        if (url == null || fencesAll()) {
            return true;
        }
        for (Pattern exclude : excludes) {
            if (exclude.matcher(url).matches()) {
                return false;
            }
        }
        if (includes.isEmpty()) {
            return true;
        }
        for (Pattern include : includes) {
            if (include.matcher(url).matches()) {
                return true;
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
            for (String literal : glob.split("\\*", -1)) {
                if (regex.length() > 0) {
                    regex.append(".*");
                }
                if (!literal.isEmpty()) {
                    regex.append(Pattern.quote(literal));
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
