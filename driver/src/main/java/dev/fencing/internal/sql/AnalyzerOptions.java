package dev.fencing.internal.sql;

/**
 * How an analyzer is made beyond its configuration: only tests ever ask for anything but
 * {@link #CHECKED}. No configuration key, system property or environment variable reaches these;
 * they are passed in when an analyzer (or a data source's connection context) is made, so that
 * turning a check off for one test cannot turn it off for another analyzer in the same process.
 *
 * @param rewrite                every fenced write is rewritten and checked at the front door;
 *                               false: every text is sent as written (refusals stay), so that a
 *                               test can show the database guard's triggers alone hold
 * @param crossCheckSpliceProof  every splice the cheap token proof accepts is also re-read with
 *                               JSqlParser's lexer, and a disagreement is an {@link AssertionError}
 */
public record AnalyzerOptions(boolean rewrite, boolean crossCheckSpliceProof) {

    /** What every production analyzer uses: the rewrite on, no cross-check. */
    public static final AnalyzerOptions CHECKED = new AnalyzerOptions(true, false);
}
