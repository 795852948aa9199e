package dev.fencing.spring;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.util.ClassUtils;

/**
 * Stops an application whose Spring Boot is not the line this build of the starter is for
 * ({@link BootLine}), before any bean is created: Spring Boot 4 moved the Flyway, Liquibase and
 * health auto-configuration into new packages, so on the other line the starter's redirect of
 * migrations to the unwrapped data source and its health indicator would silently not apply, and
 * the first migration would fail with an error that blames fencing for refusing DDL.
 */
final class BootLineCheck implements BeanFactoryPostProcessor {

    /** A class that Spring Boot 4.0 added to its core jar and 3.5 lacks: the line when the jar names no version. */
    private static final String BOOT_4_CLASS = "org.springframework.boot.EnvironmentPostProcessor";

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory factory) {
        require(running());
    }

    /** Spring Boot's version, or its major version alone when the jar does not name it (a repackaged jar). */
    static String running() {
        String version = SpringBootVersion.getVersion();
        if (version != null) {
            return version;
        }
        return ClassUtils.isPresent(BOOT_4_CLASS, BootLineCheck.class.getClassLoader()) ? "4" : "3";
    }

    /** @throws FencingConfigurationException naming both versions when {@code running} is not on {@link BootLine}'s line */
    static void require(String running) {
        if (!BootLine.supports(running)) {
            throw new FencingConfigurationException(BootLine.ARTIFACT + " supports " + BootLine.SUPPORTED
                    + " but this application runs Spring Boot " + running,
                    "Use " + BootLine.OTHER + ", or " + BootLine.ARTIFACT + " with " + BootLine.SUPPORTED
                    + "; other Spring Boot versions are not supported");
        }
    }
}
