package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.it.UniqueNames;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;

/**
 * A private H2 in-memory database, alive while the JVM runs: the contracts' third database,
 * which needs no server (the test fixtures offer only PostgreSQL and MariaDB scratch areas).
 */
final class H2 {

    private H2() {
    }

    static DataSource database() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + UniqueNames.next("h2_") + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }
}
