package dev.fencing.internal.sql;

/**
 * Test-only access to {@code StatementAnalyzer.crossCheckSpliceProofForTests} (package-private: no
 * configuration reaches it): while on, every splice the token proof accepts is also re-read with
 * JSqlParser's lexer, and a disagreement is an {@link AssertionError}.
 */
public final class SpliceProofSwitch {

    private SpliceProofSwitch() {
    }

    /** Cross-checks the token proof until the returned handle is closed. */
    public static AutoCloseable crossCheck() {
        StatementAnalyzer.crossCheckSpliceProofForTests = true;
        return () -> StatementAnalyzer.crossCheckSpliceProofForTests = false;
    }
}
