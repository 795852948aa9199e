package dev.fencing.proof.oracle;

import dev.fencing.FencingConfig;
import dev.fencing.proof.oracle.Server.Observation;
import dev.fencing.proof.oracle.Setting.Database;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.sql.SQLException;
import java.util.BitSet;
import java.util.function.Supplier;

/**
 * Runs a text on the server and compares what happened with what the analyzer predicted.
 *
 * <p>The analyzer is configured to fence the sink and, as if they were tables, every marker name:
 * then a text whose reading is uncertain near a marker is refused, as it would be refused near a
 * write to a fenced table, and a refused text is never sent, so it cannot disagree. For every
 * other text:
 * <ul>
 *   <li>a marker the server ran must be one the lexer read as code, in an executable comment, or
 *       inside a statement it treats as dynamic SQL; anything else ran hidden in what the lexer
 *       took for a string, a comment or no statement: a bypass;</li>
 *   <li>when the text ran without an error, every marker the lexer read as code ran, and (where
 *       the driver reports one result per statement) the server returned one result per statement
 *       the lexer split;</li>
 *   <li>the text the analyzer would send (with the fence rendered) committed no sink row without
 *       the fence: a write it did not fence is a bypass whatever the lexer said.</li>
 * </ul>
 */
final class Differential {

    enum Category {
        HIDDEN_MARKER_RAN(true, "the server ran a marker the lexer read as string, comment or no statement"),
        UNFENCED_WRITE(true, "the text the analyzer lets through committed a sink row without the fence"),
        CODE_MARKER_DID_NOT_RUN(false, "the text ran without error but a marker the lexer read as code did not run"),
        RESULT_COUNT(false, "the text ran without error but the server returned another number of results than the lexer's statements");

        final boolean bypass;
        final String meaning;

        Category(boolean bypass, String meaning) {
            this.bypass = bypass;
            this.meaning = meaning;
        }
    }

    record Disagreement(Setting setting, String text, Category category, String detail) {
        @Override
        public String toString() {
            return setting + " " + category + (category.bypass ? " (BYPASS)" : "") + ": " + category.meaning + "\n  text: "
                    + OracleCorpus.escape(text) + "\n  " + detail;
        }
    }

    /** Counts of what the texts did, for the run's report. */
    static final class Tally {
        long texts;
        long refused;
        long unreadable;
        long failed;
        long markersRan;
        long fencedRuns;
        /** Texts the lexer read differently from the server, which the analyzer refused (so never sent). */
        long misreadButRefused;
        long analyzerNanos;
        long serverNanos;

        @Override
        public String toString() {
            return texts + " texts (refused by the analyzer " + refused + ", unreadable to the lexer " + unreadable
                    + ", failed on the server " + failed + ", fenced and sent again " + fencedRuns
                    + ", misread by the lexer but refused " + misreadButRefused + "), markers run "
                    + markersRan + String.format("; analyzer %.2f ms/text, server %.2f ms/text", analyzerNanos / 1e6 / texts,
                    serverNanos / 1e6 / texts);
        }
    }

    final Server server;
    final Setting setting;
    private final StatementAnalyzer analyzer;
    final Tally tally = new Tally();
    /** While shrinking, runs are not counted in the tally (its figures are the generated texts only). */
    private boolean shrinking;
    /** How many more texts to print with what each side read ({@code -Dfencing.oracle.trace=N}). */
    private int trace = Integer.getInteger("fencing.oracle.trace", 0);
    /** Prints every text the lexer misread but the analyzer refused ({@code -Dfencing.oracle.trace.refused=true}). */
    private static final boolean TRACE_REFUSED_MISREADS = Boolean.getBoolean("fencing.oracle.trace.refused");

    Differential(Server server) {
        this.server = server;
        this.setting = server.setting;
        String[] tables = new String[Server.MARKERS + 1];
        tables[0] = Server.SINK;
        for (int m = 0; m < Server.MARKERS; m++) {
            tables[m + 1] = "o_m" + m;
        }
        this.analyzer = new StatementAnalyzer(FencingConfig.builder().tables(tables).build(), setting.database().dialect);
    }

    /** Runs {@code text} and returns the first disagreement, or null. */
    Disagreement check(String text) throws SQLException {
        Tally tally = shrinking ? new Tally() : this.tally;
        tally.texts++;
        long started = System.nanoTime();
        FencePlan plan = analyzer.plan(text);
        Prediction prediction = Prediction.of(text, setting);
        long analysed = System.nanoTime();
        Observation raw = server.run(text);
        tally.analyzerNanos += analysed - started;
        tally.serverNanos += System.nanoTime() - analysed;
        tally.markersRan += raw.markerRuns().length == 0 ? 0 : java.util.Arrays.stream(raw.markerRuns()).sum();
        if (raw.error() != null) {
            tally.failed++;
        }
        if (!prediction.readable()) {
            tally.unreadable++;
        }
        if (trace > 0) {
            trace--;
            System.out.println("oracle trace " + setting + ": " + OracleCorpus.escape(text) + "\n  " + raw + "\n  lexer: " + prediction
                    + "\n  analyzer: " + plan.kind() + (plan.refusalReason() == null ? "" : " " + plan.refusalReason()));
        }
        Supplier<String> context = () -> "server: " + raw + "\n  lexer: " + prediction + "\n  analyzer: " + plan.kind();
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            tally.refused++;
            Disagreement covered = prediction.readable() ? lexerDisagreement(text, prediction, raw, context) : null;
            if (covered != null) {
                tally.misreadButRefused++;
                if (TRACE_REFUSED_MISREADS) {
                    System.out.println("oracle misread, refused (" + plan.refusalReason() + "): " + covered);
                }
            }
            return null;
        }
        Observation sent = raw;
        String rendered = text;
        if (plan.kind() == FencePlan.Kind.FENCED) {
            tally.fencedRuns++;
            rendered = plan.renderWithFence(Server.FENCE);
            sent = server.run(rendered);
        }
        if (sent.unfencedSinkRows() > 0) {
            return new Disagreement(setting, text, Category.UNFENCED_WRITE, context.get() + "\n  sent: "
                    + OracleCorpus.escape(rendered) + "\n  server on sent text: " + sent);
        }
        if (!prediction.readable()) {
            return null;
        }
        return lexerDisagreement(text, prediction, raw, context);
    }

    /** The first way the server's run contradicts the lexer's reading, or null. */
    private Disagreement lexerDisagreement(String text, Prediction prediction, Observation raw, Supplier<String> context) {
        BitSet expected = (BitSet) prediction.code.clone();
        expected.or(prediction.mayRun);
        for (int m = 0; m < Server.MARKERS; m++) {
            if (raw.ran(m) && !expected.get(m)) {
                return new Disagreement(setting, text, Category.HIDDEN_MARKER_RAN, "o_m" + m + " ran; " + context.get());
            }
        }
        if (raw.error() == null) {
            for (int m = prediction.code.nextSetBit(0); m >= 0; m = prediction.code.nextSetBit(m + 1)) {
                if (!raw.ran(m)) {
                    return new Disagreement(setting, text, Category.CODE_MARKER_DID_NOT_RUN, "o_m" + m + " did not run; " + context.get());
                }
            }
            if (countsResults() && raw.results() != prediction.results) {
                return new Disagreement(setting, text, Category.RESULT_COUNT, context.get());
            }
        }
        return null;
    }

    /** H2 returns the result of the first command of a command list only. */
    private boolean countsResults() {
        return setting.database() != Database.H2;
    }

    /**
     * The shortest text found by removing ever smaller pieces of {@code found.text()} that still
     * shows a disagreement of the same category; at most {@code budget} runs on the server.
     */
    Disagreement shrink(Disagreement found, int budget) throws SQLException {
        shrinking = true;
        try {
            return shrinkCounted(found, budget);
        } finally {
            shrinking = false;
        }
    }

    private Disagreement shrinkCounted(Disagreement found, int budget) throws SQLException {
        Disagreement best = cutAtSemicolons(found);
        String text = best.text();
        int chunk = Math.max(1, text.length() / 2);
        while (budget > 0) {
            boolean progress = false;
            for (int start = 0; start < text.length() && budget > 0; ) {
                int end = Math.min(text.length(), start + chunk);
                if (splitsPair(text, start) || splitsPair(text, end)) {
                    start = end;
                    continue;
                }
                String candidate = text.substring(0, start) + text.substring(end);
                budget--;
                Disagreement again = candidate.isBlank() ? null : check(candidate);
                if (again != null && again.category() == found.category()) {
                    text = candidate;
                    best = again;
                    progress = true;
                } else {
                    start = end;
                }
            }
            if (!progress) {
                if (chunk == 1) {
                    break;
                }
                chunk = Math.max(1, chunk / 2);
            }
        }
        return best;
    }

    /**
     * Drops whole trailing and leading pieces at semicolons first: the halving below removes
     * pieces at aligned offsets and often cannot cut exactly one statement.
     */
    private Disagreement cutAtSemicolons(Disagreement found) throws SQLException {
        Disagreement best = found;
        for (int at = best.text().lastIndexOf(';'); at > 0; at = best.text().lastIndexOf(';', at - 1)) {
            String candidate = best.text().substring(0, at);
            Disagreement again = candidate.isBlank() ? null : check(candidate);
            if (again != null && again.category() == found.category()) {
                best = again;
            }
        }
        for (int at = best.text().indexOf(';'); at >= 0 && at + 1 < best.text().length(); at = best.text().indexOf(';', at + 1)) {
            String candidate = best.text().substring(at + 1);
            Disagreement again = candidate.isBlank() ? null : check(candidate);
            if (again != null && again.category() == found.category()) {
                best = again;
                at = -1;
            }
        }
        return best;
    }

    private static boolean splitsPair(String text, int at) {
        return at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at));
    }
}
