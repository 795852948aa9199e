package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 29, finding 6: {@code fencing.parse-timeout-millis} bounds the whole analysis of a text,
 * lexing, parsing, the shape's templates and the re-read alike, on the calling thread. Each test
 * reads the budget from a clock that moves one millisecond per reading, so it counts the
 * analysis's steps (the clock is read every {@link AnalysisBudget#STEPS_PER_READING} characters or
 * tokens, and before each parse) instead of timing them.
 */
class AnalysisBudgetTest {

    /** One millisecond per reading; counts the readings. */
    private static final class StepClock implements LongSupplier {
        final AtomicLong readings = new AtomicLong();

        @Override
        public long getAsLong() {
            return readings.incrementAndGet() * 1_000_000L;
        }
    }

    private static StatementAnalyzer analyzer(long millis, LongSupplier clock, Dialect dialect) {
        return new StatementAnalyzer(FencingConfig.builder().tables("orders").parseTimeoutMillis(millis).build(), dialect,
                AnalyzerOptions.CHECKED.withClock(clock));
    }

    /**
     * The statement that was refused after 21-22 s: 200 nested parentheses make JSqlParser's
     * lookahead exponential. Its first parse (the shape's template) runs out of the budget, and
     * that ends the analysis: no full analysis of the text follows, nothing is parsed twice.
     */
    @Test
    void twoHundredNestedParenthesesAreRefusedWhenTheirOneParseRunsOutOfTheBudget() {
        String sql = "UPDATE orders SET status = 'x' WHERE id = " + "(".repeat(200) + "1" + ")".repeat(200);
        for (Dialect dialect : Dialect.values()) {
            StepClock clock = new StepClock();
            StatementAnalyzer analyzer = analyzer(100, clock, dialect);

            FencePlan plan = analyzer.plan(sql);

            assertThat(plan.kind()).as(dialect.name()).isEqualTo(FencePlan.Kind.REFUSED);
            assertThat(plan.refusalReason()).as(dialect.name())
                    .contains("took longer than 100 ms (fencing.parse-timeout-millis)")
                    .contains("raise fencing.parse-timeout-millis").endsWith("nothing was sent");
            assertThat(analyzer.analyses()).as(dialect + ": analyses").isEqualTo(1);
            assertThat(analyzer.parsedCharacters()).as(dialect + ": characters parsed").isLessThan(sql.length() + 64);
            assertThat(clock.readings.get()).as(dialect + ": clock readings").isLessThanOrEqualTo(100);
        }
    }

    /** Lexing spends the same budget: a text too long for it is refused before any parse. */
    @Test
    void lexingALongTextSpendsTheBudget() {
        String sql = "SELECT id FROM orders WHERE status IN ('a'" + ", 'a'".repeat(400_000) + ")";
        StepClock clock = new StepClock();
        StatementAnalyzer analyzer = analyzer(20, clock, Dialect.POSTGRESQL);

        FencePlan plan = analyzer.plan(sql);

        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("took longer than 20 ms");
        assertThat(analyzer.parsedCharacters()).isZero();
        // one reading when the budget starts, then one per STEPS_PER_READING characters until it is spent
        assertThat(clock.readings.get()).isEqualTo(21);
        // the verdict depends on the machine's load: it is not cached, the next execution analyses again
        assertThat(analyzer.cachedPlans()).isZero();
    }

    /** The same text with room in its budget is analysed as ever: the budget only stops, it never decides. */
    @Test
    void aTextWithinItsBudgetIsPlannedAsWithoutOne() {
        String sql = "SELECT id FROM orders WHERE status IN ('a'" + ", 'a'".repeat(200) + ")";
        StepClock clock = new StepClock();
        FencePlan plan = analyzer(1_000, clock, Dialect.POSTGRESQL).plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isEqualTo(FencePlan.Kind.READ);
        assertThat(clock.readings.get()).isBetween(2L, 10L);
    }

    /**
     * JSqlParser overflows the stack on deep nesting (here on a thread with a small stack): the
     * refusal says so, where it used to say "(null)".
     */
    @Test
    void aStackOverflowIsARefusalThatSaysWhy() throws Exception {
        String sql = "UPDATE orders SET status = " + "lower(".repeat(3_000) + "'x'" + ")".repeat(3_000) + " WHERE id = 1";
        StatementAnalyzer analyzer = new StatementAnalyzer(FencingConfig.builder().tables("orders").build(),
                Dialect.POSTGRESQL);
        FencePlan[] plan = new FencePlan[1];
        Thread small = new Thread(null, () -> plan[0] = analyzer.plan(sql), "small-stack", 256 * 1024);
        small.start();
        small.join();

        assertThat(plan[0].kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan[0].refusalReason()).contains("nests too deeply").contains("ran out of stack")
                .doesNotContain("(null)");
    }

    @Test
    void theClockIsReadEveryStepsPerReadingStepsAndTheDeadlineEndsTheAnalysis() {
        StepClock clock = new StepClock();
        AnalysisBudget budget = new AnalysisBudget(3, clock);
        assertThat(clock.readings.get()).isEqualTo(1);
        budget.spend(AnalysisBudget.STEPS_PER_READING - 1);
        assertThat(clock.readings.get()).isEqualTo(1);
        budget.spend(1);
        assertThat(clock.readings.get()).isEqualTo(2);
        assertThat(budget.remainingNanos()).isEqualTo(1_000_000L);
        int before = AnalysisBudget.exhaustedOnThisThread();
        assertThatThrownBy(budget::check).isInstanceOf(AnalysisBudget.ExhaustedException.class)
                .hasMessageContaining("took longer than 3 ms");
        assertThat(AnalysisBudget.exhaustedOnThisThread()).isEqualTo(before + 1);
    }
}
