/**
 * fencing-spring-boot-starter for Spring Boot 4 (fencing-spring-boot3-starter has its own
 * descriptor, for Spring Boot 3.5's modules: the two jars are alternatives under one module name).
 */
module dev.fencing.spring {
    // FencingDataSource, FencedLocks and the exceptions are in its API
    requires transitive dev.fencing.driver;
    requires spring.core;
    requires spring.beans;
    requires spring.context;
    requires spring.aop;
    requires spring.expression;
    requires spring.jdbc;
    requires spring.tx;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires org.apache.commons.logging;

    // each used only when the application has it
    requires static spring.orm;
    // Flyway 11 names no module: its name comes from the file name, flyway-core-<version>.jar
    requires static flyway.core;
    requires static spring.boot.flyway;
    requires static liquibase.core;
    requires static spring.boot.health;
    requires static micrometer.core;
    requires static lettuce.core;
    requires static com.zaxxer.hikari;

    exports dev.fencing.spring;
    // Spring reads, instantiates and proxies the configuration classes by reflection, as it could
    // when this jar was an automatic module (every package open)
    opens dev.fencing.spring to spring.core, spring.beans, spring.context;
}
