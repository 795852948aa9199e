package dev.fencing.spring;

import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration;

/**
 * Spring Boot 3.5's auto-configurations that the shared tests name (Spring Boot 4 moved them;
 * {@code fencing-spring-boot-starter}'s tests have a class of this name with 4's).
 */
final class BootLineAutoConfigurations {

    static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;
    static final Class<?> JDBC_TEMPLATE = JdbcTemplateAutoConfiguration.class;
    static final Class<?> FLYWAY = FlywayAutoConfiguration.class;
    static final Class<?> LIQUIBASE = LiquibaseAutoConfiguration.class;

    private BootLineAutoConfigurations() {
    }
}
