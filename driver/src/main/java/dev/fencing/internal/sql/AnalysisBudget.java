package dev.fencing.internal.sql;

import java.util.function.LongSupplier;

/**
 * The time the analysis of one text may take ({@code fencing.parse-timeout-millis}), spent on the
 * calling thread by every phase of it: the lexer, JSqlParser's parse, the splice proof, the
 * re-read of the spliced text, a shape's templates. Each phase reports the work it does in steps
 * (characters or tokens visited); the clock is read every {@link #STEPS_PER_READING} steps and at
 * the start of each parse, so a text that would take longer stops where it is and is refused
 * ({@link ExhaustedException}), however its time is spread over the phases.
 *
 * <p>Not thread-safe: one budget per analysis, on one thread. The clock is {@link System#nanoTime}
 * except in tests, which pass one that counts its readings ({@link AnalyzerOptions#clock}).
 */
final class AnalysisBudget {

    /** Steps (characters, tokens) between two readings of the clock. */
    static final int STEPS_PER_READING = 1 << 14;

    /** A budget that never runs out and never changes: lexing outside an analysis (the guard's small texts). */
    static final AnalysisBudget UNLIMITED = new AnalysisBudget();

    /** Budgets spent on each thread: a plan refused for its budget is not cached (see {@link PlanCache}). */
    private static final ThreadLocal<int[]> EXHAUSTED = ThreadLocal.withInitial(() -> new int[1]);

    /** Thrown when the budget is spent; the analysis stops and the text is refused with {@link #getMessage}. */
    static final class ExhaustedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExhaustedException(long millis) {
            super("the analysis of the text took longer than " + millis + " ms (fencing.parse-timeout-millis), so it"
                    + " is refused rather than sent unchecked; send a shorter or less nested statement, bind its values"
                    + " as parameters, or raise fencing.parse-timeout-millis", null, false, false);
        }
    }

    private final long millis;
    private final LongSupplier clock;
    private final long deadline;
    private final boolean limited;
    private int stepsToReading = STEPS_PER_READING;

    /** A budget of {@code millis} from now, by {@code clock} (nanoseconds). */
    AnalysisBudget(long millis, LongSupplier clock) {
        this.millis = millis;
        this.clock = clock;
        this.deadline = clock.getAsLong() + millis * 1_000_000L;
        this.limited = true;
    }

    private AnalysisBudget() {
        this.millis = Long.MAX_VALUE;
        this.clock = () -> 0L;
        this.deadline = Long.MAX_VALUE;
        this.limited = false;
    }

    /** How many budgets ran out on the calling thread so far. */
    static int exhaustedOnThisThread() {
        return EXHAUSTED.get()[0];
    }

    long millis() {
        return millis;
    }

    /** Counts {@code steps} of work; reads the clock when enough have gathered since the last reading. */
    void spend(int steps) {
        if (!limited) {
            return;
        }
        stepsToReading -= steps;
        if (stepsToReading <= 0) {
            check();
        }
    }

    /** Reads the clock; {@link ExhaustedException} when the deadline has passed. */
    void check() {
        if (!limited) {
            return;
        }
        stepsToReading = STEPS_PER_READING;
        if (clock.getAsLong() - deadline >= 0) {
            throw exhausted();
        }
    }

    /** The time left, in nanoseconds, at least 1; {@link ExhaustedException} when none is. */
    long remainingNanos() {
        if (!limited) {
            return Long.MAX_VALUE;
        }
        stepsToReading = STEPS_PER_READING;
        long left = deadline - clock.getAsLong();
        if (left <= 0) {
            throw exhausted();
        }
        return left;
    }

    /** The refusal for a budget that ran out where the caller noticed it (a parse interrupted at the deadline). */
    ExhaustedException exhausted() {
        EXHAUSTED.get()[0]++;
        return new ExhaustedException(millis);
    }
}
