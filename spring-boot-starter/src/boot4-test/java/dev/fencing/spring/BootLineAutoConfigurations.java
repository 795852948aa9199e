package dev.fencing.spring;

import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;

/**
 * Spring Boot 4's auto-configurations that the shared tests name (Boot 4 moved them to other
 * packages; {@code fencing-spring-boot3-starter}'s tests have a class of this name with 3.5's).
 */
final class BootLineAutoConfigurations {

    static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;
    static final Class<?> JDBC_TEMPLATE = JdbcTemplateAutoConfiguration.class;
    static final Class<?> FLYWAY = FlywayAutoConfiguration.class;
    static final Class<?> LIQUIBASE = LiquibaseAutoConfiguration.class;

    private BootLineAutoConfigurations() {
    }
}
