/**
 * fencing-shedlock: {@code FencedLockProvider}, ShedLock's LockProvider over fenced locks, and its
 * Spring Boot auto-configuration (used only when the application has Spring Boot and the starter).
 */
module dev.fencing.shedlock {
    // FencedLocks is in its API
    requires transitive dev.fencing.driver;
    // the LockProvider it implements
    requires transitive net.javacrumbs.shedlock.core;

    // the auto-configuration: only with Spring Boot and fencing-spring-boot-starter
    requires static dev.fencing.spring;
    requires static spring.boot.autoconfigure;
    requires static spring.context;

    exports dev.fencing.shedlock;
    // Spring reads and proxies the auto-configuration class by reflection, as it could when this
    // jar was an automatic module (every package open)
    opens dev.fencing.shedlock to spring.core, spring.beans, spring.context;
}
