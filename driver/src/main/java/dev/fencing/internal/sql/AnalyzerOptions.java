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
 */
public record AnalyzerOptions(boolean rewrite, boolean crossCheckSpliceProof, LongSupplier clock) {

    /** What every production analyzer uses: the rewrite on, no cross-check, the system's clock. */
    public static final AnalyzerOptions CHECKED = new AnalyzerOptions(true, false);

    public AnalyzerOptions {
        Objects.requireNonNull(clock, "clock");
    }

    /** These options with the system's clock. */
    public AnalyzerOptions(boolean rewrite, boolean crossCheckSpliceProof) {
        this(rewrite, crossCheckSpliceProof, System::nanoTime);
    }

    /** These options with the analysis budget read from {@code nanos} instead of the system's clock. */
    public AnalyzerOptions withClock(LongSupplier nanos) {
        return new AnalyzerOptions(rewrite, crossCheckSpliceProof, nanos);
    }
}
