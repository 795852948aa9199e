/**
 * fencing-test-fixtures: JUnit 5 extensions and scratch databases for testing fenced code, and
 * real consensus servers for lock stores (docs/api.md).
 */
module dev.fencing.testing {
    requires transitive dev.fencing.driver;
    // a JUnit 5 extension library: JUnit's API is its own (with JUnit's commons and opentest4j)
    requires transitive org.junit.jupiter.api;
    // EtcdCluster reads the servers' metrics over HTTP
    requires java.net.http;

    // each needed only by the fixture that uses it; users bring their own versions
    requires static org.postgresql.jdbc;
    requires static org.mariadb.jdbc;
    requires static lettuce.core;

    exports dev.fencing.testing;
    exports dev.fencing.testing.locks;
}
