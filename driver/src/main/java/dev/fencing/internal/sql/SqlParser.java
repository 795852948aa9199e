package dev.fencing.internal.sql;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.parser.feature.Feature;
import net.sf.jsqlparser.parser.feature.FeatureConfiguration;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs JSqlParser on one statement, on the calling thread. {@code CCJSqlParserUtil.parse} starts
 * a thread per call to enforce its timeout; here one shared daemon thread only flips the parser's
 * interrupt flag when a parse overruns, so a parse costs no thread hand-off.
 */
final class SqlParser {

    /** Thrown when a statement cannot be parsed (or its parse overran its time). */
    static final class UnparseableSqlException extends Exception {
        private static final long serialVersionUID = 1L;

        UnparseableSqlException(String message) {
            super(message, null, false, false);
        }
    }

    private static final class Watchdog {
        static final ScheduledExecutorService TIMER = createTimer();

        private static ScheduledExecutorService createTimer() {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "fencing-parse-watchdog");
                thread.setDaemon(true);
                return thread;
            });
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }

    /** Parses that ran out of time on each thread: a plan made from one is not cached (see PlanCache). */
    private static final ThreadLocal<int[]> TIMEOUTS = ThreadLocal.withInitial(() -> new int[1]);

    private final Dialect dialect;
    private final long timeoutMillis;

    SqlParser(Dialect dialect, long timeoutMillis) {
        this.dialect = dialect;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * One statement as parsed, the text the parser was given, and the head of the parser's token chain: {@code firstToken.next}
     * is the first token JSqlParser's lexer read, and the chain runs on through every token it read
     * (comments hang off them as special tokens).
     */
    record Parsed(Statement statement, String text, Token firstToken) {
    }

    /** How many parses ran out of time on the calling thread so far. */
    static int timeoutsOnThisThread() {
        return TIMEOUTS.get()[0];
    }

    /** Parses exactly one statement. */
    Statement parse(String statementText) throws UnparseableSqlException {
        return parseKeepingTokens(statementText).statement();
    }

    /** Parses exactly one statement, and keeps the tokens the parser read. */
    Parsed parseKeepingTokens(String statementText) throws UnparseableSqlException {
        CCJSqlParser parser = configure(new CCJSqlParser(new StringProvider(statementText)), dialect);
        Token firstToken = parser.token;
        ScheduledFuture<?> alarm = Watchdog.TIMER.schedule(() -> {
            parser.interrupted = true;
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            Statements statements = parser.Statements();
            if (parser.interrupted) {
                TIMEOUTS.get()[0]++;
                throw new UnparseableSqlException("the analysis took longer than " + timeoutMillis + " ms");
            }
            if (statements == null || statements.size() != 1) {
                throw new UnparseableSqlException("expected one statement, the parser read "
                        + (statements == null ? 0 : statements.size()));
            }
            return new Parsed(statements.get(0), statementText, firstToken);
        } catch (UnparseableSqlException e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            if (parser.interrupted) {
                TIMEOUTS.get()[0]++;
            }
            String reason = parser.interrupted
                    ? "the analysis took longer than " + timeoutMillis + " ms"
                    : firstLine(String.valueOf(e.getMessage()));
            throw new UnparseableSqlException(reason);
        } finally {
            alarm.cancel(false);
        }
    }

    /** The parser features matching {@code dialect}'s lexical rules. */
    static CCJSqlParser configure(CCJSqlParser parser, Dialect dialect) {
        FeatureConfiguration features = new FeatureConfiguration()
                .setValue(Feature.allowSquareBracketQuotation, false)
                .setValue(Feature.allowBackslashEscapeCharacter, dialect.mysqlLexing());
        return parser.withConfiguration(features);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

}
