/**
 * fencing-driver: the fencing {@code DataSource} and {@code jdbc:fencing:} driver, the statement
 * rewriting, configuration and the fenced locks.
 *
 * <p>Exported: the public packages (docs/api.md), nothing else. Every {@code dev.fencing.internal}
 * package may change in any release; the few that another module of this project compiles against
 * are exported to that module by name only (docs/api.md lists them). The agent needs none: it
 * carries the driver's classes inside its own jar, on the class path.
 *
 * <p>Run time: the packaged jar requires nothing beyond {@code java.sql} and {@code java.logging}.
 * JSqlParser is compiled against here, then relocated into this jar
 * ({@code dev.fencing.shaded.jsqlparser}) by the shade plugin, so it is required {@code static}: the
 * packaged module needs no JSqlParser module at run time (nor uses one an application may have),
 * and the relocated packages are its own, exported to none (driver/pom.xml, "relocate-jsqlparser",
 * says how the descriptor keeps them in). Lettuce, Reactor and the JDBC drivers are optional: read
 * when the application has them on the module path.
 */
module dev.fencing.driver {
    // DataSource and SQLException in the public API
    requires transitive java.sql;
    // getParentLogger and the relocated JSqlParser's logger. Named although java.sql implies it:
    // Java 17's archived boot layer (CDS) does not pass that implied read on to a module in a layer
    // of its own, where JSqlParser then fails to load (IllegalAccessError; ModulePathIT)
    requires java.logging;

    requires static net.sf.jsqlparser;
    // RedisFencedLocks; Reactor for Lettuce's event bus, Netty for its executor (RedisConnections)
    requires static lettuce.core;
    requires static reactor.core;
    requires static io.netty.common;
    // pgjdbc's session report (SessionEncoding falls back to asking the server without it)
    requires static org.postgresql.jdbc;
    // the H2 guard's trigger class
    requires static com.h2database;

    exports dev.fencing;
    exports dev.fencing.jdbc;
    exports dev.fencing.lock;
    exports dev.fencing.lock.spi;
    exports dev.fencing.events;

    // server address parsing for the consensus lock stores; the Spring starter's configuration keys
    exports dev.fencing.internal.config to dev.fencing.lock.etcd, dev.fencing.lock.zookeeper, dev.fencing.spring;
    // the Spring starter's migration marks (MigrationMarks: SessionFence, Dialect)
    exports dev.fencing.internal.guard to dev.fencing.spring;
    exports dev.fencing.internal.sql to dev.fencing.spring;

    // H2 instantiates the guard's trigger (H2GuardTrigger) by its class name: reflection, not an API
    opens dev.fencing.internal.guard to com.h2database;

    provides java.sql.Driver with dev.fencing.jdbc.FencingDriver;
}
