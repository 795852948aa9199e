package dev.fencing.internal.sql;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
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
 * interrupt flag when a parse overruns what is left of the analysis's {@link AnalysisBudget}, so
 * a parse costs no thread hand-off, and a parse that runs out of time ends the whole analysis.
 */
final class SqlParser {

    /** Thrown when a statement cannot be parsed. */
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

    /** A parse's state, for the parser's thread and the watchdog: only one of them may end it. */
    private static final int RUNNING = 0;
    private static final int FINISHED = 1;
    private static final int INTERRUPTED = 2;

    private final Dialect dialect;
    /** Characters given to JSqlParser's parse so far: how much of their texts the analyses parsed (tests). */
    private final java.util.concurrent.atomic.LongAdder parsedCharacters = new java.util.concurrent.atomic.LongAdder();

    SqlParser(Dialect dialect) {
        this.dialect = dialect;
        Loaded.ensure();
    }

    /**
     * JSqlParser's parser class takes about half a second to load and initialise (its tables), a
     * cost that would otherwise fall on the first analysis's budget: it is paid when the first
     * analyzer is made, with its data source.
     */
    private static final class Loaded {
        static final CCJSqlParser PARSER = new CCJSqlParser(new StringProvider(""));

        static void ensure() {
            if (PARSER == null) {
                throw new IllegalStateException("JSqlParser did not load");
            }
        }
    }

    /**
     * One statement as parsed, the text the parser was given, and the head of the parser's token chain: {@code firstToken.next}
     * is the first token JSqlParser's lexer read, and the chain runs on through every token it read
     * (comments hang off them as special tokens).
     */
    record Parsed(Statement statement, String text, Token firstToken) {
    }

    /** How many characters JSqlParser was given to parse so far, over every analysis of this parser's analyzer. */
    long parsedCharacters() {
        return parsedCharacters.sum();
    }

    /** Parses exactly one statement within {@code budget}. */
    Statement parse(String statementText, AnalysisBudget budget) throws UnparseableSqlException {
        return parseKeepingTokens(statementText, budget).statement();
    }

    /**
     * Parses exactly one statement, and keeps the tokens the parser read. The parse is interrupted
     * when {@code budget} runs out, and then {@link AnalysisBudget.ExhaustedException} ends the
     * analysis.
     */
    Parsed parseKeepingTokens(String statementText, AnalysisBudget budget) throws UnparseableSqlException {
        long remaining = budget.remainingNanos();
        parsedCharacters.add(statementText.length());
        CCJSqlParser parser = configure(new CCJSqlParser(new StringProvider(statementText)), dialect);
        Token firstToken = parser.token;
        try {
            Statements statements = run(parser, CCJSqlParser::Statements, remaining, budget);
            if (statements == null || statements.size() != 1) {
                throw new UnparseableSqlException("expected one statement, the parser read "
                        + (statements == null ? 0 : statements.size()));
            }
            return new Parsed(statements.get(0), statementText, firstToken);
        } catch (ParserFailure e) {
            throw new UnparseableSqlException(e.getMessage());
        }
    }

    /** One call into JSqlParser that may fail (its parse, its whole-text parse), and how. */
    interface ParserCall<T> {
        T call(CCJSqlParser parser) throws Exception;
    }

    /** JSqlParser failed on its own (not for the budget): why, in one line. */
    static final class ParserFailure extends Exception {
        private static final long serialVersionUID = 1L;

        ParserFailure(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Runs {@code call} on {@code parser} with its interrupt flag set by the watchdog after
     * {@code remainingNanos}; {@link AnalysisBudget.ExhaustedException} when it was interrupted.
     * JSqlParser looks at the flag only now and then (a lookahead over nested parentheses can run
     * long between two looks), so the watchdog also turns every token the parser has read so far
     * into an end of input: each lookahead then fails at its first token, and the parse gives up
     * at once. Either the parse ends first or the watchdog fires first, never both
     * ({@code state}): a parse that finished is never spoiled.
     */
    static <T> T run(CCJSqlParser parser, ParserCall<T> call, long remainingNanos, AnalysisBudget budget)
            throws ParserFailure {
        java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger(RUNNING);
        Token first = parser.token;
        ScheduledFuture<?> alarm = remainingNanos == Long.MAX_VALUE ? null : Watchdog.TIMER.schedule(() -> {
            if (state.compareAndSet(RUNNING, INTERRUPTED)) {
                parser.interrupted = true;
                for (Token token = first.next; token != null; token = token.next) {
                    token.kind = CCJSqlParserConstants.EOF;
                }
            }
        }, remainingNanos, TimeUnit.NANOSECONDS);
        try {
            T result = call.call(parser);
            if (!state.compareAndSet(RUNNING, FINISHED)) {
                throw budget.exhausted();
            }
            return result;
        } catch (AnalysisBudget.ExhaustedException e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            if (!state.compareAndSet(RUNNING, FINISHED)) {
                throw budget.exhausted();
            }
            throw new ParserFailure(reason(e));
        } finally {
            if (alarm != null) {
                alarm.cancel(false);
            }
        }
    }

    /** What went wrong reading a statement, in one line a user can act on (a stack overflow has no message of its own). */
    static String reason(Throwable e) {
        if (e instanceof StackOverflowError) {
            return "the statement nests too deeply to be read: the analysis ran out of stack (nest fewer"
                    + " parentheses, function calls or subqueries inside each other)";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage());
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
