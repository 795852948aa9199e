package dev.fencing.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import org.junit.platform.engine.TestExecutionResult;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Runs sample test classes (user code, as it were) inside a test, through the JUnit Platform
 * test kit, so that a test can check what the extensions did and left behind. Sample classes
 * carry {@link Sample}, which disables them in any other run (an IDE running the package, say).
 */
final class Samples {

    private static final String SWITCH = "fencing.fixtures.samples";

    private Samples() {
    }

    /** Marks a class that only runs through {@link #run(Class)}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @ExtendWith(OnlyInTestKit.class)
    @interface Sample {
    }

    static EngineExecutionResults run(Class<?> sample) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(SWITCH, "true")
                .selectors(selectClass(sample))
                .execute();
    }

    /** Runs {@code sample} and asserts that exactly {@code tests} tests ran, all successfully. */
    static void assertAllSucceed(Class<?> sample, int tests) {
        Events events = run(sample).testEvents();
        String failures = events.failed().stream()
                .map(event -> event.getTestDescriptor().getDisplayName() + ": "
                        + event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable)
                        .map(Throwable::toString).orElse("?"))
                .collect(Collectors.joining("\n"));
        assertEquals("", failures, "failed tests of " + sample.getSimpleName());
        assertEquals(tests, events.succeeded().count(), "successful tests of " + sample.getSimpleName());
    }

    static final class OnlyInTestKit implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(SWITCH).isPresent()
                    ? ConditionEvaluationResult.enabled("run by Samples.run")
                    : ConditionEvaluationResult.disabled("a sample class, run only by Samples.run");
        }
    }
}
