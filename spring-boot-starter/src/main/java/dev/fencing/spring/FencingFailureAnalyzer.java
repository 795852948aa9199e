package dev.fencing.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link FencingConfigurationException} that stopped the application as Spring Boot's
 * "APPLICATION FAILED TO START" report: the description names the key or the versions, the
 * action says what to change. Without it the reason is the innermost cause of a stack trace whose
 * top blames whichever bean first read the settings. Registered in {@code META-INF/spring.factories}.
 */
final class FencingFailureAnalyzer extends AbstractFailureAnalyzer<FencingConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, FencingConfigurationException cause) {
        return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
    }
}
