package dev.fencing.internal.sql;

import java.util.Objects;
import java.util.function.LongSupplier;

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
 * @param clock                  the nanosecond clock the analysis budget
 *                               ({@code fencing.parse-timeout-millis}) is read from:
 *                               {@link System#nanoTime}, or in tests one that counts its readings,
 *                               so that a test of the budget counts steps instead of timing them
 * @param recognizeCommonShapes  the single-table writes ORMs send are read by the recognizer of
 *                               common shapes instead of JSqlParser (the plan is the same, the
 *                               parse is saved); false: JSqlParser reads every statement
 */
public record AnalyzerOptions(boolean rewrite, boolean crossCheckSpliceProof, LongSupplier clock,
                              boolean recognizeCommonShapes) {

    /** What every production analyzer uses: the rewrite on, no cross-check, the system's clock, the recognizer on. */
    public static final AnalyzerOptions CHECKED = new AnalyzerOptions(true, false);

    public AnalyzerOptions {
        Objects.requireNonNull(clock, "clock");
    }

    /** These options with the system's clock and the recognizer of common shapes on. */
    public AnalyzerOptions(boolean rewrite, boolean crossCheckSpliceProof) {
        this(rewrite, crossCheckSpliceProof, System::nanoTime, true);
    }

    /** These options with the analysis budget read from {@code nanos} instead of the system's clock. */
    public AnalyzerOptions withClock(LongSupplier nanos) {
        return new AnalyzerOptions(rewrite, crossCheckSpliceProof, nanos, recognizeCommonShapes);
    }

    /**
     * These options with every statement read by JSqlParser, the common shapes too: for the tests
     * that hold the recognizer's plans to the full analysis's, and the benchmarks that compare them.
     */
    public AnalyzerOptions withoutRecognizer() {
        return new AnalyzerOptions(rewrite, crossCheckSpliceProof, clock, false);
    }
}
