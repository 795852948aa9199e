package dev.fencing.proof;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * No plan changes unless on purpose: the {@link PlanDump} of the analyzer as it is now equals the
 * committed baseline, {@code dev/fencing/proof/plan-baseline.txt.gz}. A difference fails with the
 * first differing lines, old and new, side by side.
 *
 * <p>An intended plan change (a fix) updates the baseline in the same commit, and the commit says
 * which plans changed and why:
 * {@code mvn -q -o -pl integration-tests -am verify -Dtest=PlanDumpTest -Dfencing.plan-dump.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false} (writes src/test/resources/dev/fencing/proof/plan-baseline.txt.gz).
 * The same run with {@code -Dfencing.plan-dump.out=/path/dump.txt.gz} writes the dump there as well, and
 * with {@code -Dfencing.plan-dump.harvest=true} first harvests the test sources' SQL texts again
 * ({@link PlanDumpTexts}; the harvested texts are committed, so a new test changes no dump by itself).
 */
class PlanDumpTest {

    private static final String BASELINE = "/dev/fencing/proof/plan-baseline.txt.gz";
    private static final int SHOWN = 12;

    @Test
    void everyPlanIsTheBaselinePlan() throws Exception {
        if (Boolean.getBoolean("fencing.plan-dump.harvest")) {
            PlanDumpTexts.main(new String[] {".."}); // the test's working directory is the module's
        }
        List<String> now = PlanDump.lines();
        String out = System.getProperty("fencing.plan-dump.out");
        if (out != null && !out.isBlank()) {
            PlanDump.write(now, Path.of(out));
        }
        if (Boolean.getBoolean("fencing.plan-dump.update")) {
            Path target = Path.of("src/test/resources" + BASELINE);
            Files.createDirectories(target.getParent());
            PlanDump.write(now, target);
            System.out.println("PLAN DUMP: baseline updated, " + now.size() + " lines -> " + target.toAbsolutePath());
            return;
        }
        List<String> baseline = baseline();
        List<String> differences = differences(baseline, now);
        System.out.println("PLAN DUMP: " + now.size() + " plans, " + differences.size() / 2 + " differences");
        if (!differences.isEmpty()) {
            fail("plans differ from the baseline " + BASELINE + " (first " + Math.min(SHOWN, differences.size() / 2)
                    + " of " + differences.size() / 2 + "; an intended change updates it with"
                    + " -Dfencing.plan-dump.update=true and says why in the commit):\n"
                    + String.join("\n", differences.subList(0, Math.min(2 * SHOWN, differences.size()))));
        }
        assertTrue(now.size() > 10_000, "too few plans in the dump: " + now.size());
    }

    /**
     * Pairs of lines "- old" / "+ new" for each (configuration, dialect, text) whose plan differs,
     * or that only one side has; sorted by key.
     */
    private static List<String> differences(List<String> baseline, List<String> now) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < baseline.size() || j < now.size()) {
            String old = i < baseline.size() ? baseline.get(i) : null;
            String current = j < now.size() ? now.get(j) : null;
            int order = old == null ? 1 : current == null ? -1 : key(old).compareTo(key(current));
            if (order == 0) {
                if (!old.equals(current)) {
                    out.add("- " + old);
                    out.add("+ " + current);
                }
                i++;
                j++;
            } else if (order < 0) {
                out.add("- " + old);
                out.add("+ (no such text now)");
                i++;
            } else {
                out.add("- (no such text in the baseline)");
                out.add("+ " + current);
                j++;
            }
        }
        return out;
    }

    /** Configuration, dialect and text: the first three tab-separated fields. */
    private static String key(String line) {
        int tab = line.indexOf('\t');
        tab = line.indexOf('\t', tab + 1);
        return line.substring(0, line.indexOf('\t', tab + 1));
    }

    private static List<String> baseline() throws IOException {
        try (InputStream in = PlanDumpTest.class.getResourceAsStream(BASELINE)) {
            if (in == null) {
                throw new IllegalStateException("missing " + BASELINE + "; make it with -Dfencing.plan-dump.update=true");
            }
            String text = new String(new GZIPInputStream(in).readAllBytes(), StandardCharsets.UTF_8);
            return new ArrayList<>(Arrays.asList(text.split("\n")));
        }
    }
}
