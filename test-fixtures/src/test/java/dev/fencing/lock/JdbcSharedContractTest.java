package dev.fencing.lock;

import dev.fencing.testing.locks.FencedLocksContractTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;

/** The shared lock contract (the one etcd and ZooKeeper run) against {@link JdbcFencedLocks} on H2. */
class JdbcSharedContractTest extends FencedLocksContractTest {

    private final JdbcDataSource dataSource = new JdbcDataSource();

    JdbcSharedContractTest() throws SQLException {
        dataSource.setURL("jdbc:h2:mem:contract-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcFencedLocks.create(dataSource).createTable();
    }

    @Override
    protected FencedLocks newLocks(Options options) {
        JdbcFencedLocks.Builder builder = JdbcFencedLocks.builder(dataSource);
        if (options.watchdog()) {
            builder.watchdog(true).watchdogExecutor(options.renewalSchedule());
        }
        if (options.pollInterval() != null) {
            builder.pollInterval(options.pollInterval());
        }
        return builder.build();
    }

    @Override
    protected void expireAtStore(String resource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement expire = connection.prepareStatement(
                     "UPDATE " + JdbcFencedLocks.DEFAULT_TABLE + " SET expires_at = 0 WHERE lock_name = ?")) {
            expire.setString(1, resource);
            expire.executeUpdate();
        }
    }

    @Override
    protected String storeName() {
        return "table " + JdbcFencedLocks.DEFAULT_TABLE;
    }

    /** Releases by other clients are noticed by polling: the lock table publishes nothing. */
    @Override
    protected boolean wakesWaitersAcrossClients() {
        return false;
    }
}
