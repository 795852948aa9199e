package dev.fencing.internal.sql;

/**
 * Test-only access to the analyzer's rewrite switch ({@code StatementAnalyzer.rewriteOffForTests},
 * package-private: no configuration, property or environment variable reaches it). With the
 * rewrite off every text is sent as the application wrote it, with no front-door fence check,
 * so a test can show that the database guard's triggers alone hold. Refusals stay.
 */
public final class RewriteSwitch {

    private RewriteSwitch() {
    }

    /** Turns the rewrite off until the returned handle is closed. */
    public static AutoCloseable off() {
        StatementAnalyzer.rewriteOffForTests = true;
        return () -> StatementAnalyzer.rewriteOffForTests = false;
    }
}
